// Motion that helps people follow the table: the cards of a new deal arrive in the
// hand one after another, a played card slides from its player (from the hand for
// one's own card, from the seat for the others) to its place in the trick, the
// winning card of a trick is lit with a short pulse, and when the won trick leaves the
// table its cards are gathered towards the winner's seat.
//
// The motion is decoration and never holds anything back: render.js draws every state
// at once, in its final place, and only then asks this module to animate what changed
// (the Web Animations API, from where a card was to where it already is). A new state
// in the middle of a motion finishes it first. With `prefers-reduced-motion: reduce`
// nothing is animated at all.
//
// Usage (render.js): `const before = beforeRedraw(); …redraw…; afterRedraw(before);`

import { $ } from "./dom.js";

const DEAL_MS = 260;
const DEAL_STAGGER_MS = 35;
const SLIDE_MS = 280;
const PULSE_MS = 520;
const GATHER_MS = 420;
const CENTRED = "translate(-50%, -50%)";

let running = []; // the animations this module started and that may still be running
let ghosts = []; // the copies of a gathered trick's cards, removed when it ends

/** Whether this browser asks for no motion. */
export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Finish every motion at once (a new state has come). */
function finishAll() {
  for (const a of running) {
    try {
      a.finish();
    } catch {
      /* an animation of an element already gone cannot finish: nothing to do */
    }
  }
  running = [];
  for (const g of ghosts) g.remove();
  ghosts = [];
}

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

/** Where the cards were before a redraw: what afterRedraw() animates from. */
export function beforeRedraw() {
  finishAll();
  const played = new Map();
  for (const el of document.querySelectorAll("#table [data-played]")) {
    played.set(`${el.dataset.seat}:${el.dataset.played}`, {
      el,
      rect: el.getBoundingClientRect(),
      won: el.classList.contains("won"),
    });
  }
  const hand = new Map();
  for (const el of document.querySelectorAll("#hand button[data-card]")) {
    hand.set(el.dataset.card, el.getBoundingClientRect());
  }
  const table = $("table");
  return { played, hand, drawn: Boolean(table && table.childElementCount), tableRect: table && table.getBoundingClientRect() };
}

function animate(el, keyframes, options) {
  const a = el.animate(keyframes, { fill: "backwards", ...options });
  running.push(a);
  a.addEventListener("finish", () => {
    running = running.filter((x) => x !== a);
  });
  return a;
}

/** Animate what changed since `before` (a beforeRedraw() result); the page is already drawn. */
export function afterRedraw(before) {
  const table = $("table");
  if (!table || !before.drawn || reducedMotion()) return;
  dealHand(before);
  const wasWon = [...before.played.values()].some((p) => p.won);
  for (const el of table.querySelectorAll("[data-played]")) {
    const key = `${el.dataset.seat}:${el.dataset.played}`;
    const old = before.played.get(key);
    if (!old) slideIn(el, before);
    if (el.classList.contains("won") && !(old && old.won)) pulse(el, old ? 0 : SLIDE_MS);
  }
  if (wasWon) gather(table, before);
}

/** The cards of a new deal (or a kitty picked up) arrive in the hand one by one. */
function dealHand(before) {
  const now = [...document.querySelectorAll("#hand button[data-card]")];
  // Only a hand that grew was dealt to; a card played or discarded makes it smaller.
  if (now.length <= before.hand.size) return;
  const fresh = now.filter((el) => !before.hand.has(el.dataset.card));
  fresh.forEach((el, i) => {
    animate(
      el,
      [
        { transform: "translateY(-48px) scale(0.6)", opacity: 0 },
        { opacity: 1, offset: 0.6 },
      ],
      { duration: DEAL_MS, delay: i * DEAL_STAGGER_MS, easing: "ease-out", id: "motion-deal" },
    );
  });
}

/** A card new on the table slides in from where it came from. */
function slideIn(el, before) {
  const seat = el.dataset.seat;
  const own = $("table").querySelector(".seat.me");
  const fromHand = own && own.dataset.seat === seat ? before.hand.get(el.dataset.played) : null;
  const chip = $("table").querySelector(`.seat[data-seat="${seat}"]`);
  const origin = fromHand || (chip && chip.getBoundingClientRect());
  if (!origin) return;
  const from = centre(origin);
  const to = centre(el.getBoundingClientRect());
  const dx = Math.round(from.x - to.x);
  const dy = Math.round(from.y - to.y);
  animate(
    el,
    [{ transform: `${CENTRED} translate(${dx}px, ${dy}px) scale(0.85)` }, { transform: CENTRED }],
    { duration: SLIDE_MS, easing: "cubic-bezier(0.2, 0.7, 0.3, 1)", id: "motion-play" },
  );
}

/** The winning card of a trick pulses once. */
function pulse(el, delay) {
  animate(
    el,
    [
      { transform: CENTRED },
      { transform: `${CENTRED} scale(1.18)`, offset: 0.4 },
      { transform: CENTRED },
    ],
    { duration: PULSE_MS, delay, easing: "ease-in-out", id: "motion-win" },
  );
}

/** The cards of the trick that just left the table fly to its winner and fade. */
function gather(table, before) {
  const winnerSeat = [...before.played.values()].find((p) => p.won).el.dataset.seat;
  const chip = table.querySelector(`.seat[data-seat="${winnerSeat}"]`);
  if (!chip) return;
  const target = centre(chip.getBoundingClientRect());
  const box = table.getBoundingClientRect();
  for (const old of before.played.values()) {
    if (table.querySelector(`[data-played="${old.el.dataset.played}"][data-seat="${old.el.dataset.seat}"]`)) continue;
    const ghost = document.createElement("div");
    ghost.className = "gather-ghost";
    ghost.setAttribute("aria-hidden", "true");
    ghost.append(old.el.querySelector("svg").cloneNode(true));
    ghost.style.left = `${old.rect.left - box.left}px`;
    ghost.style.top = `${old.rect.top - box.top}px`;
    ghost.style.width = `${old.rect.width}px`;
    table.appendChild(ghost);
    ghosts.push(ghost);
    const from = centre(old.rect);
    const dx = Math.round(target.x - from.x);
    const dy = Math.round(target.y - from.y);
    const a = animate(
      ghost,
      [
        { transform: "none", opacity: 1 },
        { transform: `translate(${dx}px, ${dy}px) scale(0.45)`, opacity: 0 },
      ],
      { duration: GATHER_MS, easing: "ease-in", fill: "forwards", id: "motion-gather" },
    );
    a.addEventListener("finish", () => {
      ghost.remove();
      ghosts = ghosts.filter((g) => g !== ghost);
    });
  }
}
