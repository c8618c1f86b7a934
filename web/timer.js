// The turn timer (room rule `turn_seconds`, docs/protocol.md "Turn timer"): a ring and
// the seconds left on the seat whose turn it is, the same count by the action panel when
// the turn is this player's (with a tick each second of the last five, when sounds are
// on), and the room's timer for the scoreboard. (What the bot played when the time ran
// out is said by timeout.js.)
//
// Each state frame says how many seconds were left when the server made it
// (`turn_ends_in`, null while no person's turn is timed). The countdown runs from the
// frame's arrival on this browser's monotonic clock (`performance.now`), so neither
// machine's time of day matters; it stops at 0, and the bot's move (a new frame) ends it.
// While the host has paused the game the count stands still at what the frame says.
// A room without a timer may still have the server's idle limit (`idle_ends_in`,
// docs/protocol.md "Idle turns"): the same ring then shows in its last 30 seconds only.

import { num, t } from "./i18n.js";
import { $, fill, h } from "./dom.js";
import { play } from "./sound.js";
import { icon } from "./icons.js";

const TICK_MS = 250;
const LOW = 5; // the last seconds: the count turns red, and ticks
const SVG = "http://www.w3.org/2000/svg";

let endsAt = null; // performance.now() at which the timed turn ends, or null
let frozen = null; // the seconds left while the game is paused, or null
let total = 0; // the rule's seconds: what a full ring stands for
let mine = false; // whether the timed turn is this player's
let ticked = null; // the last whole second a tick was played for
let idle = false; // the countdown is the idle limit's, not the room's timer
const IDLE_SHOWN = 30; // seconds before the idle limit plays a turn that the table sees
let ticker = null;
let seatSized = () => {}; // what fits the table again when a seat's ring shows or goes

/** Tell the timer what to call when a ring shows or goes on a seat (table.js placeTrick). */
export function onSeatSize(fn) {
  seatSized = fn;
}

/** A state frame arrived: note when its timed turn ends on this browser's clock. */
export function noteTurnTimer(view) {
  const timed = view && view.turn_ends_in;
  const idled = view && view.idle_ends_in;
  idle = typeof timed !== "number" && typeof idled === "number";
  const left = idle ? idled : timed;
  const counting = typeof left === "number";
  frozen = counting && view.paused ? Math.max(0, left) : null;
  endsAt = counting && !view.paused ? performance.now() + Math.max(0, left) * 1000 : null;
  total = idle ? IDLE_SHOWN : (view && view.rules && view.rules.turn_seconds) || 0;
  const wasMine = mine;
  mine = counting && view.you !== null && view.you !== undefined && (view.turn || []).includes(view.you);
  if (!mine || !wasMine) ticked = null;
}

function secondsLeft() {
  if (frozen !== null) return frozen;
  return endsAt === null ? null : Math.max(0, (endsAt - performance.now()) / 1000);
}

/**
 * Put the countdown on the seats of the table (`#table .seat[data-seat]`) whose turn is
 * timed, and by the action panel (`#turn-clock`) when the turn is this player's, after
 * the page was drawn from `view`; nothing while no turn is timed.
 */
export function renderTurnTimer(view) {
  const table = $("table");
  if (!table || !view) return;
  for (const old of table.querySelectorAll(".turn-timer")) old.remove();
  const clock = $("turn-clock");
  if (secondsLeft() === null) {
    if (clock) {
      fill(clock);
      clock.hidden = true;
    }
    stop();
    return;
  }
  for (const seat of view.turn || []) {
    const info = view.seats.find((s) => s.seat === seat);
    const chip = table.querySelector(`.seat[data-seat="${seat}"]`);
    // Inside the seat's top line, so no edge of the table can cut it off.
    if (chip && info && info.kind === "human") (chip.querySelector(".seat-top") || chip).append(countdown());
  }
  if (clock) {
    clock.hidden = !mine;
    if (mine) fill(clock, countdown("panel"), h("span", { class: "turn-clock-text" }));
    else fill(clock);
  }
  update();
  if (ticker === null && frozen === null) ticker = setInterval(update, TICK_MS);
}

