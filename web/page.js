// The page's shell, the same on every screen: the top bar (brand, the game's chip
// slot, the language picker), the connection banner, the toast, and the one-message
// page for the ends of the road (no such room, connection closed, server unreachable).
//
// Choosing a language only stores it and announces LANGUAGE_EVENT on `window`;
// app.js redraws the current screen in the new language.

import { currentLanguage, languages, setLanguage, t } from "./i18n.js";
import { $, h } from "./dom.js";

export const LANGUAGE_EVENT = "schmier:language";

// The top bar's height as `--top-h` (it wraps to two rows on a phone, and the banner adds
// to it): what lies stuck under it (the table on a phone held sideways, screens.css)
// starts below it.
const topHeight = new ResizeObserver(([entry]) => {
  const height = Math.round(entry.borderBoxSize[0].blockSize);
  document.documentElement.style.setProperty("--top-h", `${height}px`);
});

/** Replace the page's body with the shell around `main`. */
export function shell(...main) {
  const picker = h(
    "select",
    {
      id: "lang",
      "aria-label": t("language"),
      onchange: async (ev) => {
        try {
          await setLanguage(ev.target.value);
        } catch {
          return; // the catalogue cannot be fetched: stay in the current language
        }
        window.dispatchEvent(new Event(LANGUAGE_EVENT));
      },
    },
    languages().map(([code, label]) =>
      h("option", { value: code, selected: code === currentLanguage() }, label),
    ),
  );
  const header = h(
    "header",
    { class: "topbar" },
    h(
      "a",
      { class: "brand", href: "/", "aria-label": "Schmier" },
      h("span", { "aria-hidden": "true" }, "♠♥ "),
      h("span", { class: "brand-name" }, "Schmier"),
    ),
    h("div", { class: "topbar-mid", id: "topbar-mid" }),
    h("label", { class: "lang" }, h("span", { class: "sr-only" }, t("language")), picker),
  );
  const banner = h("div", { id: "banner", class: "banner", role: "status", hidden: true });
  const toast = h("div", { id: "toast", class: "toast", role: "alert", hidden: true });
  // The top bar and the banner stick together to the top of the screen: the trump, the
  // contract and "Connection lost" stay in sight however far the page is scrolled.
  const top = h("div", { class: "top", id: "top" }, header, banner);
  document.body.replaceChildren(top, toast, ...main);
  topHeight.disconnect();
  topHeight.observe(top);
  // The page's language changes with what it shows, not before: a rules page waits
  // for its words (i18n.loadHelp) after the language is chosen.
  document.documentElement.lang = currentLanguage();
}

const BANNER = { reconnecting: "reconnecting", storage: "err.store_unreachable", offline: "offline.banner" };

/** The connection banner: hidden while open, else "connecting", "reconnecting",
 * "offline" (the browser has no network), or (still reconnecting) that the server
 * cannot reach its storage. */
export function showBanner(status) {
  const el = $("banner");
  if (!el) return;
  el.hidden = status === "open";
  el.textContent = t(BANNER[status] || "connecting");
  document.body.dataset.connection = status === "storage" ? "reconnecting" : status;
}

/** The toast: a short message (a refused action), or hidden when `text` is empty. */
export function showToast(text) {
  const el = $("toast");
  if (!el) return;
  el.textContent = text || "";
  el.hidden = !text;
}

/** A page with one message and the way back to the home page. */
export function messagePage(message) {
  shell(
    h(
      "main",
      { class: "home" },
      h(
        "div",
        { class: "card-panel" },
        h("h1", {}, message),
        h("p", {}, h("a", { href: "/", class: "button-link" }, t("home.new_room"))),
      ),
    ),
  );
}

/** Copy `text` to the clipboard and say so in `status`; where the browser refuses,
 * select `input` (which shows `text`) so the player can copy it by hand. */
export async function copyLink(input, status, text) {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = t("invite.copied");
  } catch {
    input.select();
    status.textContent = t("invite.select");
  }
}
