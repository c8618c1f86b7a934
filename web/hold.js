// How long a won trick stays on the table before the next one is drawn: this browser's
// choice (the last-trick panel, lasttrick.js, sets it; state.js holds each finished
// trick that long), kept in localStorage.

const KEY = "schmier.trick_hold";
export const HOLD_CHOICES = [1200, 2500, 4000, 8000];
const DEFAULT = 2500;

/** The time (ms) a won trick stays on the table. */
export function trickHoldMs() {
  let ms = DEFAULT;
  try {
    ms = Number(localStorage.getItem(KEY)) || DEFAULT;
  } catch {
    /* storage blocked: the default */
  }
  return HOLD_CHOICES.includes(ms) ? ms : DEFAULT;
}

/** Choose the time (one of HOLD_CHOICES) and remember it. */
export function setTrickHold(ms) {
  try {
    localStorage.setItem(KEY, String(ms));
  } catch {
    /* applied to nothing later: not remembered */
  }
}
