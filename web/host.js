// The host runs the table (docs/protocol.md, "The host"): the host's tools, and the
// pause everybody sees.
//
// The host (the view's `host`) gets a panel of its own: during a game "Pause" (then
// "Resume") and "Free the seat" of each player who is offline; in the lobby and between
// games the seats to swap and the rules of the next game. The others see who hosts (a
// badge on the seat) and, while the game is paused, a notice saying so. None of these
// frames is in `view.legal`: the server refuses them to anyone but the host.
//
// The seats to swap and the rules are form controls: they are drawn again only when
// what they show changes (the rules, the seats, the phase), so a redraw for another
// reason (someone connects) never throws away what the host is choosing.

import { t } from "./i18n.js";
import { $, alreadyShows, fill, h } from "./dom.js";
import { actionButton } from "./buttons.js";
import { room, seatName, send } from "./state.js";
import { amHost, freeButton } from "./seats.js";
import { seatTitle } from "./bots.js";
import { ruleField } from "./rulefields.js";

const BETWEEN = new Set(["lobby", "game_over"]);

/** The host's panel, after the view was drawn; hidden for everybody else. */
export function renderHostTools() {
  const v = room.view;
  const el = $("host-tools");
  if (!el || !v) return;
  const host = amHost();
  el.hidden = !host;
  if (!host) {
    fill(el);
    return;
  }
  let game = $("host-game");
  let setup = $("host-setup");
  if (!game || !setup) {
    game = h("div", { id: "host-game", class: "host-game" });
    setup = h("div", { id: "host-setup", class: "host-setup" });
    fill(el, h("h2", {}, t("host.title")), h("p", { class: "muted" }, t("host.help")), game, setup);
  }
  fill(game, gameControls(v));
  const key = JSON.stringify([v.code, v.phase, v.rules, v.seats.map((s) => [s.kind, s.name, s.bot])]);
  if (!alreadyShows(setup, key)) fill(setup, BETWEEN.has(v.phase) ? [swapForm(v), rulesForm(v)] : []);
}

/** While a game is on: pause or resume, and free the seat of each player offline. */
function gameControls(v) {
  const parts = [];
  // Paused, "Resume" is on the pause's notice, in sight of everybody.
  if (!BETWEEN.has(v.phase) && !v.paused) {
    parts.push(h("div", { class: "button-row" }, actionButton({ type: "pause" }, t("host.pause"), { class: "secondary" })));
  }
  // In the lobby and between games the seats' list offers it (seats.js).
  if (!BETWEEN.has(v.phase)) {
    const away = v.seats.filter((s) => s.kind === "human" && !s.connected && s.seat !== v.you);
    for (const s of away) {
      parts.push(h("p", { class: "host-away" }, t("host.free_help", { name: seatName(s.seat) }), " ", freeButton(s.seat)));
    }
  }
  return parts;
}

/** Two seats and "Swap": the occupants change places (people, bots, empty seats). */
function swapForm(v) {
  const pick = (id, label, chosen) =>
    h(
      "label",
      { class: "field" },
      h("span", {}, label),
      h(
        "select",
        { id, name: id },
        v.seats.map((s) => h("option", { value: String(s.seat), selected: s.seat === chosen }, seatTitle(s.seat))),
      ),
    );
  const swap = () => {
    const a = Number($("swap-a").value);
    const b = Number($("swap-b").value);
    if (a !== b) send({ type: "swap_seats", seats: [a, b] });
  };
  return h(
    "fieldset",
    { class: "host-swap" },
    h("legend", {}, t("host.swap_title")),
    h(
      "div",
      { class: "row" },
      pick("swap-a", t("host.swap_a"), 0),
      pick("swap-b", t("host.swap_b"), 1),
      h("button", { type: "button", class: "secondary", dataset: { action: "swap_seats" }, onclick: swap }, t("host.swap")),
    ),
  );
}

/** The rules of the next game, as the home page offers them; "Apply" sends what changed. */
function rulesForm(v) {
  const specs = (room.book && room.book.rules) || [];
  const values = { ...v.rules };
  const status = h("p", { class: "form-status", role: "status" });
  const apply = () => {
    const changed = {};
    for (const spec of specs) if (values[spec.name] !== v.rules[spec.name]) changed[spec.name] = values[spec.name];
    if (Object.keys(changed).length) send({ type: "set_rules", rules: changed });
    else status.textContent = t("host.rules_same");
  };
  return h(
    "fieldset",
    { class: "host-rules" },
    h("legend", {}, v.phase === "lobby" ? t("host.rules_lobby") : t("host.rules_next")),
    specs.map((spec) => ruleField(spec, values, "rule-")),
    h("div", { class: "button-row" }, h("button", { type: "button", class: "secondary", dataset: { action: "set_rules" }, onclick: apply }, t("host.rules_apply"))),
    status,
  );
}

/**
 * The notice while the host has paused the game (everybody), with "Resume" for the host:
 * under the connection's banner, in the bar that stays at the top of the screen however
 * far the page is scrolled.
 */
export function renderPauseNotice() {
  const v = room.view;
  let el = $("pause-notice");
  if (!el) {
    const anchor = $("banner");
    if (!anchor) return;
    el = h("div", { id: "pause-notice", class: "banner pause-notice", role: "status", hidden: true });
    anchor.after(el);
  }
  if (!v) return;
  el.hidden = !v.paused;
  if (!v.paused) {
    fill(el);
    return;
  }
  const host = amHost();
  fill(
    el,
    h("span", { class: "pause-text" }, host ? t("host.paused_you") : t("host.paused", { name: seatName(v.host) })),
    host ? actionButton({ type: "resume" }, t("host.resume"), { class: "primary" }) : null,
  );
}
