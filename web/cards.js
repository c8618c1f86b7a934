// Cards as the protocol writes them ("AS", "TH", "X1") and how they look.
//
// The client never decides which card may be played (the server's `legal` list does);
// this module only knows how to name, sort and draw a card. Sorting follows the game's
// rule book (games.js): nothing here knows a game by name.

import { t } from "./i18n.js";
import { twoJokers } from "./cardface.js";

// The faces are drawn in cardface.js; they are re-exported here, where every panel
// already takes its card helpers from.
export { cardFace, useDeck } from "./cardface.js";

export const SUITS = ["S", "H", "D", "C"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED = new Set(["H", "D"]);

export function isJoker(card) {
  return card.startsWith("X");
}

export function suitOf(card) {
  return isJoker(card) ? null : card[1];
}

export function rankOf(card) {
  return isJoker(card) ? null : card[0];
}

export function isRed(card) {
  return !isJoker(card) && RED.has(card[1]);
}

/** Short visible label of a rank: "10" rather than the protocol's "T". */
export function rankLabel(rank) {
  return rank === "T" ? "10" : rank;
}

/** The accessible, translated name of a card: "Ace of spades", "Joker" (or, in a game
 * with two, "Joker 1" and "Joker 2", as the points of the hand name them). */
export function cardName(card) {
  if (isJoker(card)) return jokerName(card);
  return t("card.name", { rank: t(`rank.${card[0]}`), suit: t(`suit_of.${card[1]}`) });
}

function jokerName(card) {
  if (card === "X2") return t("card.joker2");
  return twoJokers() ? t("card.joker1") : t("card.joker");
}

/** Short text such as "A♠" or "🃏" for lists (bids, score sheet, call picker). */
export function cardShort(card) {
  if (isJoker(card)) return twoJokers() || card === "X2" ? jokerName(card) : t("card.joker_short");
  return `${rankLabel(card[0])}${SUIT_SYMBOL[card[1]]}`;
}

/**
 * Sort a hand for the eye: trumps together and first, in the game's trump order (the
 * rule book's `trump_order`, bauers and jokers included), then the other suits in
 * their `plain_order`, alternating colours so that neighbouring suits are easy to
 * tell apart. Before trump is known: spades, hearts, clubs, diamonds, jokers last.
 */
export function sortHand(cards, trump, book) {
  const trumps = (trump && book.trump_order[trump]) || [];
  const suits = trump ? alternate(trump) : ["S", "H", "C", "D"];
  const plain = book.plain_order;
  const key = (card) => {
    const high = trumps.indexOf(card);
    if (high >= 0) return [0, high, card];
    if (isJoker(card)) return [suits.length + 1, 0, card];
    const rank = plain.indexOf(card[0]);
    return [1 + suits.indexOf(card[1]), rank < 0 ? plain.length : rank, card];
  };
  return [...cards].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka[0] !== kb[0]) return ka[0] - kb[0];
    if (ka[1] !== kb[1]) return ka[1] - kb[1];
    return ka[2] < kb[2] ? -1 : 1;
  });
}

/** Where a rank stands in the game's `plain_order` (0 for the highest). */
export function plainRank(book, card) {
  const i = book.plain_order.indexOf(card[0]);
  return i < 0 ? book.plain_order.length : i;
}

function alternate(trump) {
  const rest = SUITS.filter((s) => s !== trump);
  const red = rest.filter((s) => RED.has(s));
  const black = rest.filter((s) => !RED.has(s));
  const firstIsRed = !RED.has(trump);
  const out = [];
  while (red.length || black.length) {
    const take = (out.length % 2 === 0) === firstIsRed ? red : black;
    const other = take === red ? black : red;
    out.push((take.length ? take : other).shift());
  }
  return out;
}
