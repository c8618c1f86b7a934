// The notice that the table is paused because the server cannot reach its storage
// (docs/protocol.md, "When the store is unreachable"): a banner under the connection's,
// and the action panel's buttons and the hand's cards disabled, from the `paused` frame
// until `resumed` (then the view is drawn again, as the server allows) or the socket's
// closing (then the connection banner says "reconnecting" instead).

import { t } from "./i18n.js";
import { $, h } from "./dom.js";

/** Show or hide the pause, after the page (or the panels under it) was drawn. */
export function renderPaused(paused) {
  let el = $("paused-banner");
  if (!el) {
    const anchor = $("banner");
    if (!anchor) return;
    el = h("div", { id: "paused-banner", class: "banner paused-banner", role: "alert", hidden: true });
    anchor.after(el);
  }
  el.textContent = t("err.store_unavailable");
  el.hidden = !paused;
  document.body.classList.toggle("paused", paused);
  if (!paused) return;
  for (const control of document.querySelectorAll("#actions button, #hand button")) {
    control.disabled = true;
    control.setAttribute("aria-disabled", "true");
  }
}
