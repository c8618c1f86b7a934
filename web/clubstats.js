// A club's standings in one game (GET /api/clubs/{code}/standings): the players with
// their rating, the rating chart, partnerships and head to head, and the CSV.

import { num, t } from "./i18n.js";
import { h } from "./dom.js";
import { gameLabel, games } from "./games.js";
import { clubApi, loadInto, readKey } from "./clubkeys.js";
import { playerName } from "./clubwords.js";
import { ratingChart } from "./ratingchart.js";

const VARIANT_KEY = "schmier.club.variant";

function chosenVariant() {
  const names = games().map((b) => b.name);
  const saved = localStorage.getItem(VARIANT_KEY);
  return names.includes(saved) ? saved : names[0];
}

function table(caption, columns, rows, cls) {
  return h(
    "div",
    { class: "table-scroll", tabindex: "0", role: "region", "aria-label": caption },
    h(
      "table",
      { class: `club-table ${cls}` },
      h("caption", { class: "sr-only" }, caption),
      h("thead", {}, h("tr", {}, columns.map((c, i) => h("th", { scope: "col", class: i ? "num" : "" }, c)))),
      h("tbody", {}, rows),
    ),
  );
}

function percent(x) {
  return `${num(Math.round(x * 100))} %`;
}

/** The panel; it loads the standings of the game picked (kept for the next visit). */
export function standingsPanel(code) {
  const body = h("div", { class: "standings-body", "aria-live": "polite" }, h("p", { class: "muted" }, t("club.loading")));
  const picker = h(
    "select",
    {
      id: "standings-variant",
      onchange: () => {
        localStorage.setItem(VARIANT_KEY, picker.value);
        load(code, picker.value, body);
      },
    },
    games().map((b) => h("option", { value: b.name, selected: b.name === chosenVariant() }, gameLabel(b.name))),
  );
  const csv = h("button", { type: "button", class: "secondary", dataset: { action: "standings-csv" }, onclick: () => downloadCsv(code, picker.value) }, t("club.csv"));
  load(code, picker.value, body);
  return h(
    "section",
    { class: "card-panel club-standings", "aria-labelledby": "club-standings-title" },
    h("h2", { id: "club-standings-title" }, t("club.standings")),
    h("div", { class: "row wrap" }, h("label", { for: "standings-variant" }, t("home.game")), picker, csv),
    body,
  );
}

function load(code, variant, body) {
  return loadInto(body, code, `/standings?variant=${variant}`, standingsView);
}

function standingsView(data) {
  if (!data.players.length) return h("p", { class: "muted", dataset: { standings: "empty" } }, t("club.no_games"));
  const players = table(
    t("club.standings"),
    [t("club.player"), t("club.rating"), t("club.games"), t("club.wins"), t("club.win_rate"), t("club.points_per_hand"), t("club.bids"), t("club.made"), t("club.set")],
    data.players.map((p) =>
      h(
        "tr",
        { dataset: { player: p.member || `bot:${p.bot}` } },
        h("th", { scope: "row" }, playerName(p)),
        [num(p.rating), num(p.games), num(p.wins), percent(p.win_rate), num(p.points_per_hand), num(p.bids), num(p.made), num(p.set)].map((v) => h("td", { class: "num" }, v)),
      ),
    ),
    "standings-table",
  );
  const parts = [players, h("h3", {}, t("club.chart")), ratingChart(data.history, playerName)];
  if (data.partnerships.length) {
    parts.push(
      h("h3", {}, t("club.partnerships")),
      table(
        t("club.partnerships"),
        [t("club.pair"), t("club.games"), t("club.wins")],
        data.partnerships.map((p) =>
          h("tr", {}, h("th", { scope: "row" }, p.players.map(playerName).join(" & ")), h("td", { class: "num" }, num(p.games)), h("td", { class: "num" }, num(p.wins))),
        ),
        "pairs-table",
      ),
    );
  }
  if (data.head_to_head.length) {
    parts.push(
      h("h3", {}, t("club.head_to_head")),
      table(
        t("club.head_to_head"),
        [t("club.pair"), t("club.games"), t("club.ahead_first"), t("club.ahead_second"), t("club.even")],
        data.head_to_head.map((p) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, t("club.versus", { a: playerName(p.players[0]), b: playerName(p.players[1]) })),
            [num(p.games), num(p.ahead[0]), num(p.ahead[1]), num(p.even)].map((v) => h("td", { class: "num" }, v)),
          ),
        ),
        "versus-table",
      ),
    );
  }
  parts.push(h("p", { class: "muted small" }, t("club.rating_help")));
  return parts;
}

async function downloadCsv(code, variant) {
  const res = await clubApi("GET", `/api/clubs/${encodeURIComponent(code)}/standings.csv?variant=${variant}`, readKey(code));
  if (res.status !== 200 || typeof res.data !== "string") return;
  save(`standings-${variant}.csv`, "text/csv;charset=utf-8", res.data);
}

/** Hand `text` to the browser as a file named `name`. */
export function save(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
