// The player's hand: one button per card, sorted for the eye by the game's trump order.
//
// A card is enabled exactly when `view.legal` lists a play of it, or, during a discard,
// when it is in the template's `from`; then a click picks it (or puts it back) and the
// action panel's discard button sends the picked cards. The cards a hint suggests are
// marked (`hinted`); they are never played for the player.
//
// While a finished trick is still shown on the table (state.js holds it for a moment)
// no card can be played: the player first sees the trick they are to play to. A card
// sent and not yet answered is marked as such (`pending`).

import { currentLanguage, t } from "./i18n.js";
import { $, alreadyShows, fill, h, patch } from "./dom.js";
import { cardFace, cardName, sortHand } from "./cards.js";
import { isSeated, legalOf, room, send, toggleDiscard, trickShown } from "./state.js";
import { hintedCards } from "./bots.js";

// The most cards a row holds: a desktop has the width for the dealer's whole stock in
// one row (in sight above the fold), a phone two rows of twelve.
const wide = window.matchMedia("(min-width: 960px)");

export function renderHand() {
  const v = room.view;
  const el = $("hand");
  if (!isSeated()) {
    // Keyed too, so that a spectator who sits down has their hand drawn afresh.
    const lobby = v.phase === "lobby";
    if (!alreadyShows(el, JSON.stringify(["spectating", currentLanguage(), lobby]))) {
      fill(el, lobby ? null : h("p", { class: "muted spectating" }, t("spectating")));
    }
    return;
  }
  const plays = new Set(legalOf("play").map((a) => a.card));
  const discard = legalOf("discard")[0];
  const from = new Set(discard ? discard.from : []);
  // A turn to play while the last trick is still shown waits for the table to clear.
  const mode = plays.size ? (trickShown() ? "idle" : "play") : discard ? "discard" : "idle";
  const pending = room.pending?.action.type === "play" ? room.pending.action.card : null;
  const hinted = hintedCards();
  const sorted = sortHand(v.hand || [], v.trump || v.my_trump, room.book);
  // Most states change nothing of the hand (another player's card, a seat connecting):
  // then it is left as it is, not built and patched again (on a slow phone that was a
  // tenth of every state's work).
  const enabledOf = (card) => (mode === "play" ? plays.has(card) : mode === "discard" ? from.has(card) : false);
  const key = JSON.stringify([
    currentLanguage(),
    wide.matches,
    mode,
    pending,
    sorted.map((card) => [card, enabledOf(card), room.selected.has(card), hinted.has(card)]),
  ]);
  if (alreadyShows(el, key)) return;
  const cards = sorted.map((card) => {
    const enabled = enabledOf(card);
    const selected = mode === "discard" && room.selected.has(card);
    const cls = ["card"];
    if (mode !== "idle") cls.push(enabled ? "playable" : "dimmed");
    if (selected) cls.push("selected");
    if (enabled && hinted.has(card)) cls.push("hinted");
    if (card === pending) cls.push("pending");
    // Named by its content (the face is a picture, hidden from screen readers): a name
    // of its own would not hold the face's visible "10" (WCAG 2.5.3, label in name).
    return h(
      "button",
      {
        type: "button",
        class: cls.join(" "),
        disabled: !enabled,
        "aria-busy": card === pending ? "true" : null,
        "aria-pressed": mode === "discard" ? String(selected) : null,
        dataset: { card },
        onclick: () => {
          if (mode === "play") send({ type: "play", card });
          else if (mode === "discard") toggleDiscard(card);
        },
      },
      cardFace(card),
      h("span", { class: "sr-only" }, cardName(card)),
      selected ? h("span", { class: "discard-mark", "aria-hidden": "true" }, "✕") : null,
    );
  });
  // A row holds up to 12 or 24 cards (more rows for a dealer's whole stock), overlapping
  // like a fan when the row is wider than the screen (style.css, .hand .cards).
  const rows = Math.ceil(cards.length / (wide.matches ? 24 : 12));
  const row = Math.ceil(cards.length / Math.max(rows, 1));
  const box = cards.length ? h("div", { class: `cards mode-${mode}` }, cards) : null;
  if (box) box.style.setProperty("--lead", String(Math.max(row - 1, 1)));
  // Patched, not replaced: the card under a finger stays the node it was pressed on.
  patch(el, h("h2", { class: "sr-only" }, t("hand.yours")), box);
}
