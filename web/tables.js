// Another table and the tables compared (docs/protocol.md, "Another table"), under the
// review of a finished hand and in a practice room once its hand is scored:
//
// - "Play this deal at another table" makes a practice room of the hand's deal with
//   every seat open (POST /api/rooms/{code}/hands/{n}/practice) and gives its link, to
//   hand to whoever should play it: a club's other table, friends elsewhere;
// - "How each table played this deal" (GET …/tables) puts the original beside every
//   table that has played it out, seat by seat: who sat there and what the seat scored,
//   the contract and whether it was made, and the way to each table's own review
//   (tablesteps.js steps through two of them side by side, trick by trick).
//
// Names reach the page as text only (dom.js `h`); a seat the bot played has no name.

import { botName, signed, t } from "./i18n.js";
import { fill, h } from "./dom.js";
import { api } from "./net.js";
import { copyLink } from "./page.js";
import { compareSteps } from "./tablesteps.js";

let made = 0; // panels made on this page, for their ids

/** The panel for hand `n` of room `code`. */
export function tablesPanel(code, n) {
  const id = `tables-${++made}`;
  const status = h("p", { class: "form-status", role: "status" });
  const share = h("div", { class: "tables-share" });
  const board = h("div", { class: "tables-board" }, h("p", { class: "muted" }, t("tables.loading")));
  const steps = h("div", { class: "tables-steps" });
  const path = `/api/rooms/${encodeURIComponent(code)}/hands/${n}`;
  let stepsFor = null; // the tables the steps were made for

  const load = async () => {
    let res;
    try {
      res = await api("GET", `${path}/tables`);
    } catch {
      res = null;
    }
    if (!res || res.status !== 200 || !res.data) {
      fill(board, h("p", { class: "muted" }, t(res && res.status === 404 ? "review.missing" : "err.network")));
      return;
    }
    fill(board, comparison(res.data, id));
    // The steps are made again only when the tables are others: a reload after "Play
    // this deal at another table" (whose table has not played yet) or "Refresh" must
    // not throw away the two tables the player is stepping through.
    const key = JSON.stringify(res.data.tables.map((table) => [table.room, table.hand]));
    if (key === stepsFor) return;
    stepsFor = key;
    fill(steps, res.data.tables.length > 1 ? compareSteps(res.data.tables, id) : null);
  };

  const another = async () => {
    button.disabled = true;
    status.textContent = "";
    let res;
    try {
      res = await api("POST", `${path}/practice`);
    } catch {
      res = null;
    }
    button.disabled = false;
    if (!res || res.status !== 201 || !res.data || !res.data.code) {
      const reasons = { 409: "tables.full", 429: "err.too_many_attempts", 404: "review.missing" };
      status.textContent = t((res && reasons[res.status]) || "err.network");
      return;
    }
    fill(share, shareLink(res.data.code, id));
    load();
  };

  const button = h("button", { type: "button", class: "secondary", dataset: { tables: "new" }, onclick: another }, t("tables.new"));
  const refresh = h("button", { type: "button", class: "quiet", dataset: { tables: "refresh" }, onclick: load }, t("tables.refresh"));
  load();
  return h(
    "section",
    { class: "card-panel tables-panel", "aria-labelledby": `${id}-title`, dataset: { tablesOf: `${code}:${n}` } },
    h("h3", { id: `${id}-title` }, t("tables.title")),
    h("p", { class: "muted small" }, t("tables.help")),
    h("div", { class: "button-row" }, button, refresh),
    status,
    share,
    board,
    steps,
  );
}

/** The new table's link, to copy or follow. */
function shareLink(code, id) {
  const link = `${location.origin}/r/${encodeURIComponent(code)}`;
  const copied = h("span", { class: "muted", role: "status" });
  const input = h("input", { readonly: true, value: link, class: "review-link", id: `${id}-link`, dataset: { tables: "link" } });
  const copy = () => copyLink(input, copied, link);
  return [
    h("label", { for: `${id}-link` }, t("tables.ready")),
    h(
      "div",
      { class: "row review-share" },
      input,
      h("button", { type: "button", dataset: { tables: "copy" }, onclick: copy }, t("invite.copy")),
      h("a", { href: `/r/${encodeURIComponent(code)}`, class: "button-link quiet", dataset: { tables: "go" } }, t("tables.go")),
    ),
    copied,
  ];
}

/** A seat's name at one table: its player's, else who played it. */
export function seatLabel(table, k) {
  const seat = table.seats[k] || {};
  if (seat.name) return seat.kind === "bot" ? botName(seat.name) : seat.name;
  return seat.kind === "human" ? t("seat.n", { n: k + 1 }) : t("tables.bot", { n: k + 1 });
}

/** A table's column title: the original, or the table's number. */
export function tableTitle(table, i) {
  return table.original ? t("tables.original") : t("tables.table_n", { n: i + 1 });
}

/** Every table side by side: one column each, a row for the contract and one per seat. */
function comparison(data, id) {
  const tables = data.tables;
  const seats = tables[0].seats.length;
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, t("tables.seat")),
    tables.map((table, i) =>
      h(
        "th",
        { scope: "col", dataset: { table: table.room } },
        tableTitle(table, i),
        table.step ? h("span", { class: "muted small" }, ` · ${t("tables.from_step", { step: table.step })}`) : null,
        " ",
        h("a", { href: `/r/${encodeURIComponent(table.room)}/h/${Number(table.hand)}`, class: "small", dataset: { tables: "review" } }, t("tables.review")),
      ),
    ),
  );
  const contract = h(
    "tr",
    { dataset: { row: "contract" } },
    h("th", { scope: "row" }, t("practice.contract")),
    tables.map((table) =>
      h(
        "td",
        { dataset: { made: String(table.made) } },
        `${t("summary.bid", { name: seatLabel(table, table.bidder), n: table.bid })} ${table.made ? t("summary.made") : t("summary.set")}`,
      ),
    ),
  );
  const rows = [];
  for (let k = 0; k < seats; k++) {
    rows.push(
      h(
        "tr",
        { dataset: { seat: String(k) } },
        h("th", { scope: "row" }, t("seat.n", { n: k + 1 })),
        tables.map((table) =>
          h("td", {}, h("span", { class: "tables-name" }, seatLabel(table, k)), " ", h("strong", { dataset: { points: String(table.points[k]) } }, signed(table.points[k]))),
        ),
      ),
    );
  }
  return [
    h(
      "div",
      { class: "tables-scroll", role: "region", tabindex: "0", "aria-labelledby": `${id}-caption` },
      h(
        "table",
        { class: "points tables-compare", dataset: { tables: "compare" } },
        h("caption", { id: `${id}-caption` }, t("tables.caption")),
        h("thead", {}, head),
        h("tbody", {}, contract, rows),
      ),
    ),
    tables.length === 1 ? h("p", { class: "muted small" }, t("tables.none")) : null,
    data.playing ? h("p", { class: "muted small", dataset: { tables: "playing" } }, t("tables.playing", { n: data.playing })) : null,
  ];
}
