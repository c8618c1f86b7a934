// This browser's own choices for the table, remembered in localStorage: sounds (off
// until the player turns them on) and the four-colour deck (spades black, hearts red,
// diamonds blue, clubs green). Nothing here reaches the server. The settings panel in
// the room's side column switches them; the deck's colours are one class on <html>
// (polish.css), set as soon as this module loads, so every page draws in the chosen deck.

import { t } from "./i18n.js";
import { h } from "./dom.js";

const KEYS = { sound: "schmier.sound", fourColour: "schmier.four_colour" };

function read(key) {
  try {
    return localStorage.getItem(key) === "on";
  } catch {
    return false; // storage blocked: the defaults (off)
  }
}

function write(key, on) {
  try {
    localStorage.setItem(key, on ? "on" : "off");
  } catch {
    /* storage blocked: applies to this page only */
  }
}

/** Whether this browser has sounds on (off by default). */
export function soundOn() {
  return read(KEYS.sound);
}

/** Whether this browser draws the four-colour deck. */
export function fourColour() {
  return read(KEYS.fourColour);
}

function applyDeck() {
  document.documentElement.classList.toggle("four-colour", fourColour());
}

applyDeck();

function toggle(id, label, on, change) {
  return h(
    "label",
    { class: "setting" },
    h("input", {
      type: "checkbox",
      id,
      checked: on,
      onchange: (ev) => change(ev.target.checked),
    }),
    " ",
    label,
  );
}

/** The settings panel of the room page: a checkbox for each choice. */
export function settingsPanel() {
  return h(
    "section",
    { id: "settings", class: "card-panel settings", "aria-labelledby": "settings-title" },
    h("h2", { id: "settings-title", class: "panel-title" }, t("settings")),
    toggle("setting-sound", t("settings.sound"), soundOn(), (on) => write(KEYS.sound, on)),
    toggle("setting-four-colour", t("settings.four_colour"), fourColour(), (on) => {
      write(KEYS.fourColour, on);
      applyDeck();
    }),
  );
}
