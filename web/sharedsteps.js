// The shared review's steps (docs/protocol.md, "Review together") and the review's
// own steps (steps.js) matched up. Pure: no page.
//
// The server counts a review's step in the record's actions: step i is the moment after
// the first i actions (0: the hands as dealt). The review shows fewer, bigger steps: the
// deal, the bidding, the discards, each trick whole, the result. Each of these starts at
// one action count (the bidding after its first bid, a trick once its lead is played,
// the result after the last action), which the leader sends; a follower shows the last
// of the review's steps that has begun by the leader's action count.

/** The action count at which each of `steps` (stepsOf(record).steps) begins. */
export function startsOf(record, steps) {
  const acts = record.actions || [];
  const plays = [];
  acts.forEach((a, i) => {
    if (a.action.type === "play") plays.push(i);
  });
  const firstDiscard = acts.findIndex((a) => a.action.type === "discard");
  const beforePlay = plays.length ? plays[0] : acts.length;
  let played = 0;
  let previous = 0;
  return steps.map((s) => {
    let at = acts.length; // the result: after the last action
    if (s.kind === "deal") at = 0;
    else if (s.kind === "bidding") at = Math.min(1, acts.length);
    else if (s.kind === "exchange") at = firstDiscard >= 0 ? firstDiscard + 1 : beforePlay;
    else if (s.kind === "trick") {
      at = played < plays.length ? plays[played] + 1 : acts.length;
      played += s.trick.cards.length;
    }
    previous = Math.max(previous, Math.min(at, acts.length));
    return previous;
  });
}

/** The review's step to show for the server's action count `step`. */
export function reviewStepOf(starts, step) {
  let at = 0;
  starts.forEach((start, i) => {
    if (start <= step) at = i;
  });
  return at;
}
