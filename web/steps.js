// A hand record (GET /api/rooms/{code}/hands/{n}) as the steps of its review: the
// deal, the bidding, the exchange, each trick, the result. Pure: no page.
//
// The client knows no rules, and needs none here: every card in a hand is played, so
// the cards a seat plays are its hand once the discards are done; what it drew (from
// the stock, or the kitty) is what it played and was not dealt or kept. Who took each
// trick is in the record's `tricks` (a record from a server without them: the seat
// that leads the next trick took the one before; the last one's taker is unknown).

const PLAYS = new Set(["bid", "pass"]);

function without(cards, gone) {
  const out = new Set(gone);
  return cards.filter((c) => !out.has(c));
}

/** The hand's tricks: `[{cards: [{seat, card}], winner}]` (winner null if not known). */
export function tricksOf(record) {
  if (Array.isArray(record.tricks) && record.tricks.length) return record.tricks;
  const seats = record.hands.length;
  const plays = record.actions.filter((a) => a.action.type === "play").map((a) => ({ seat: a.seat, card: a.action.card }));
  const tricks = [];
  for (let i = 0; i < plays.length; i += seats) tricks.push({ cards: plays.slice(i, i + seats), winner: null });
  tricks.forEach((trick, k) => {
    if (tricks[k + 1]) trick.winner = tricks[k + 1].cards[0].seat;
  });
  return tricks;
}

/**
 * The facts of the hand, by seat: `dealt`, `discarded`, `drew`, `played` (its hand once
 * play began), and `bids`, `trump`, `called`, `tricks`.
 */
export function handFacts(record) {
  const seats = record.hands.length;
  const bySeat = (fn) => Array.from({ length: seats }, (_, s) => fn(s));
  const acts = record.actions;
  const discarded = bySeat((s) =>
    acts.filter((a) => a.seat === s && a.action.type === "discard").flatMap((a) => a.action.cards || []),
  );
  const played = bySeat((s) => acts.filter((a) => a.seat === s && a.action.type === "play").map((a) => a.action.card));
  const dealt = record.hands.map((h) => [...h]);
  const kept = bySeat((s) => without(dealt[s], discarded[s]));
  const drew = bySeat((s) => without(played[s], kept[s]));
  const trumpAction = acts.find((a) => a.action.type === "trump");
  const call = acts.find((a) => a.action.type === "call");
  return {
    seats,
    dealt,
    discarded,
    drew,
    played,
    bids: acts.filter((a) => PLAYS.has(a.action.type)).map((a) => ({ seat: a.seat, amount: a.action.amount ?? null })),
    trump: trumpAction ? trumpAction.action.suit : null,
    called: call ? { card: call.action.card ?? null } : null,
    tricks: tricksOf(record),
  };
}

/**
 * The review's steps, in order. Each: `{kind, hands}` (the cards each seat holds then)
 * plus, by kind, `trick` and `index` ("trick"), nothing more ("deal", "bidding",
 * "exchange", "result"). The exchange is left out when nobody discarded or drew.
 */
export function stepsOf(record) {
  const f = handFacts(record);
  const steps = [
    { kind: "deal", hands: f.dealt },
    { kind: "bidding", hands: f.dealt },
  ];
  if (f.discarded.some((d) => d.length) || f.drew.some((d) => d.length)) {
    steps.push({ kind: "exchange", hands: f.played });
  }
  let held = f.played.map((cards) => [...cards]);
  f.tricks.forEach((trick, index) => {
    held = held.map((cards, s) => without(cards, trick.cards.filter((p) => p.seat === s).map((p) => p.card)));
    steps.push({ kind: "trick", index, trick, hands: held });
  });
  steps.push({ kind: "result", hands: held });
  return { facts: f, steps };
}
