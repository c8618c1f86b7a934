// The keyboard and the next thing to do. After every redraw of the room the focus is on
// the next thing this player has to do, never on <body>: the first legal card when it
// is their turn to play or discard, the first bid (or trump, or call) button when it is
// their turn to choose (Pass first, where passing is allowed: a reflex Enter never
// commits a bid), "Start the game" (else "Fill the rest with bots") in the lobby,
// "Rematch" when the game is over, and the hand itself while the others play. The
// arrow keys move among the cards of the hand and among the buttons of the action
// panel; Enter and Space press the button with the focus, as always.
//
// A new turn of this player's also brings the top of the room back into view (the
// scores, the table) when the page was left scrolled down, by a discard for example,
// and the hand as well when it is below the fold. Nothing is moved while the player
// types (chat, name), nor while a dialog (the review) is open.

import { legalOf, myTurn, room, trickShown } from "./state.js";

const CHOICES = ["pass", "bid", "trump", "call"];

/** The element the player would use next, or null when there is nothing to do. */
export function nextThing() {
  const v = room.view;
  if (!v || v.you === null || v.you === undefined) return joinNext();
  if (v.phase === "lobby") {
    return enabled('#actions button[data-action="start"]') || enabled('#actions button[data-action="fill_bots"]');
  }
  if (v.phase === "game_over") return enabled('#actions button[data-action="rematch"]');
  if (myTurn()) {
    if (legalOf("play").length || legalOf("discard").length) return enabled("#hand button[data-card]");
    for (const type of CHOICES) {
      const button = enabled(`#actions button[data-action="${type}"]`);
      if (button) return button;
    }
  }
  return document.getElementById("hand");
}

function joinNext() {
  const join = document.getElementById("join");
  if (!join || join.hidden) return null;
  const name = document.getElementById("name");
  if (name && !name.value.trim()) return name;
  return enabled("#join-seats button[data-action='join']");
}

function enabled(selector) {
  return document.querySelector(`${selector}:not(:disabled)`);
}

/** Whether the player is busy elsewhere: typing, in a dialog, or stepping through the
 * tricks played (their panel open, the keyboard in it: L or Escape closes it and goes
 * back to the game). */
function busyElsewhere() {
  const active = document.activeElement;
  if (document.querySelector("dialog[open]")) return true;
  if (!active || active === document.body) return false;
  if (active.closest("#tricks-bar") && document.getElementById("tricks-panel")) return true;
  if (active.matches("input, textarea, select")) return !active.closest("#hand, #actions");
  return false;
}

let turnSeen = null;

function turnKey() {
  const v = room.view;
  if (!myTurn()) return null;
  // The end of a finished trick's showing starts the turn anew (the cards come alive).
  return JSON.stringify([v.phase, (v.tricks || []).length, (v.trick || []).length, (v.hand || []).length, v.legal.map((a) => a.type), trickShown()]);
}

/**
 * After a redraw: a new turn of this player's brings what they need into view and puts
 * the focus on it; a focus lost with the buttons that held it goes to the next thing.
 */
export function afterRender() {
  const key = turnKey();
  const fresh = key !== null && key !== turnSeen;
  turnSeen = key;
  if (busyElsewhere()) return;
  const active = document.activeElement;
  // Hidden with its panel (the join panel once seated) counts as lost: the browser
  // moves such a focus to <body> only later, after this redraw.
  const lost = !active || active === document.body || !active.isConnected || active.getClientRects().length === 0;
  const next = nextThing();
  if (fresh) bringIntoView();
  if (next && (fresh || lost || (active === document.getElementById("hand") && next !== active))) {
    next.focus({ preventScroll: true });
  }
}

/**
 * The top of the room (the scores, the table) in view, and the hand too if it fits; else
 * the action panel and the hand; else (a partner's card picked on a phone held sideways)
 * the action panel from its top, where the question is.
 */
function bringIntoView() {
  const main = document.getElementById("room");
  const hand = document.getElementById("hand");
  const actions = document.getElementById("actions");
  const top = document.getElementById("top");
  if (!main || !hand || !actions) return;
  const bar = top ? top.getBoundingClientRect().bottom : 0;
  const start = main.getBoundingClientRect().top;
  const end = hand.getBoundingClientRect().bottom;
  const panel = actions.getBoundingClientRect().top;
  if (start >= bar && end <= innerHeight) return; // all in view already
  if (end - start <= innerHeight - bar) window.scrollTo({ top: 0, behavior: "instant" });
  else if (end - panel <= innerHeight - bar) hand.scrollIntoView({ block: "end", behavior: "instant" });
  else window.scrollBy({ top: panel - bar - 8, behavior: "instant" });
}

/** When the discard picked is complete, its button is the next thing to do. */
export function afterSelection() {
  const d = legalOf("discard")[0];
  if (!d || room.selected.size !== d.max || d.max === 0) return;
  const button = enabled('#actions button[data-action="discard"]');
  if (button) button.focus({ preventScroll: true });
}

const KEYS = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };

function onKey(ev) {
  const step = KEYS[ev.key];
  if (!step || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
  const here = ev.target;
  if (!(here instanceof HTMLButtonElement)) return;
  const group = here.closest("#hand, #actions");
  if (!group) return;
  const buttons = [...group.querySelectorAll("button:not(:disabled)")].filter((b) => b.offsetParent !== null);
  const at = buttons.indexOf(here);
  if (at < 0 || buttons.length < 2) return;
  ev.preventDefault();
  buttons[(at + step + buttons.length) % buttons.length].focus();
}

let listening = false;

/** Listen for the arrow keys in the hand and the action panel (once). */
export function listenForArrows() {
  if (listening) return;
  listening = true;
  document.addEventListener("keydown", onKey);
}
