// The card faces, drawn by the project as inline SVG: corner indices (the rank and a
// small suit) and a large centre pip, the suits as shapes of our own (spade, heart,
// diamond, club paths, not font glyphs, so they look the same on every device and stay
// sharp at every size). The shape tells the suit, never the colour alone; the colours
// come from CSS variables (polish.css), so the four-colour deck (settings.js) is one
// class on <html>. The two jokers of a two-joker game look different: "1" with one
// star on violet, "2" with two stars on amber.
//
// The face is decoration (aria-hidden): the element holding it carries the card's
// accessible name (cards.js, cardName).

import { seal } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

/** The suits drawn in a 100×100 box. */
const SUIT_PATH = {
  S: "M50 4C62 24 96 40 96 64C96 80 80 90 66 84C60 82 56 78 54 74C56 84 60 92 68 98L32 98C40 92 44 84 46 74C44 78 40 82 34 84C20 90 4 80 4 64C4 40 38 24 50 4Z",
  H: "M50 96C40 82 4 62 4 34C4 16 18 6 30 6C40 6 47 12 50 20C53 12 60 6 70 6C82 6 96 16 96 34C96 62 60 82 50 96Z",
  D: "M50 2L88 50L50 98L12 50Z",
  C: "M50 4A22 22 0 1 1 49.9 4ZM26 38A22 22 0 1 1 25.9 38ZM74 38A22 22 0 1 1 73.9 38ZM46 58C46 78 40 90 30 98L70 98C60 90 54 78 54 58Z",
};
const STAR =
  "M50 2L61 37L98 37L68 59L79 95L50 73L21 95L32 59L2 37L39 37Z";
const COURTS = new Set(["J", "Q", "K"]);

let jokers = 1;

/** The room's game (its rule book): how many jokers its deck has, for the faces and names. */
export function useDeck(book) {
  jokers = book && Array.isArray(book.jokers) ? Math.max(1, book.jokers.length) : 1;
}

/** Whether the game being drawn has two jokers (then they are "Joker 1" and "Joker 2"). */
export function twoJokers() {
  return jokers > 1;
}

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A shape of the 100×100 box placed at (x, y) with size `size`. */
function shape(d, x, y, size, cls) {
  return el("path", { d, class: cls, transform: `translate(${x} ${y}) scale(${size / 100})` });
}

function corner(index, pip) {
  const g = el("g", { class: "corner" });
  const attrs = { x: 8.5, y: 16, "text-anchor": "middle", class: "index ink" };
  // "10" is squeezed to the width of one wide letter, so it stays clear of the pip.
  if (index.length > 1) Object.assign(attrs, { textLength: 13, lengthAdjust: "spacingAndGlyphs" });
  g.appendChild(el("text", attrs, index));
  if (pip) g.appendChild(shape(pip, 3.5, 19.5, 10, "ink"));
  return g;
}

function bothCorners(svg, index, pip) {
  svg.appendChild(corner(index, pip));
  const turned = corner(index, pip);
  turned.setAttribute("transform", "rotate(180 30 42)");
  svg.appendChild(turned);
}

// Each face is drawn once and copied after that: a hand, a trick and a review show the
// same few faces again at every state, and building one is two dozen elements.
const drawn = new Map();

/**
 * The face of `card` ("AS", "TH", "X1") as an <svg class="face">: a copy of the one
 * drawn for it, sealed (dom.js), so that a panel patched again leaves it as it is.
 */
export function cardFace(card) {
  const key = `${card}/${jokers}`;
  let face = drawn.get(key);
  if (!face) {
    face = drawFace(card);
    drawn.set(key, face);
  }
  return seal(face.cloneNode(true), key);
}

function drawFace(card) {
  const svg = el("svg", { viewBox: "0 0 60 84", class: "face", "aria-hidden": "true", focusable: "false" });
  svg.appendChild(el("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, class: "face-bg" }));
  if (card.startsWith("X")) return jokerFace(svg, card);
  const rank = card[0];
  const suit = card[1];
  svg.classList.add(`suit-${suit}`);
  svg.dataset.suit = suit;
  const pip = SUIT_PATH[suit];
  bothCorners(svg, rank === "T" ? "10" : rank, pip);
  if (COURTS.has(rank)) {
    svg.appendChild(el("rect", { x: 16, y: 14, width: 28, height: 56, rx: 3, class: "court" }));
    svg.appendChild(el("text", { x: 30, y: 44, "text-anchor": "middle", class: "court-rank ink" }, rank));
    svg.appendChild(shape(pip, 22, 48, 16, "ink pip-shape"));
  } else {
    const size = rank === "A" ? 34 : 28;
    svg.appendChild(shape(pip, 30 - size / 2, 42 - size / 2, size, "ink pip-shape"));
  }
  return svg;
}

function jokerFace(svg, card) {
  const second = card === "X2";
  svg.classList.add("joker-face", second ? "joker-2" : "joker-1");
  svg.dataset.joker = card;
  const index = twoJokers() || second ? card.slice(1) : "★";
  bothCorners(svg, index, twoJokers() || second ? STAR : null);
  if (second) {
    svg.appendChild(shape(STAR, 14, 20, 24, "ink pip-shape"));
    svg.appendChild(shape(STAR, 22, 40, 24, "ink pip-shape"));
  } else {
    svg.appendChild(shape(STAR, 14, 26, 32, "ink pip-shape"));
  }
  return svg;
}
