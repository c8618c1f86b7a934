// A club's archive (GET /api/clubs/{code}/games): its finished games, searched by game,
// player and date, each with its hands, and each hand's review, drawn by review.js from
// the archived record (the room itself may be long gone). The admin deletes games here;
// anyone exports the whole club as JSON.

import { num, t } from "./i18n.js";
import { fill, h } from "./dom.js";
import { showToast } from "./page.js";
import { gameLabel, gameOf, games } from "./games.js";
import { useDeck } from "./cardface.js";
import { checkRecord } from "./fairness.js";
import { openReviewDialog } from "./review.js";
import { clubApi, clubEntry, loadInto, readKey } from "./clubkeys.js";
import { confirmButton, playerName, when } from "./clubwords.js";
import { save } from "./clubstats.js";

const PAGE = 30;

/** The panel: the filters, the list, the export. */
export function archivePanel(code, club) {
  const list = h("div", { class: "archive-list", "aria-live": "polite" });
  const variant = h(
    "select",
    { id: "archive-variant" },
    h("option", { value: "" }, t("club.any_game")),
    games().map((b) => h("option", { value: b.name }, gameLabel(b.name))),
  );
  const member = h(
    "select",
    { id: "archive-member" },
    h("option", { value: "" }, t("club.anyone")),
    club.members.map((m) => h("option", { value: m.member }, m.name)),
  );
  const before = h("input", { id: "archive-before", type: "date" });
  const search = () => load(code, club, list, { variant: variant.value, member: member.value, before: before.value });
  const form = h(
    "form",
    {
      class: "archive-filters",
      onsubmit: (ev) => {
        ev.preventDefault();
        search();
      },
    },
    h("label", { class: "field", for: "archive-variant" }, h("span", {}, t("home.game")), variant),
    h("label", { class: "field", for: "archive-member" }, h("span", {}, t("club.player")), member),
    h("label", { class: "field", for: "archive-before" }, h("span", {}, t("club.before")), before),
    h("button", { type: "submit", dataset: { action: "archive-search" } }, t("club.search")),
  );
  const exporter = h("button", { type: "button", class: "secondary", dataset: { action: "club-export" }, onclick: () => exportClub(code) }, t("club.export"));
  search();
  return h(
    "section",
    { class: "card-panel club-archive", "aria-labelledby": "club-archive-title" },
    h("h2", { id: "club-archive-title" }, t("club.archive")),
    form,
    list,
    exporter,
  );
}

function load(code, club, list, filters) {
  const query = new URLSearchParams({ limit: String(PAGE) });
  for (const [k, v] of Object.entries(filters)) if (v) query.set(k, k === "before" ? `${v}T23:59:59.999` : v);
  return loadInto(list, code, `/games?${query}`, (games) =>
    games.length
      ? h("ol", { class: "games" }, games.map((game) => gameItem(code, club, game)))
      : h("p", { class: "muted", dataset: { archive: "empty" } }, t("club.no_games")),
  );
}

function gameItem(code, club, game) {
  const units = game.teams.map((seats, unit) => ({
    unit,
    names: seats.map((seat) => playerName(game.players.find((p) => p.seat === seat) || {})),
    score: game.scores[unit],
    won: game.winners.includes(unit),
  }));
  const hands = h("div", { class: "game-hands" });
  const toggle = h(
    "button",
    {
      type: "button",
      class: "secondary small",
      "aria-expanded": "false",
      dataset: { action: "game-hands", game: game.id },
      onclick: async () => {
        const open = toggle.getAttribute("aria-expanded") === "true";
        toggle.setAttribute("aria-expanded", String(!open));
        if (open) {
          fill(hands);
          return;
        }
        await showHands(code, game, hands);
      },
    },
    t("club.hands", { count: game.hands }),
  );
  const admin = clubEntry(code).admin && club.you.admin;
  const remove = admin
    ? confirmButton(t("club.delete_game"), t("club.delete_confirm"), () => deleteGame(code, game, remove), { class: "quiet small", dataset: { action: "delete-game" } })
    : null;
  return h(
    "li",
    { class: "game", dataset: { game: game.id } },
    h("h3", {}, `${gameLabel(game.variant)} · ${when(game.finished_at)}`),
    h(
      "ul",
      { class: "game-units" },
      units.map((u) =>
        h("li", { class: u.won ? "won" : "" }, u.won ? h("span", { class: "sr-only" }, `${t("club.winner")}: `) : null, u.won ? "★ " : "", u.names.join(" & "), " · ", num(u.score)),
      ),
    ),
    h("div", { class: "row wrap" }, toggle, remove),
    hands,
  );
}

async function showHands(code, game, box) {
  fill(box, h("p", { class: "muted" }, t("club.loading")));
  const res = await clubApi("GET", `/api/clubs/${encodeURIComponent(code)}/games/${encodeURIComponent(game.id)}`, readKey(code));
  if (res.status !== 200) {
    fill(box, h("p", { class: "form-status" }, t("review.missing")));
    return;
  }
  const records = res.data.hands;
  const book = gameOf(game.variant);
  fill(
    box,
    h(
      "ol",
      { class: "hand-list" },
      records.map((record) =>
        h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: "quiet small",
              dataset: { action: "review-archived", hand: String(record.n) },
              onclick: () => review(record, book),
            },
            t("club.review_hand", { n: record.n, bid: num(record.result.bid) }),
          ),
        ),
      ),
    ),
  );
}

function review(record, book) {
  useDeck(book);
  openReviewDialog(
    null,
    record.n,
    book,
    async () => record,
    (r) => ({ ...checkRecord(r, book.deck, "absent"), mine: false }),
  );
}

async function deleteGame(code, game, button) {
  const res = await clubApi("DELETE", `/api/clubs/${encodeURIComponent(code)}/games/${encodeURIComponent(game.id)}`, clubEntry(code).admin);
  if (res.status === 204) {
    button.closest("li.game")?.remove();
    return;
  }
  showToast(t("club.err.unavailable"));
}

async function exportClub(code) {
  const res = await clubApi("GET", `/api/clubs/${encodeURIComponent(code)}/export`, readKey(code));
  if (res.status !== 200) {
    showToast(t("club.err.unavailable"));
    return;
  }
  save(`club-${code}.json`, "application/json", `${JSON.stringify(res.data, null, 2)}\n`);
}
