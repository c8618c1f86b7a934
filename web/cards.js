// Cards as the protocol writes them ("AS", "TH", "X1") and how they look.
//
// The client never decides which card may be played (the server's `legal` list does);
// this module only knows how to name, sort and draw a card.

import { t } from "./i18n.js";

export const SUITS = ["S", "H", "D", "C"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];
const RED = new Set(["H", "D"]);
// The jack of the same colour is the left bauer in the Schmier games; sorting it
// with the trumps keeps "trumps together" without knowing the rules any further.
const SAME_COLOUR = { S: "C", C: "S", H: "D", D: "H" };

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

/** The accessible, translated name of a card: "Ace of spades", "Joker". */
export function cardName(card) {
  if (isJoker(card)) return t("card.joker");
  return t("card.name", { rank: t(`rank.${card[0]}`), suit: t(`suit_of.${card[1]}`) });
}

/** Short text such as "A♠" or "🃏" for lists (bids, score sheet, call picker). */
export function cardShort(card) {
  if (isJoker(card)) return t("card.joker_short");
  return `${rankLabel(card[0])}${SUIT_SYMBOL[card[1]]}`;
}

/**
 * Sort a hand by suit, trumps together and first (the left bauer and the jokers
 * join them), alternating colours so that neighbouring suits are easy to tell apart.
 */
export function sortHand(cards, trump, variant) {
  const order = trump ? [trump, ...alternate(trump)] : ["S", "H", "C", "D"];
  const leftBauer = trump && variant !== "wisconsin4" ? `J${SAME_COLOUR[trump]}` : null;
  const key = (card) => {
    if (isJoker(card)) return [trump ? 0 : 9, 0, card];
    if (card === leftBauer) return [0, 9.5, card];
    const group = order.indexOf(card[1]) + (trump && card[1] !== trump ? 1 : 0);
    let rank = RANKS.indexOf(card[0]);
    if (trump && card[1] === trump && card[0] === "J") rank = 9.7;
    return [group, rank, card];
  };
  return [...cards].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka[0] !== kb[0]) return ka[0] - kb[0];
    if (ka[1] !== kb[1]) return kb[1] - ka[1];
    return ka[2] < kb[2] ? -1 : 1;
  });
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

const SVG = "http://www.w3.org/2000/svg";

function svgEl(name, attrs, text) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/**
 * Draw the face of a card as inline SVG: corner indices and a large centre pip,
 * so that the suit symbol, never only the colour, tells the suits apart.
 */
export function cardFace(card) {
  const svg = svgEl("svg", {
    viewBox: "0 0 60 84",
    class: "face",
    "aria-hidden": "true",
    focusable: "false",
  });
  svg.appendChild(svgEl("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, class: "face-bg" }));
  if (isJoker(card)) {
    svg.classList.add("joker");
    svg.appendChild(svgEl("text", { x: 30, y: 50, "text-anchor": "middle", class: "pip" }, "★"));
    svg.appendChild(svgEl("text", { x: 6, y: 18, class: "index joker-index" }, "JO"));
    svg.appendChild(
      svgEl("text", { x: 54, y: 78, "text-anchor": "end", class: "index joker-index" }, card[1]),
    );
    return svg;
  }
  svg.classList.add(isRed(card) ? "red" : "black");
  const rank = rankLabel(card[0]);
  const sym = SUIT_SYMBOL[card[1]];
  svg.appendChild(svgEl("text", { x: 5, y: 19, class: "index" }, rank));
  svg.appendChild(svgEl("text", { x: 5, y: 33, class: "index-suit" }, sym));
  if (["J", "Q", "K"].includes(card[0])) {
    svg.appendChild(svgEl("rect", { x: 17, y: 24, width: 36, height: 52, rx: 3, class: "court" }));
  }
  svg.appendChild(svgEl("text", { x: 35, y: 62, "text-anchor": "middle", class: "pip" }, sym));
  return svg;
}
