// The rules of a game, in the page's language: a page of its own (`/rules/{game}`, linked
// from the home page) and the same text over the table in a dialog (the game's name in
// the top bar opens it), so a player never has to leave the game to read them.
//
// Everything that differs from game to game comes from the game's rule book (seats,
// teams, the deck, the trump order, the bids, who discards, the points, the house
// rules: GET /api/variants), the words from the rules catalogues (web/i18n/help/, fetched
// only when a rules page opens) and the point names' explanations (terms.js). It is the
// project's own account of the rules (docs/rules.md), shortened to what a player needs.

import { loadHelp, num, t } from "./i18n.js";
import { h } from "./dom.js";
import { choiceLabel, gameAbout, gameLabel, gameOf, games, ruleLabel } from "./games.js";
import { cardShort, rankLabel, useDeck } from "./cards.js";
import { shell } from "./page.js";

const HAND = 6;
const SAMPLE_TRUMP = "H"; // the trump order is shown for hearts, as docs/rules.md does

function ruleValue(spec, value) {
  if (spec.type === "bool") return value ? t("help.on") : t("help.off");
  if (spec.off !== undefined && value === spec.off) return t("timer.off");
  if (spec.type === "choice") return choiceLabel(spec.name, value);
  return num(value);
}

/** The rules of the game of `book`, headings from level `level` down. */
export function rulesOf(book, level = 1) {
  useDeck(book);
  const head = (k, text) => h(`h${Math.min(level + k, 6)}`, {}, text);
  const target = book.rules.find((r) => r.name === "target");
  const anytime = book.rules.find((r) => r.name === "trump_anytime");
  const pairs = book.teams.map((team) => t("help.pair", { a: num(team[0] + 1), b: num(team[1] + 1) }));
  const plain = book.plain_order;
  const order = book.trump_order[SAMPLE_TRUMP] || [];
  const steps = [
    t("help.deal", { n: num(book.deck.length - HAND * book.seats) }),
    [t("help.bidding", { max: num(book.bids.max) }), book.rules.some((r) => r.name === "stick_the_dealer") ? [" ", ruleLabel("stick_the_dealer"), "."] : null],
    book.secret_trump ? t("help.trump_secret") : t("help.trump_named"),
    book.discards === "all" ? t("help.discard_all") : t("help.discard_bidder"),
    book.called_partner ? t("help.call") : null,
    [t("help.play"), anytime ? [" ", anytime.default ? t("help.trump_anytime_on") : t("help.trump_anytime_off")] : null],
  ].filter(Boolean);
  return h(
    "article",
    { class: "rules-text", dataset: { rules: book.name } },
    head(0, t("help.title", { game: gameLabel(book.name) })),
    gameAbout(book.name) ? h("p", { class: "muted" }, gameAbout(book.name)) : null,
    head(1, t("help.glance")),
    h(
      "ul",
      {},
      h("li", {}, t("help.players", { n: num(book.seats) })),
      h("li", {}, book.fixed_teams ? t("help.teams_fixed", { pairs: pairs.join(", ") }) : t("help.teams_called")),
      h("li", {}, t("help.deck", { cards: num(book.deck.length), low: rankLabel(plain[plain.length - 1]), jokers: num(book.jokers.length) })),
      h("li", {}, t("help.bids", { min: num(book.bids.min), max: num(book.bids.max), target: num(target ? target.default : 21) })),
    ),
    head(1, t("help.trumps")),
    h("p", {}, t("help.trump_cards"), book.left_bauer ? [" ", t("help.left_bauer")] : null),
    h("p", {}, t("help.trump_order")),
    h("ol", { class: "card-order" }, order.map((card) => h("li", { class: `suit-${card[1]}` }, cardShort(card)))),
    h("p", {}, t("help.plain_order", { order: plain.map(rankLabel).join(" ") })),
    head(1, t("help.hand")),
    h("ol", { class: "rules-steps" }, steps.map((step) => h("li", {}, step))),
    head(1, t("help.points")),
    h(
      "dl",
      { class: "rules-points" },
      book.points.map((p) => [h("dt", {}, t(`point.${p}`)), h("dd", {}, t(`point.${p}.help`))]),
    ),
    h("p", {}, t("help.scoring")),
    h("p", {}, t("help.end")),
    head(1, t("help.house")),
    h(
      "ul",
      {},
      book.rules.map((r) => h("li", {}, ruleLabel(r.name), " — ", t("help.default", { value: ruleValue(r, r.default) }))),
    ),
    h("p", { class: "muted small" }, t("help.more")),
  );
}

/** The page `/rules/{name}`: the rules of one game, and the way to start a room. */
export async function showRulesPage(name) {
  await loadHelp();
  const known = games().some((b) => b.name === name);
  document.title = known ? `${gameLabel(name)} · Schmier` : "Schmier";
  shell(
    h(
      "main",
      { class: "home rules-page" },
      h(
        "div",
        { class: "card-panel" },
        known ? rulesOf(gameOf(name), 1) : h("h1", {}, t("help.unknown")),
        h("p", {}, h("a", { href: "/", class: "button-link" }, t("help.home"))),
      ),
    ),
  );
}

/** The rules of the game of `book` over the current page (the table), in a dialog. */
export async function openRulesDialog(book) {
  await loadHelp();
  document.getElementById("rules-dialog")?.remove();
  const opener = document.activeElement;
  const dialog = h(
    "dialog",
    { class: "rules-dialog", id: "rules-dialog", "aria-label": t("rules.link", { game: gameLabel(book.name) }) },
    h("div", { class: "dialog-bar" }, h("button", { type: "button", class: "secondary small", dataset: { action: "close-rules" }, onclick: () => dialog.close() }, t("review.close"))),
    rulesOf(book, 2),
  );
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (opener && opener.isConnected) opener.focus({ preventScroll: true });
  });
  document.body.append(dialog);
  dialog.showModal();
}
