// The hand summary (who took each point, in the rule book's `points` order; the game
// totals; the bid, made or set; the score changes; each player's accuracy by the coach,
// handcoach.js) and the score sheet (one row a hand, from the room state's sheet, kept
// across reloads by state.js).

import { num, signed, t } from "./i18n.js";
import { $, alreadyShows, fill, h } from "./dom.js";
import { room, seatName, sideLabel, teamIndex, teamLabel, teamLetter } from "./state.js";
import { lastHandTools, openHand } from "./reviewopen.js";
import { resumeSummaryCoach, summaryCoach } from "./handcoach.js";
import { pointTerm } from "./terms.js";

/** The points of `last` in the order the game reports them (any the book omits last). */
function pointNames(last) {
  const points = Object.keys(last.points || {});
  const order = room.book.points.filter((p) => points.includes(p));
  return [...order, ...points.filter((p) => !order.includes(p))];
}

function pointRow(last, p) {
  const side = last.points[p];
  const by = last.by ? last.by[p] : null;
  let who;
  if (side === null || side === undefined) who = p === "game" ? t("summary.tie") : t("summary.not_in_play");
  else if (by === null || by === undefined) who = sideLabel(last.sides[side]);
  else if (last.sides[side].length > 1) who = `${seatName(by)} (${sideLabel(last.sides[side])})`;
  else who = seatName(by);
  return h("tr", { dataset: { point: p } }, h("th", { scope: "row" }, pointTerm(p)), h("td", {}, who));
}

let wasRecent = null; // whether the summary drawn last was of a hand that had just ended

/**
 * The summary of the last hand, drawn again only when what it says changes: every move
 * of the next hand sends a state, and a summary drawn anew at each would take the
 * keyboard off its toggle and its buttons, and a selection out of its text. Its
 * fairness line and its coach are drawn in place when they change (render.js, `deals`).
 */
export function renderSummary() {
  const v = room.view;
  const el = $("summary");
  const last = v.last_hand;
  if (!last) {
    fill(el);
    el.hidden = true;
    return;
  }
  el.hidden = false;
  // Open by itself when the hand has just ended; folded once the next hand is dealt;
  // between the two as the player left it (opened to read the coach, say).
  const recent = ["hand_over", "game_over"].includes(v.phase);
  const drawn = $("hand-summary");
  const key = JSON.stringify([room.code, last, recent, v.scores, v.seats.map((s) => [s.kind, s.name])]);
  if (alreadyShows(el, key)) return;
  const open = drawn && recent === wasRecent ? drawn.open : recent;
  wasRecent = recent;
  // The game totals in the order of the sides (A, B, C), not the bidder's side first.
  const totals = (last.game_totals || [])
    .map((n, i) => ({ n, side: last.sides[i], at: Math.min(...last.sides[i].map(teamIndex)) }))
    .sort((a, b) => a.at - b.at)
    .map(({ n, side }) => `${sideLabel(side)}: ${num(n)}`)
    .join(" · ");
  const deltas = (last.deltas || []).map((d, i) =>
    h(
      "li",
      { class: d < 0 ? "neg" : d > 0 ? "pos" : "" },
      `${teamLabel(i)}: `,
      h("strong", {}, signed(d)),
      ` → ${num(v.scores[i])}`,
    ),
  );
  fill(
    el,
    h(
      "details",
      { class: "card-panel hand-summary", open, id: "hand-summary", ontoggle: resumeSummaryCoach },
      h("summary", {}, h("h2", { class: "inline" }, recent ? t("summary.title") : t("summary.last"))),
      h(
        "p",
        { class: `verdict ${last.made ? "made" : "set"}` },
        t("summary.bid", { name: seatName(last.bidder), n: last.bid }),
        " ",
        h("strong", {}, last.made ? t("summary.made") : t("summary.set")),
      ),
      h("table", { class: "points" }, h("tbody", {}, pointNames(last).map((p) => pointRow(last, p)))),
      totals ? h("p", { class: "muted" }, t("summary.game_totals"), ": ", totals) : null,
      h("ul", { class: "deltas" }, deltas),
      lastHandTools(),
      summaryCoach(coachInReview),
    ),
  );
}

/** The review of hand `n` opened at its coach (handcoach.js's "each decision"). */
export function coachInReview(n) {
  openHand(n, { coach: true });
}

/**
 * The score sheet, drawn again only when a row or a name changes: a phone's player who
 * swiped it sideways to a column, or a keyboard on it, keeps their place while the
 * hand is played.
 */
export function renderSheet() {
  const el = $("sheet");
  if (!el) return;
  const entries = room.sheet.entries;
  const v = room.view;
  const key = JSON.stringify([room.code, entries, v ? v.teams : null, v ? v.seats.map((s) => [s.kind, s.name]) : null]);
  if (alreadyShows(el, key)) return;
  const heading = h("h2", {}, t("sheet.title"));
  if (!entries.length || !v) {
    fill(el, heading, h("p", { class: "muted" }, t("sheet.empty")));
    return;
  }
  // A column per scoring unit: its letter, or the player's name where each plays alone.
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, "#"),
    h("th", { scope: "col" }, t("sheet.bid")),
    v.teams.map((team, i) =>
      h("th", { scope: "col", class: "team-col", title: teamLabel(i) }, teamLetter(i) ?? seatName(team[0])),
    ),
  );
  const rows = entries.map((e) =>
    h(
      "tr",
      {},
      // The room's number of the hand, as the history and the replay link have it.
      h("td", {}, e.n === undefined ? "…" : num(e.n)),
      h("td", { class: "bid-cell" }, `${e.bidderName} ${num(e.bid)} `, h("span", { class: e.made ? "made" : "set" }, e.made ? "✓" : "✗")),
      (e.deltas || []).map((d, i) =>
        h(
          "td",
          { class: "num" },
          h("span", { class: d < 0 ? "neg" : "" }, signed(d)),
          h("br"),
          h("small", {}, e.scores ? num(e.scores[i]) : ""),
        ),
      ),
    ),
  );
  fill(
    el,
    heading,
    // Scrolled sideways when wider than the column: by the keyboard too (focusable).
    h("div", { id: "sheet-wrap", class: "sheet-wrap", tabindex: "0", role: "region", "aria-label": t("sheet.title") }, h("table", { class: "sheet-table" }, h("thead", {}, head), h("tbody", {}, rows))),
  );
}
