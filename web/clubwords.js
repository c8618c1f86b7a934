// Words shared by the club's panels: a player of the standings or of an archived game
// (a member by name, a bot level by its translated label, a guest by the name typed),
// and dates as the language writes them.

import { currentLanguage, has, t } from "./i18n.js";
import { h } from "./dom.js";

/** A bot level's label, translated where the catalogue has it. */
export function levelWord(level) {
  return has(`bot.${level}.label`) ? t(`bot.${level}.label`) : level;
}

/** The name to show for a player `{member, bot, name}`. */
export function playerName(p) {
  if (p.bot) return t("club.bot", { level: levelWord(p.bot) });
  return p.name || t("club.guest");
}

/** An ISO-8601 moment as a short local date and time. */
export function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "medium", timeStyle: "short" }).format(date);
}

/**
 * A button that asks first, in the page (no browser dialog): a click shows `warning`
 * with "Yes" and "Cancel"; "Yes" runs `run()`. `props` go to the first button.
 */
export function confirmButton(label, warning, run, props = {}) {
  const box = h("span", { class: "confirm" });
  const ask = h("button", { type: "button", ...props, onclick: () => box.replaceChildren(question) }, label);
  const yes = h("button", { type: "button", class: "danger small", dataset: { confirm: "yes" }, onclick: () => run() }, t("club.yes"));
  const no = h("button", { type: "button", class: "quiet small", dataset: { confirm: "no" }, onclick: () => { box.replaceChildren(ask); ask.focus(); } }, t("club.cancel"));
  const question = h("span", { class: "confirm-question", role: "group", "aria-label": label }, h("span", { class: "small" }, warning), " ", yes, no);
  box.append(ask);
  ask.addEventListener("click", () => yes.focus());
  return box;
}
