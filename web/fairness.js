// Provably fair deals, checked in the browser (docs/fairness.md, "Exactly"): the deck
// that follows from a hand record's server seed and entropy by the specified shuffle,
// and the check of a record against it. Pure: no page, no network (deals.js fetches the
// records and keeps the outcomes).
//
//   S = sha256(server_seed ":" e0 ":" … ":" e(n-1))       (raw bytes; a seat with no
//                                                            value adds the empty string)
//   numbers: sha256(S + i as 8 bytes big-endian), i = 0, 1, …: four 64-bit big-endian
//            integers per digest, in order (BigInt: a Number holds only 53 bits)
//   shuffle: the rule book's deck in canonical order; for i from len-1 down to 1, the
//            next number r, again while r >= 2**64 - 2**64 % (i+1); swap i and r % (i+1)
//   deal:    seat (dealer + 1 + k) % seats gets deck[6k .. 6k+6]; the rest is the stock
//   commits: each seat committed to sha256_hex(v) before anyone revealed; ek is the
//            revealed v (which must hash to the commit), the commit itself when the
//            seat withheld v, or nothing when it did not commit

import { ascii, sha256, sha256Hex } from "./sha256.js";

const SPAN = 1n << 64n;
const HAND = 6;

/** `S`: the server seed and every seat's entropy, joined by ":" and hashed. */
export function mixedSeed(serverSeed, entropy) {
  return sha256(ascii([serverSeed, ...entropy.map((e) => e || "")].join(":")));
}

/** The stream of 64-bit integers (BigInt) drawn from `seed` (32 bytes). */
export function* numbers(seed) {
  const message = new Uint8Array(seed.length + 8);
  message.set(seed);
  const counter = new DataView(message.buffer, seed.length, 8);
  for (let i = 0n; ; i += 1n) {
    counter.setBigUint64(0, i);
    const digest = new DataView(sha256(message).buffer);
    for (let k = 0; k < 32; k += 8) yield digest.getBigUint64(k);
  }
}

/** `cards` shuffled by the specified Fisher-Yates from the stream of `seed`. */
export function shuffled(cards, seed) {
  const deck = [...cards];
  const stream = numbers(seed);
  for (let i = deck.length - 1; i > 0; i -= 1) {
    const bound = BigInt(i + 1);
    const limit = SPAN - (SPAN % bound);
    let r = stream.next().value;
    while (r >= limit) r = stream.next().value;
    const j = Number(r % bound);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** The deck of a hand: the canonical deck (the rule book's `deck`) shuffled. */
export function fairDeck(canonical, serverSeed, entropy) {
  return shuffled(canonical, mixedSeed(serverSeed, entropy));
}

/** Six cards to each seat from the seat left of the dealer on; the rest is the stock. */
export function dealFrom(deck, dealer, seats) {
  const hands = Array.from({ length: seats }, () => []);
  for (let k = 0; k < seats; k += 1) hands[(dealer + 1 + k) % seats] = deck.slice(HAND * k, HAND * (k + 1));
  return { hands, stock: deck.slice(HAND * seats) };
}

const same = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Every seat's entropy against its commit: a revealed value hashes to it, a withheld
 * one is the commit itself, a seat without a commit has no entropy. Adds the problems
 * (`fail`); returns how many values were revealed and checked, and the withheld seats.
 * A record from before commit-reveal (`commits` absent or null: its values were sent
 * openly) has nothing to check here.
 */
function checkCommits(record, entropy, fail) {
  const deal = record.deal;
  const seats = (record.hands || []).length;
  const withheld = Array.isArray(deal.withheld) ? deal.withheld : [];
  const outcome = { commits: deal.commits !== undefined && deal.commits !== null, revealed: 0, withheld };
  if (!outcome.commits) return outcome;
  const commits = deal.commits;
  if (!Array.isArray(commits) || commits.length !== seats || !commits.every((h) => h === null || HEX64.test(h))) {
    fail("commits");
    return outcome;
  }
  if (!withheld.every((seat) => Number.isInteger(seat) && commits[seat])) fail("commits");
  commits.forEach((commit, seat) => {
    const value = entropy[seat];
    const n = seat + 1;
    if (commit === null) {
      if (value !== null && value !== undefined) fail("uncommitted", { n });
    } else if (withheld.includes(seat)) {
      if (value !== commit) fail("withheld", { n });
    } else if (typeof value !== "string" || sha256Hex(value) !== commit) {
      fail("reveal", { n });
    } else {
      outcome.revealed += 1;
    }
  });
  return outcome;
}

/**
 * Check one hand record. `canonical` is the game's deck in canonical order (its rule
 * book's `deck`); `seen` tells what this browser saw of the record's commitment before
 * the deal: "seen" (shown as `next_deal` before it), "unannounced" (this browser watched
 * the deal happen without having been shown it: a failure), or anything else (this
 * browser was not there). The outcome:
 *
 *   {state: "verified" | "failed" | "unchecked", problems: [{key, params}], seen,
 *    commits: bool, revealed: int, withheld: [{seat, name}]}
 *
 * `problems` are message keys (`fair.problem.*`); "unchecked" is a hand dealt by a
 * server from before provably fair deals (no commitment, no seed). `commits`: the
 * players committed to their values before the reveal (false: a record from before
 * commit-reveal); `revealed`: how many revealed values were checked against their
 * commits; `withheld`: the seats that committed and never revealed (their commit went
 * into the deck instead).
 */
export function checkRecord(record, canonical, seen) {
  const problems = [];
  const deal = record.deal || {};
  const fail = (key, params = {}) => problems.push({ key: `fair.problem.${key}`, params });
  if (!deal.commitment && !deal.server_seed) {
    const problems = [{ key: "fair.problem.legacy", params: {} }];
    return { state: "unchecked", problems, seen, commits: false, revealed: 0, withheld: [] };
  }
  const seedOk = typeof deal.server_seed === "string" && /^[0-9a-f]{64}$/.test(deal.server_seed);
  if (!seedOk) fail("no_seed");
  else if (sha256Hex(deal.server_seed) !== deal.commitment) fail("commitment");
  if (seen === "unannounced") fail("unannounced");
  const entropy = Array.isArray(deal.entropy) ? deal.entropy : [];
  const seats = (record.hands || []).length;
  const entropyOk =
    entropy.length === seats && entropy.every((e) => e === null || (typeof e === "string" && /^[0-9a-f]{16,64}$/.test(e)));
  if (!entropyOk) fail("entropy");
  const reveal = checkCommits(record, entropy, fail);
  const names = new Map((record.seats || []).map((s) => [s.seat, s.name]));
  const withheld = reveal.withheld.map((seat) => ({ seat, name: names.get(seat) || null }));
  if (seedOk && entropyOk) {
    const deck = fairDeck(canonical, deal.server_seed, entropy);
    if (!same(deck, deal.deck)) fail("deck");
    // The hands and the stock come from the deck the seed makes, not only from the
    // deck the record says.
    const dealt = dealFrom(deck, record.dealer, seats);
    dealt.hands.forEach((cards, seat) => {
      if (!same(cards, record.hands[seat])) fail("hand", { n: seat + 1 });
    });
    if (record.stock !== undefined && !same(dealt.stock, record.stock)) fail("stock");
  }
  const state = problems.length ? "failed" : "verified";
  return { state, problems, seen, commits: reveal.commits, revealed: reveal.revealed, withheld };
}