/**
 * The room's timer, for the scoreboard beside the target ("⏱ 30 s"), or null when the
 * room has none. Drawn with the scoreboard (table.js), so that patching the board at
 * every state finds it where it was.
 */
export function timerRule(view) {
  const seconds = view.rules.turn_seconds || 0;
  if (!seconds) return null;
  const text = t("timer.seconds", { n: seconds });
  const label = `${t("rule.turn_seconds")}: ${text}`;
  return h("span", { class: "timer-rule", title: label, "aria-label": label }, icon("clock"), " ", text);
}

function countdown(where = "seat") {
  const ring = document.createElementNS(SVG, "svg");
  ring.setAttribute("viewBox", "0 0 36 36");
  ring.setAttribute("aria-hidden", "true");
  ring.classList.add("turn-timer-ring");
  for (const part of ["track", "left"]) {
    const circle = document.createElementNS(SVG, "circle");
    for (const [k, v] of Object.entries({ cx: 18, cy: 18, r: 15.5, pathLength: 100 })) circle.setAttribute(k, String(v));
    circle.classList.add(part);
    ring.append(circle);
  }
  // Drawn as it is to show, so that the first update changes no seat's size.
  const hidden = idle && (secondsLeft() ?? 0) > IDLE_SHOWN;
  return h("div", { class: `turn-timer ${where}-timer`, role: "timer", hidden }, ring, h("span", { class: "turn-timer-s" }));
}

/** Redraw every countdown on the page; tick in the last seconds; stop once time is up. */
function update() {
  const left = secondsLeft();
  const timers = document.querySelectorAll(".turn-timer");
  if (left === null || timers.length === 0) {
    stop();
    return;
  }
  let resized = false;
  const whole = Math.ceil(left);
  const share = total > 0 ? Math.min(1, left / total) : 0;
  for (const el of timers) {
    // The idle limit shows in its last 30 s only. Hidden, it takes no room: beside the
    // turn's mark it took a long name's width, which then ran over six lines. When it
    // shows the seat grows, and the table is fitted again (`onSeatSize`).
    const hide = idle && left > IDLE_SHOWN;
    if (el.hidden !== hide) {
      el.hidden = hide;
      if (el.classList.contains("seat-timer")) resized = true;
    }
    el.querySelector(".turn-timer-s").textContent = num(whole);
    el.setAttribute("aria-label", t(idle ? "timer.idle" : "timer.left", { count: whole }));
    el.title = idle ? t("timer.idle", { count: whole }) : "";
    el.dataset.left = String(whole);
    el.classList.toggle("low", left <= LOW);
    el.querySelector("circle.left").setAttribute("stroke-dashoffset", String(100 - 100 * share));
  }
  if (resized) seatSized();
  const text = document.querySelector("#turn-clock .turn-clock-text");
  if (text) {
    // The idle limit's count by the panel, like its ring, only in its last 30 s, and in
    // words that say what happens then.
    const clock = text.parentElement;
    clock.hidden = !mine || (idle && left > IDLE_SHOWN);
    if (frozen !== null) text.textContent = t("timer.paused", { count: whole });
    else text.textContent = t(idle ? "timer.idle" : "timer.yours", { count: whole });
    clock.classList.toggle("low", left <= LOW && frozen === null);
  }
  // A tick for each of the last seconds of this player's own turn (sounds on only).
  if (mine && frozen === null && left > 0 && whole <= LOW && whole !== ticked) {
    ticked = whole;
    play("tick");
  }
  if (left <= 0 || frozen !== null) stop();
}

function stop() {
  if (ticker !== null) clearInterval(ticker);
  ticker = null;
}
