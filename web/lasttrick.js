// The last trick, always at hand: during a hand anyone at the table (a spectator too)
// opens the tricks already played with one tap or the L key, and steps back through
// them (who played what, who took it) from the view's `tricks`. The panel also sets how
// long a won trick stays on the table before the next one is drawn (state.js holds
// each finished trick that long, in turn; hold.js keeps the choice).
//
// Whether the panel is open, and which trick it shows, is the panel's own business
// (it changes nothing of the room), so it lives here and redraws only `#tricks-bar`.

import { t } from "./i18n.js";
import { $, alreadyShows, fill, h } from "./dom.js";
import { room, seatName } from "./state.js";
import { trickOf } from "./handparts.js";
import { HOLD_CHOICES, setTrickHold, trickHoldMs } from "./hold.js";
import { nextThing } from "./keys.js";

const panel = { open: false, index: null }; // index null: the newest trick
const STEP_ACTION = { "-1": "trick_older", 1: "trick_newer" };

function tricks() {
  return (room.view && room.view.tricks) || [];
}

/** Open or close the panel. Closed by a key (L, Escape), the focus goes back to the
 * game (the next thing to do, else the hand); by its button, it stays on the button. */
function toggle(open = !panel.open, byKey = false) {
  panel.open = open && tricks().length > 0;
  panel.index = null;
  renderTricksBar();
  const button = document.querySelector('#tricks-bar button[data-action="tricks"]');
  const back = byKey && !panel.open ? nextThing() || $("hand") : null;
  if (back) back.focus({ preventScroll: true });
  else if (button) button.focus({ preventScroll: true });
}

function step(delta) {
  const all = tricks();
  const at = panel.index === null ? all.length - 1 : panel.index;
  panel.index = Math.max(0, Math.min(all.length - 1, at + delta));
  if (panel.index === all.length - 1) panel.index = null;
  renderTricksBar();
  // The button pressed was drawn anew: the focus goes back to it, or to the other one.
  const again = [STEP_ACTION[delta], STEP_ACTION[-delta]]
    .map((action) => document.querySelector(`#tricks-bar button[data-action="${action}"]`))
    .find((b) => b && !b.disabled);
  if (again) again.focus({ preventScroll: true });
}

/** The bar under the table: the button, and the panel when open. */
export function renderTricksBar() {
  const el = $("tricks-bar");
  if (!el || !room.view) return;
  const all = tricks();
  if (!all.length) panel.open = false;
  if (panel.index !== null && panel.index >= all.length) panel.index = null;
  el.hidden = all.length === 0;
  // Drawn again only when it would look different: a choice being made in the panel
  // (the hold time) is not taken away by every new state.
  const drawn = JSON.stringify([panel.open, panel.index, all.length, room.view.seats.map((s) => s.name), t("tricks.show")]);
  if (alreadyShows(el, drawn)) return;
  if (el.hidden) {
    fill(el);
    return;
  }
  const button = h(
    "button",
    {
      type: "button",
      class: "secondary small tricks-button",
      "aria-expanded": String(panel.open),
      "aria-controls": "tricks-panel",
      "aria-keyshortcuts": "L",
      dataset: { action: "tricks" },
      onclick: () => toggle(),
    },
    panel.open ? t("tricks.hide") : t("tricks.show"),
    h("kbd", { "aria-hidden": "true" }, "L"),
  );
  // The won trick's note, where the table had no corner for it (table.js), stays.
  fill(el, button, panel.open ? openPanel(all) : null, el.querySelector(":scope > .trick-note"));
}

function openPanel(all) {
  const at = panel.index === null ? all.length - 1 : panel.index;
  const nav = (delta, label, text, disabled) =>
    h("button", { type: "button", class: "small", disabled, "aria-label": label, dataset: { action: STEP_ACTION[delta] }, onclick: () => step(delta) }, text);
  const hold = h(
    "select",
    {
      id: "trick-hold",
      "aria-label": t("tricks.hold"),
      onchange: (ev) => setTrickHold(Number(ev.target.value)),
    },
    HOLD_CHOICES.map((ms) => h("option", { value: String(ms), selected: ms === trickHoldMs() }, t("tricks.seconds", { count: ms / 1000 }))),
  );
  return h(
    "section",
    { id: "tricks-panel", class: "card-panel tricks-panel", "aria-label": t("tricks.title"), dataset: { trick: String(at) } },
    h(
      "div",
      { class: "tricks-nav" },
      nav(-1, t("tricks.older"), "◀", at === 0),
      h("h2", { class: "inline", "aria-live": "polite" }, t("tricks.n", { n: at + 1, total: all.length })),
      nav(1, t("tricks.newer"), "▶", at === all.length - 1),
    ),
    trickOf(null, all[at], seatName),
    h("label", { class: "tricks-hold" }, h("span", { class: "muted" }, t("tricks.hold")), hold),
  );
}

let listening = false;

/** L opens or closes the panel, Escape closes it, ← → step while it is open. */
export function listenForTrickKeys() {
  if (listening) return;
  listening = true;
  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || !$("tricks-bar")) return;
    if (document.querySelector("dialog[open]")) return;
    const tag = ev.target && ev.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    if (ev.key === "l" || ev.key === "L") {
      if (!tricks().length) return;
      ev.preventDefault();
      toggle(!panel.open, true);
    } else if (panel.open && ev.key === "Escape") {
      ev.preventDefault();
      toggle(false, true);
    } else if (panel.open && (ev.key === "ArrowLeft" || ev.key === "ArrowRight") && ev.target.closest && ev.target.closest("#tricks-bar")) {
      ev.preventDefault();
      step(ev.key === "ArrowLeft" ? -1 : 1);
    }
  });
}
