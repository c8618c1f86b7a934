// The turn timer (room rule `turn_seconds`, docs/protocol.md "Turn timer"): a ring and
// the seconds left on the seat whose turn it is, the room's timer on the scoreboard, and
// the rule's control on the home page.
//
// Each state frame says how many seconds were left when the server made it
// (`turn_ends_in`, null while no person's turn is timed). The countdown runs from the
// frame's arrival on this browser's monotonic clock (`performance.now`), so neither
// machine's time of day matters; it stops at 0, and the bot's move (a new frame) ends it.
// A room without a timer may still have the server's idle limit (`idle_ends_in`,
// docs/protocol.md "Idle turns"): the same ring then shows in its last 30 seconds only.

import { num, t } from "./i18n.js";
import { h } from "./dom.js";

const TICK_MS = 250;
const SVG = "http://www.w3.org/2000/svg";
// The lengths a lobby offers (the rule takes any whole number in its range).
const STEPS = [10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 300];

let endsAt = null; // performance.now() at which the timed turn ends, or null
let total = 0; // the rule's seconds: what a full ring stands for
let idle = false; // the countdown is the idle limit's, not the room's timer
const IDLE_SHOWN = 30; // seconds before the idle limit plays a turn that the table sees
let ticker = null;

/** A state frame arrived: note when its timed turn ends on this browser's clock. */
export function noteTurnTimer(view) {
  const timed = view && view.turn_ends_in;
  const idled = view && view.idle_ends_in;
  idle = typeof timed !== "number" && typeof idled === "number";
  const left = idle ? idled : timed;
  endsAt = typeof left === "number" ? performance.now() + Math.max(0, left) * 1000 : null;
  total = idle ? IDLE_SHOWN : (view && view.rules && view.rules.turn_seconds) || 0;
}

function secondsLeft() {
  return endsAt === null ? null : Math.max(0, (endsAt - performance.now()) / 1000);
}

/**
 * Put the countdown on the seats of the table (`#table .seat[data-seat]`) whose turn is
 * timed, after the table was drawn from `view`; nothing while no turn is timed.
 */
export function renderTurnTimer(view) {
  const table = document.getElementById("table");
  if (!table || !view) return;
  ruleChip(view);
  for (const old of table.querySelectorAll(".turn-timer")) old.remove();
  if (secondsLeft() === null) {
    stop();
    return;
  }
  for (const seat of view.turn || []) {
    const info = view.seats.find((s) => s.seat === seat);
    const chip = table.querySelector(`.seat[data-seat="${seat}"]`);
    // Inside the seat's top line, so no edge of the table can cut it off.
    if (chip && info && info.kind === "human") (chip.querySelector(".seat-top") || chip).append(countdown());
  }
  update();
  if (ticker === null) ticker = setInterval(update, TICK_MS);
}

/** The room's timer beside the target on the scoreboard ("⏱ 30 s"), when it has one. */
function ruleChip(view) {
  const board = document.getElementById("scoreboard");
  const seconds = view.rules.turn_seconds || 0;
  if (!board || !seconds || board.querySelector(".timer-rule")) return;
  const text = t("timer.seconds", { n: seconds });
  const label = `${t("rule.turn_seconds")}: ${text}`;
  const chip = h("span", { class: "timer-rule", title: label, "aria-label": label }, "⏱ ", text);
  const target = board.querySelector(".target");
  if (target) target.after(chip);
  else board.prepend(chip);
}

function countdown() {
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
  return h("div", { class: "turn-timer", role: "timer" }, ring, h("span", { class: "turn-timer-s" }));
}

/** Redraw every countdown on the page; stop ticking once the time is up. */
function update() {
  const left = secondsLeft();
  const timers = document.querySelectorAll(".turn-timer");
  if (left === null || timers.length === 0) {
    stop();
    return;
  }
  const whole = Math.ceil(left);
  const share = total > 0 ? Math.min(1, left / total) : 0;
  for (const el of timers) {
    el.hidden = idle && left > IDLE_SHOWN; // the idle limit shows in its last 30 s only
    el.querySelector(".turn-timer-s").textContent = num(whole);
    el.setAttribute("aria-label", t(idle ? "timer.idle" : "timer.left", { count: whole }));
    el.title = idle ? t("timer.idle", { count: whole }) : "";
    el.dataset.left = String(whole);
    el.classList.toggle("low", left <= 5);
    el.querySelector("circle.left").setAttribute("stroke-dashoffset", String(100 - 100 * share));
  }
  if (left <= 0) stop();
}

function stop() {
  if (ticker !== null) clearInterval(ticker);
  ticker = null;
}

/**
 * The home page's control of an int rule that a value outside its range turns off
 * (`spec.off`, as 0 does `turn_seconds`): a drop-down of "Off" and the usual lengths,
 * holding `values[spec.name]` and writing changes back to it.
 */
export function offRuleField(spec, values, label) {
  const name = spec.name;
  const value = values[name];
  const steps = STEPS.filter((s) => s >= spec.min && s <= spec.max);
  if (value !== spec.off && !steps.includes(value)) steps.push(value);
  steps.sort((a, b) => a - b);
  const options = [spec.off, ...steps].map((k) =>
    h("option", { value: String(k), selected: k === value }, k === spec.off ? t("timer.off") : t("timer.seconds", { n: k })),
  );
  const control = h("select", { id: name, name, onchange: () => (values[name] = Number(control.value)) }, options);
  return h("label", { class: "field" }, h("span", {}, label), control);
}
