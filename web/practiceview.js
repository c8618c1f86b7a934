// A practice room's own panel (docs/protocol.md, "Practice from a position"): which hand
// of which room it plays again, and from which step, with the way back to that room;
// once the hand is scored, its result beside the original hand's, side by side, and
// how every table that played the deal did (tables.js), with the way to deal it again.

import { signed, t } from "./i18n.js";
import { $, alreadyShows, fill, h } from "./dom.js";
import { room, seatName, teamLabel } from "./state.js";
import { tablesPanel } from "./tables.js";

// The tables panel is made once per practice room and kept across renders (it fetches
// the comparison when made, and holds the focus of its own controls).
let tables = null;

/** The panel's place in the room's page (hidden in any room but a practice room). */
export function practicePanel() {
  tables = null;
  return h(
    "section",
    { id: "practice", class: "card-panel practice", "aria-labelledby": "practice-title", hidden: true },
    h("div", { id: "practice-body" }),
    h("div", { id: "practice-tables" }),
  );
}

export function renderPractice() {
  const el = $("practice");
  const v = room.view;
  if (!el) return;
  if (!v || !v.practice) {
    el.hidden = true;
    fill($("practice-body"));
    fill($("practice-tables"));
    tables = null;
    return;
  }
  const p = v.practice;
  el.hidden = false;
  const scored = Boolean(v.original && v.last_hand);
  const key = `${p.room}:${p.hand}`;
  if (!scored) {
    fill($("practice-tables"));
    tables = null;
  } else if (!tables || tables.key !== key) {
    tables = { key, el: tablesPanel(p.room, p.hand) };
    fill($("practice-tables"), tables.el);
  }
  const drawnFrom = JSON.stringify([p, scored ? [v.last_hand, v.original, v.seats.map((s) => s.name)] : null]);
  // Drawn again only when that changes: the bots' frames in a practice room leave the
  // keyboard on "Back to the room".
  if (alreadyShows($("practice-body"), drawnFrom)) return;
  fill(
    $("practice-body"),
    h("h2", { id: "practice-title" }, t("practice.title")),
    h("p", { dataset: { practiceOf: `${p.room}:${p.hand}:${p.step}` } }, t("practice.about", { n: p.hand, room: p.room, step: p.step })),
    v.original && v.last_hand ? compare(v.last_hand, v.original) : null,
    h("a", { href: `/r/${encodeURIComponent(p.room)}`, class: "button-link quiet", dataset: { practice: "back" } }, t("practice.back")),
  );
}

function verdict(last) {
  return `${t("summary.bid", { name: seatName(last.bidder), n: last.bid })} ${last.made ? t("summary.made") : t("summary.set")}`;
}

/** This hand's result and the original's, side by side: the contract, each side's points. */
function compare(here, original) {
  const row = (label, a, b, data = {}) => h("tr", { dataset: data }, h("th", { scope: "row" }, label), h("td", {}, a), h("td", {}, b));
  return h(
    "table",
    { id: "practice-compare", class: "points practice-compare" },
    h("caption", {}, t("practice.compare")),
    h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, t("practice.here")), h("th", { scope: "col" }, t("practice.original")))),
    h(
      "tbody",
      {},
      row(t("practice.contract"), verdict(here), verdict(original), { made: `${here.made}:${original.made}` }),
      (here.deltas || []).map((d, i) => row(teamLabel(i), signed(d), signed((original.deltas || [])[i] ?? 0), { side: String(i) })),
    ),
  );
}
