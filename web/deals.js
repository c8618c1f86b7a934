// The room's deals, watched and checked by this browser (docs/fairness.md):
//
// - every `next_deal.commitment` the room shows is noted (kept in localStorage per
//   room, so a reload remembers what was shown before a deal); a deal this browser
//   watched happen on an open socket whose commitment it was never shown is noted too,
//   as "unannounced": its check fails;
// - a seated player's browser sends a fresh random value ({"type": "entropy"}) for each
//   new commitment it sees (crypto.getRandomValues, which plain-http LAN addresses
//   have too), and remembers it, to say in the review that it went into the deck;
// - every finished hand of the room is fetched once (`GET /api/rooms/{code}/hands/{n}`)
//   and checked on its own by fairness.js; the outcomes are kept by hand number.
//
// The state lives in the room state as `room.deals` (state.js makes it with
// `dealsFor`); the checks end by calling the `changed` callback state.js gives, which
// announces "deals".

import { api } from "./net.js";
import { checkRecord } from "./fairness.js";
import { hex } from "./sha256.js";

const KEEP = 300; // commitments remembered per room
const STORE = "schmier.deals.";

function storeKey(code) {
  return `${STORE}${code.toLowerCase()}`;
}

/** A fresh `room.deals` for room `code`, with what this browser noted before. */
export function dealsFor(code) {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(storeKey(code)) || "{}") || {};
  } catch {
    saved = {};
  }
  return {
    code,
    announced: new Set(Array.isArray(saved.announced) ? saved.announced : []),
    unannounced: new Set(Array.isArray(saved.unannounced) ? saved.unannounced : []),
    sent: saved.sent && typeof saved.sent === "object" ? saved.sent : {}, // commitment -> value
    lastDeal: null, // the deal's commitment in the previous view of this socket
    records: new Map(), // n -> the hand's record
    results: new Map(), // n -> the outcome of checkRecord
    latest: null, // the newest finished hand's number (null: not known yet)
    checking: null, // the check under way (a promise), if any
    again: false, // a new hand was scored while checking: check once more after
  };
}

function save(deals) {
  const trim = (set) => [...set].slice(-KEEP);
  const sent = Object.fromEntries(Object.entries(deals.sent).slice(-KEEP));
  try {
    localStorage.setItem(
      storeKey(deals.code),
      JSON.stringify({ announced: trim(deals.announced), unannounced: trim(deals.unannounced), sent }),
    );
  } catch {
    /* not remembered: a reload only knows less */
  }
}

/** 32 random bytes as 64 lowercase hex characters. */
export function freshEntropy() {
  return hex(crypto.getRandomValues(new Uint8Array(32)));
}

/**
 * Note what `view` shows of the deals. `fresh`: the first view of a new socket (a deal
 * that happened while this browser was away is no news). Returns the entropy value to
 * send now, or null.
 */
export function noteDeal(deals, view, fresh) {
  let dirty = false;
  const next = view.next_deal && view.next_deal.commitment;
  const dealt = view.deal && view.deal.commitment;
  if (dealt && !fresh && dealt !== deals.lastDeal && !deals.announced.has(dealt)) {
    deals.unannounced.add(dealt);
    dirty = true;
  }
  deals.lastDeal = dealt || null;
  if (next && !deals.announced.has(next)) {
    deals.announced.add(next);
    dirty = true;
  }
  let value = null;
  const seated = view.you !== null && view.you !== undefined;
  if (next && seated && !deals.sent[next]) {
    value = freshEntropy();
    deals.sent[next] = value;
    dirty = true;
  }
  if (dirty) save(deals);
  return value;
}

/** What this browser saw of `commitment` before its deal (see fairness.checkRecord). */
export function seenBefore(deals, commitment) {
  if (!deals || !commitment) return "absent";
  if (deals.unannounced.has(commitment)) return "unannounced";
  return deals.announced.has(commitment) ? "seen" : "absent";
}

/** Whether the record's entropy holds the value this browser sent for its deck. */
export function mineIn(deals, record) {
  const value = deals && deals.sent[record.deal.commitment];
  return Boolean(value) && (record.deal.entropy || []).includes(value);
}

/** Fetch hand `n`'s record (once; kept for the review). */
export async function recordOf(deals, n) {
  if (deals.records.has(n)) return deals.records.get(n);
  const res = await api("GET", `/api/rooms/${encodeURIComponent(deals.code)}/hands/${n}`);
  if (res.status !== 200 || !res.data) return null;
  deals.records.set(n, res.data);
  return res.data;
}

/** Check one record now (the rule book's `deck` is the canonical order). */
export function checkOne(deals, record, book) {
  const outcome = checkRecord(record, book.deck, seenBefore(deals, record.deal && record.deal.commitment));
  outcome.mine = mineIn(deals, record);
  deals.results.set(record.n, outcome);
  return outcome;
}

/**
 * Check every finished hand of the room not checked yet, then call `changed()`. A call
 * while a check runs makes that one look again when it is done. `scored`: a hand has
 * just been scored (its number is not known until the list is fetched again).
 */
export async function checkDeals(deals, book, changed, scored = false) {
  if (scored) deals.latest = null;
  if (deals.checking) {
    deals.again = true;
    return deals.checking;
  }
  deals.checking = (async () => {
    do {
      deals.again = false;
      let list;
      try {
        list = await api("GET", `/api/rooms/${encodeURIComponent(deals.code)}/hands`);
      } catch {
        return;
      }
      if (list.status !== 200 || !Array.isArray(list.data)) return;
      deals.latest = list.data.length ? list.data[list.data.length - 1].n : null;
      for (const { n } of list.data) {
        if (deals.results.has(n)) continue;
        let record;
        try {
          record = await recordOf(deals, n);
        } catch {
          continue;
        }
        if (record) checkOne(deals, record, book);
      }
      changed();
    } while (deals.again);
  })().finally(() => {
    deals.checking = null;
  });
  return deals.checking;
}

/** The outcomes so far: how many hands verified, and the ones that failed. */
export function tally(deals) {
  const all = deals ? [...deals.results.entries()].sort((a, b) => a[0] - b[0]) : [];
  return {
    verified: all.filter(([, o]) => o.state === "verified").map(([n]) => n),
    failed: all.filter(([, o]) => o.state === "failed").map(([n]) => n),
    unchecked: all.filter(([, o]) => o.state === "unchecked").map(([n]) => n),
  };
}
