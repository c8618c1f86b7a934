// The table's sounds, off until the player turns them on (settings.js): a chime when
// it becomes this player's turn, a soft tap when a card is played, a rising figure when
// a trick is won, a short chord when the hand is over, and a tick for each of the last
// seconds of a timed turn of this player's (timer.js). The sounds are the project's own
// (tools/make_sounds.py writes them) and come from this server, /static/sounds/.
//
// With sounds off nothing is loaded and nothing plays. Like the motion, a sound is
// decoration: it is started after the state is drawn and never waited for.

import { soundOn } from "./settings.js";

const FILES = { turn: "turn.wav", card: "card.wav", trick: "trick.wav", hand: "hand.wav", tick: "tick.wav" };
const loaded = {};
let lastHeld = null;

function audio(name) {
  if (!loaded[name]) {
    loaded[name] = new Audio(`/static/sounds/${FILES[name]}`);
    loaded[name].preload = "auto";
  }
  return loaded[name];
}

/** Play one of the sounds now (when sounds are on), from its start. */
export function play(name) {
  if (!soundOn()) return;
  const a = audio(name);
  a.currentTime = 0;
  // A browser may refuse to play before the page was touched: then there is no sound.
  a.play().catch(() => {});
}

function cardsPlayed(v) {
  return (v.tricks || []).reduce((n, trick) => n + trick.cards.length, 0) + (v.trick || []).length;
}

function myTurn(v) {
  return v.you !== null && v.you !== undefined && (v.turn || []).includes(v.you) && (v.legal || []).length > 0;
}

/**
 * The sound for the change from view `prev` to `v` (with `held`, the finished trick on
 * the table, state.js's `room.held`): at most one, the most telling.
 */
export function cue(prev, v, held) {
  const newTrick = Boolean(held) && held !== lastHeld;
  lastHeld = held;
  if (!prev || !v) return;
  if (v.phase !== prev.phase && (v.phase === "hand_over" || v.phase === "game_over")) play("hand");
  else if (newTrick) play("trick");
  else if (myTurn(v) && !myTurn(prev)) play("turn");
  else if (cardsPlayed(v) > cardsPlayed(prev)) play("card");
}
