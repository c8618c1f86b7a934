// The room's history (GET /api/rooms/{code}/history): every game the room has played,
// each with its score sheet (kept across rematches), a review of any of its hands, the
// check of each deal, and the statistics of every player name across the games.
//
// Fetched when the panel is opened, and again after each hand scored while it is open;
// what was fetched last is this panel's own (it changes nothing of the room).

import { botName, num, signed, t } from "./i18n.js";
import { $, fill, h } from "./dom.js";
import { api } from "./net.js";
import { scoresByTeam } from "./games.js";
import { room } from "./state.js";
import { fairMark } from "./fairview.js";
import { openHand } from "./reviewopen.js";
import { pointTerm } from "./terms.js";

const panel = { open: false, data: null, failed: false, loading: false };

// A hand weighed by the coach (coach.js, handcoach.js): the game's accuracy changes.
document.addEventListener("schmier:analysis", (ev) => {
  if (ev.detail && ev.detail.status === 200) refreshHistory();
});

/** The panel's frame in the side column (filled by renderHistory). */
export function historyPanel() {
  const details = h(
    "details",
    {
      id: "history",
      class: "card-panel history",
      ontoggle: () => {
        panel.open = details.open;
        if (panel.open) refreshHistory();
      },
    },
    h("summary", {}, h("h2", { class: "inline" }, t("history.title"))),
    h("div", { id: "history-body" }),
  );
  details.open = panel.open;
  return details;
}

/** Fetch the history again, if the panel is open (a hand was scored, say). */
export async function refreshHistory() {
  if (!panel.open || panel.loading || !room.code) return;
  panel.loading = true;
  try {
    const res = await api("GET", `/api/rooms/${encodeURIComponent(room.code)}/history`);
    panel.failed = res.status !== 200 || !res.data;
    if (!panel.failed) panel.data = res.data;
  } catch {
    panel.failed = true;
  } finally {
    panel.loading = false;
  }
  renderHistory();
}

function names(seats, team) {
  return team
    .map((s) => {
      const seat = seats.find((x) => x.seat === s) || {};
      if (!seat.name) return t("seat.n", { n: s + 1 });
      return seat.kind === "bot" ? botName(seat.name) : seat.name;
    })
    .join(" & ");
}

function gameSheet(data, game) {
  const teams = data.teams;
  const letters = room.book && scoresByTeam(room.book);
  const unit = (i) => (letters ? String.fromCharCode(65 + i) : names(game.seats, teams[i]));
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, "#"),
    h("th", { scope: "col" }, t("sheet.bid")),
    teams.map((team, i) => h("th", { scope: "col", class: "team-col", title: names(game.seats, team) }, unit(i))),
    h("th", { scope: "col" }, h("span", { class: "sr-only" }, t("history.deal")), "⚖"),
  );
  const rows = game.hands.map((hand) =>
    h(
      "tr",
      { dataset: { hand: String(hand.n) } },
      h(
        "td",
        {},
        h(
          "button",
          { type: "button", class: "small quiet", dataset: { review: "open", hand: String(hand.n) }, "aria-label": t("history.review", { n: hand.n }), onclick: () => openHand(hand.n) },
          num(hand.n),
        ),
      ),
      h(
        "td",
        { class: "bid-cell" },
        `${names(game.seats, [hand.bidder])} ${num(hand.bid)} `,
        h("span", { class: hand.made ? "made" : "set" }, hand.made ? "✓" : "✗"),
      ),
      hand.deltas.map((d, i) =>
        h("td", { class: "num" }, h("span", { class: d < 0 ? "neg" : "" }, signed(d)), h("br"), h("small", {}, num(hand.scores[i]))),
      ),
      h("td", {}, fairMark(room.deals && room.deals.results.get(hand.n), hand.n)),
    ),
  );
  const winners = (game.winners || []).map((i) => names(game.seats, teams[i])).join(", ");
  return h(
    "section",
    { class: "history-game", dataset: { game: String(game.game) } },
    h(
      "h3",
      {},
      t("history.game", { n: game.game }),
      " · ",
      h("span", { class: "muted" }, game.over ? t("game.winners", { names: winners }) : t("history.playing")),
    ),
    game.hands.length
      ? h(
          "div",
          { class: "sheet-wrap", tabindex: "0", role: "region", "aria-label": t("history.game", { n: game.game }) },
          h("table", { class: "sheet-table" }, h("thead", {}, head), h("tbody", {}, rows)),
        )
      : h("p", { class: "muted" }, t("sheet.empty")),
    accuracyLine(game),
  );
}

/** The seats' accuracy over the game's hands the coach has weighed (none: nothing). */
function accuracyLine(game) {
  const seats = game.accuracy || [];
  if (!seats.length) return null;
  const hands = seats[0].hands;
  return h(
    "p",
    { class: "muted small history-accuracy", dataset: { coach: "accuracy" } },
    `${t("history.accuracy", { n: hands })} `,
    seats.map((s) => `${botName(s.name)} ${num(Math.round(s.accuracy))}`).join(" · "),
  );
}

function statistics(data) {
  const points = (room.book && room.book.points.length ? room.book.points : Object.keys((data.players[0] || {}).points || {}));
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, t("history.player")),
    h("th", { scope: "col", title: t("history.hands_help") }, t("history.hands")),
    h("th", { scope: "col", title: t("history.bids_help") }, t("history.bids")),
    h("th", { scope: "col" }, "✓"),
    h("th", { scope: "col" }, "✗"),
    points.map((p) => h("th", { scope: "col" }, pointTerm(p))),
  );
  const rows = data.players.map((p) =>
    h(
      "tr",
      { dataset: { player: p.name } },
      h("th", { scope: "row" }, botName(p.name)),
      h("td", { class: "num" }, num(p.hands)),
      h("td", { class: "num" }, num(p.bids)),
      h("td", { class: "num" }, num(p.made)),
      h("td", { class: "num" }, num(p.set)),
      points.map((k) => h("td", { class: "num" }, num((p.points || {})[k] || 0), h("small", {}, ` (${num((p.earned || {})[k] || 0)})`))),
    ),
  );
  return h(
    "section",
    { class: "history-stats" },
    h("h3", {}, t("history.stats")),
    h("p", { class: "muted small" }, t("history.stats_help")),
    // Wider than the side column: it scrolls sideways (a visible bar, the arrow keys once
    // focused), the players' names staying in sight at its left.
    h(
      "div",
      { class: "sheet-wrap stats-wrap", tabindex: "0", role: "region", "aria-label": t("history.stats") },
      h("table", { class: "sheet-table stats-table" }, h("thead", {}, head), h("tbody", {}, rows)),
    ),
  );
}

/** Draw what was fetched last. */
export function renderHistory() {
  const el = $("history-body");
  if (!el) return;
  const data = panel.data;
  if (!data) {
    fill(el, h("p", { class: "muted" }, panel.failed ? t("err.network") : t("review.loading")));
    return;
  }
  const games = [...data.games].reverse().filter((g) => g.hands.length || !g.over);
  fill(
    el,
    games.map((g) => gameSheet(data, g)),
    data.players.length ? statistics(data) : null,
  );
}
