// The coach's words: an option, a value, a step of the review, as the page shows them.
// Pure (no page, no network); coach.js draws with them.

import { t } from "./i18n.js";
import { SUIT_SYMBOL, cardShort } from "./cards.js";

export const MARKS = ["best", "good", "inaccuracy", "mistake", "blunder"];

/** An action of a decision ("10♦", "Bid 4", "Pass", "Trump ♥", "Discard 7♣ 9♦"). */
export function optionText(action) {
  switch (action.type) {
    case "play":
      return cardShort(action.card);
    case "bid":
      return t("coach.bid", { n: action.amount });
    case "pass":
      return t("coach.pass");
    case "trump":
      return t("coach.trump", { suit: `${SUIT_SYMBOL[action.suit]} ${t(`suit.${action.suit}`)}` });
    case "discard":
      return action.cards && action.cards.length ? t("coach.discard", { cards: action.cards.map(cardShort).join(" ") }) : t("coach.keep");
    case "call":
      return action.card ? t("coach.call", { card: cardShort(action.card) }) : t("coach.alone");
    default:
      return action.type;
  }
}

/** A value in points, signed, as the coach says it: "+0.9", "−1.25", "0". */
export function points(value) {
  const x = Math.round(value * 100) / 100;
  if (x === 0) return "0";
  const text = Math.abs(x).toLocaleString(undefined, { maximumFractionDigits: 2 });
  return x > 0 ? `+${text}` : `−${text}`;
}

/** Two actions are the same option (a discard's cards in any order). */
export function sameAction(a, b) {
  if (a.type !== b.type) return false;
  if (a.type === "discard") return [...(a.cards || [])].sort().join() === [...(b.cards || [])].sort().join();
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The review's step (steps.js: deal, bidding, exchange?, the tricks, result) on which
 * the record's action `i` was decided: a bid, a pass, the trump on the bidding; a
 * discard and the call on the exchange (the bidding when there is none); a card on its
 * trick.
 */
export function stepOfAction(record, steps, i) {
  const action = record.actions[i].action;
  const at = (kind) => steps.findIndex((s) => s.kind === kind);
  if (action.type === "play") {
    const seats = record.hands.length;
    const before = record.actions.slice(0, i).filter((a) => a.action.type === "play").length;
    const trick = Math.floor(before / seats);
    const found = steps.findIndex((s) => s.kind === "trick" && s.index === trick);
    return found >= 0 ? found : at("result");
  }
  if (action.type === "discard" || action.type === "call") {
    const exchange = at("exchange");
    if (exchange >= 0) return exchange;
  }
  return Math.max(0, at("bidding"));
}

/** The name of step `s` for the strip of swings ("Bidding", "Trick 3"). */
export function stepName(step) {
  if (step.kind === "trick") return t("coach.trick", { n: step.index + 1 });
  return t(`review.step.${step.kind}`);
}
