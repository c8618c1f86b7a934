// The room's deals, watched and checked by this browser (docs/fairness.md):
//
// - every `next_deal.commitment` the room shows is noted (kept in localStorage per
//   room, so a reload remembers what was shown before a deal); a deal this browser
//   watched happen on an open socket whose commitment it was never shown is noted too,
//   as "unannounced": its check fails;
// - a seated player's browser draws a fresh secret value for each new commitment it
//   sees (crypto.getRandomValues, which plain-http LAN addresses have too) and commits
//   to it ({"type": "entropy", "commit": sha256_hex(value)}); it sends the value itself
//   only when the server asks for it ({"type": "reveal"}), once every commit is fixed.
//   The values stay in this tab (memory and sessionStorage, so that a reload in the
//   middle of a reveal can still answer it), never in localStorage, and say in the
//   review that this browser's value went into the deck;
// - every finished hand of the room is fetched once (`GET /api/rooms/{code}/hands/{n}`)
//   and checked on its own by fairness.js; the outcomes are kept by hand number.
//
// The state lives in the room state as `room.deals` (state.js makes it with
// `dealsFor`); the checks end by calling the `changed` callback state.js gives, which
// announces "deals".

import { api } from "./net.js";
import { checkRecord } from "./fairness.js";
import { hex, sha256Hex } from "./sha256.js";

const KEEP = 300; // commitments remembered per room
const KEEP_SECRETS = 20; // this tab's secret values kept per room
const STORE = "schmier.deals.";
const SECRETS = "schmier.secrets.";

function storeKey(code) {
  return `${STORE}${code.toLowerCase()}`;
}

function secretsKey(code) {
  return `${SECRETS}${code.toLowerCase()}`;
}

function loadSecrets(code) {
  try {
    const saved = JSON.parse(sessionStorage.getItem(secretsKey(code)) || "{}") || {};
    const values = saved.values && typeof saved.values === "object" ? saved.values : {};
    return { values, last: typeof saved.last === "string" ? saved.last : null };
  } catch {
    return { values: {}, last: null };
  }
}

function saveSecrets(deals) {
  const values = Object.fromEntries(Object.entries(deals.secrets).slice(-KEEP_SECRETS));
  deals.secrets = values;
  try {
    sessionStorage.setItem(secretsKey(deals.code), JSON.stringify({ values, last: deals.last }));
  } catch {
    /* kept in memory only: a reload in the middle of a reveal withholds the value */
  }
}

/** A fresh `room.deals` for room `code`, with what this browser noted before. */
export function dealsFor(code) {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(storeKey(code)) || "{}") || {};
  } catch {
    saved = {};
  }
  const secrets = loadSecrets(code);
  return {
    code,
    announced: new Set(Array.isArray(saved.announced) ? saved.announced : []),
    unannounced: new Set(Array.isArray(saved.unannounced) ? saved.unannounced : []),
    secrets: secrets.values, // commitment seen -> the secret value committed to for it
    last: secrets.last, // the commitment whose value this tab committed to last
    committedOn: null, // "commitment:seat" this socket sent its commit for
    revealing: false, // a value was just sent: a refusal of it is no news to the player
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
  try {
    localStorage.setItem(
      storeKey(deals.code),
      JSON.stringify({ announced: trim(deals.announced), unannounced: trim(deals.unannounced) }),
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
 * that happened while this browser was away is no news). Returns the commit to send
 * now (`sha256_hex` of a fresh secret value, drawn for each new commitment), or null.
 */
export function noteDeal(deals, view, fresh) {
  let dirty = false;
  const pending = view.next_deal || null;
  const next = pending && pending.commitment;
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
  if (dirty) save(deals);
  if (fresh) deals.committedOn = null;
  const seated = view.you !== null && view.you !== undefined;
  // Once per commitment and seat (a player moved to another seat commits there too).
  const key = `${next}:${view.you}`;
  // No commit is taken while the values are being revealed: the next commitment gets one.
  if (!next || !seated || pending.revealing || deals.committedOn === key) return null;
  deals.committedOn = key;
  if ((pending.committed || []).includes(view.you) && deals.secrets[next]) return null; // a reload
  if (!deals.secrets[next]) deals.secrets[next] = freshEntropy();
  deals.last = next;
  saveSecrets(deals);
  return sha256Hex(deals.secrets[next]);
}

/**
 * The value to send in answer to `{"type": "reveal", "commitment": C}`: the one committed
 * to for C; else the last one committed to (a commit that reached the room only after
 * the deck it was meant for had been dealt counts for the next deck, C); null when this
 * tab committed to nothing (it cannot answer: the value stays withheld).
 */
export function revealFor(deals, commitment) {
  const value = deals.secrets[commitment] || (deals.last && deals.secrets[deals.last]) || null;
  deals.revealing = Boolean(value);
  return value;
}

/** What this browser saw of `commitment` before its deal (see fairness.checkRecord). */
export function seenBefore(deals, commitment) {
  if (!deals || !commitment) return "absent";
  if (deals.unannounced.has(commitment)) return "unannounced";
  return deals.announced.has(commitment) ? "seen" : "absent";
}

/** Whether the record's entropy holds the value this tab committed to for its deck. */
export function mineIn(deals, record) {
  const value = deals && deals.secrets[record.deal.commitment];
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
