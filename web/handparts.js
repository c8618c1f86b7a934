// The pieces the review of a hand is drawn from (review.js puts them together): the
// seats with the cards they hold at a step, the middle of each step (the stock, the
// bids, the trick, the result), and the check of the deal. Everything is drawn from the
// hand's record alone, so the same pieces serve the room and the read-only replay page.

import { botName, num, signed, t } from "./i18n.js";
import { h } from "./dom.js";
import { SUIT_SYMBOL, cardFace, cardName, cardShort, sortHand } from "./cards.js";
import { scoresByTeam } from "./games.js";
import { fairLine } from "./fairview.js";

/** A seat's name in the record ("Seat 3" for one nobody held). */
export function nameIn(record, seat) {
  if (seat === null || seat === undefined) return "";
  const s = (record.seats || []).find((x) => x.seat === seat);
  if (!s || !s.name || s.kind === "empty") return t("seat.n", { n: seat + 1 });
  return s.kind === "bot" ? botName(s.name) : s.name;
}

export function sideIn(record, side) {
  return (side || []).map((s) => nameIn(record, s)).join(" & ");
}

/** The column name of a scoring unit: its letter where units have several seats. */
export function unitLabel(record, book, i) {
  const team = record.teams[i] || [];
  return scoresByTeam(book) ? `${t("team.n", { n: String.fromCharCode(65 + i) })} (${sideIn(record, team)})` : sideIn(record, team);
}

/** One card face up, small, with its name for screen readers. */
export function smallCard(card, extra = "") {
  return h("span", { class: `rcard${extra}`, role: "img", "aria-label": cardName(card), dataset: { rcard: card } }, cardFace(card));
}

function cardRow(cards, label) {
  return h(
    "div",
    { class: "rcards", role: "group", "aria-label": label },
    cards.length ? cards.map((c) => smallCard(c)) : h("span", { class: "muted" }, "—"),
  );
}

function trumpText(suit) {
  return suit ? `${SUIT_SYMBOL[suit]} ${t(`suit.${suit}`)}` : t("trump.none");
}

/** The line under the title: dealer, bid, trump, the called card. */
export function handLine(record, book, facts) {
  const r = record.result || {};
  const parts = [t("review.dealer", { name: nameIn(record, record.dealer) })];
  if (r.bidder !== null && r.bidder !== undefined) parts.push(t("bid.by", { name: nameIn(record, r.bidder), n: r.bid }));
  parts.push(`${t("trump")}: ${trumpText(facts.trump)}`);
  if (book.called_partner && facts.called) {
    parts.push(facts.called.card ? t("call.called", { card: cardShort(facts.called.card) }) : t("call.alone_now"));
  }
  return parts.join(" · ");
}

/** The seats, each with the cards it holds at `step` (and at the exchange, what went). */
export function seatsAt(record, book, facts, step) {
  const r = record.result || {};
  const trump = step.kind === "deal" || step.kind === "bidding" ? null : facts.trump;
  const n = record.hands.length;
  return h(
    "ol",
    { class: "review-seats" },
    Array.from({ length: n }, (_, seat) => {
      const team = (record.teams || []).findIndex((tm) => tm.includes(seat));
      const badges = [];
      if (seat === record.dealer) badges.push(h("span", { class: "badge dealer", title: t("seat.dealer") }, "D"));
      if (seat === r.bidder) badges.push(h("span", { class: "badge bid won-bid" }, t("bid.short", { n: r.bid })));
      const playedNow = step.kind === "trick" && step.trick.cards.some((p) => p.seat === seat);
      const name = nameIn(record, seat);
      return h(
        "li",
        { class: `review-seat team-${team}${playedNow && step.trick.winner === seat ? " took" : ""}`, dataset: { seat: String(seat) } },
        h("div", { class: "seat-top" }, h("span", { class: "seat-name" }, name), badges),
        cardRow(sortHand(step.hands[seat], trump, book), t("review.hand_of", { name })),
        step.kind === "exchange" ? exchangeOf(facts, seat) : null,
      );
    }),
  );
}

function exchangeOf(facts, seat) {
  const gone = facts.discarded[seat];
  const drew = facts.drew[seat];
  if (!gone.length && !drew.length) return h("p", { class: "muted small" }, t("review.kept_all"));
  return h(
    "div",
    { class: "review-exchange" },
    h("span", { class: "muted" }, t("review.discarded")),
    cardRow(gone, t("review.discarded")),
    h("span", { class: "muted" }, t("review.drew")),
    cardRow(drew, t("review.drew")),
  );
}

/** The middle of the step: what happened at it. */
export function middleOf(record, book, facts, step) {
  if (step.kind === "deal") {
    const label = book.kitty ? t("review.kitty") : t("review.stock");
    return h("div", { class: "review-middle" }, h("h3", {}, label), cardRow(record.stock || [], label));
  }
  if (step.kind === "bidding") {
    return h(
      "div",
      { class: "review-middle" },
      h(
        "ol",
        { class: "review-bids", "aria-label": t("bid.list") },
        facts.bids.map((b) =>
          h("li", {}, `${nameIn(record, b.seat)}: `, b.amount === null ? t("bid.pass") : h("strong", {}, num(b.amount))),
        ),
      ),
      h("p", {}, `${t("trump")}: `, h("strong", { class: facts.trump ? `suit-${facts.trump}` : "" }, trumpText(facts.trump))),
      book.called_partner && facts.called
        ? h("p", {}, facts.called.card ? t("call.called", { card: cardShort(facts.called.card) }) : t("call.alone_now"))
        : null,
    );
  }
  if (step.kind === "exchange") return h("div", { class: "review-middle" }, h("p", {}, t("review.exchange_help")));
  if (step.kind === "trick") return trickOf(record, step.trick);
  return resultOf(record, book);
}

/** A trick: each card with who played it, the winning one marked, who took it. */
export function trickOf(record, trick, names = (s) => nameIn(record, s)) {
  return h(
    "div",
    { class: "review-middle review-trick" },
    h(
      "ol",
      { class: "trick-cards" },
      trick.cards.map((p) =>
        h(
          "li",
          { class: p.seat === trick.winner ? "won" : "", dataset: { seat: String(p.seat) } },
          smallCard(p.card),
          h("span", { class: "trick-who" }, p.seat === trick.winner ? "★ " : "", names(p.seat)),
        ),
      ),
    ),
    h(
      "p",
      { class: "trick-taker" },
      trick.winner === null || trick.winner === undefined ? t("review.taker_unknown") : t("trick.won", { name: names(trick.winner) }),
    ),
  );
}

function pointNames(result, book) {
  const points = Object.keys(result.points || {});
  const order = (book.points || []).filter((p) => points.includes(p));
  return [...order, ...points.filter((p) => !order.includes(p))];
}

/** The result: made or set, who took each point, the score changes. */
export function resultOf(record, book) {
  const r = record.result || {};
  const rows = pointNames(r, book).map((p) => {
    const side = r.points[p];
    const by = r.by ? r.by[p] : null;
    let who;
    if (side === null || side === undefined) who = p === "game" ? t("summary.tie") : t("summary.not_in_play");
    else if (by === null || by === undefined) who = sideIn(record, r.sides[side]);
    else who = r.sides[side].length > 1 ? `${nameIn(record, by)} (${sideIn(record, r.sides[side])})` : nameIn(record, by);
    return h("tr", { dataset: { point: p } }, h("th", { scope: "row" }, t(`point.${p}`)), h("td", {}, who));
  });
  return h(
    "div",
    { class: "review-middle review-result" },
    h(
      "p",
      { class: `verdict ${r.made ? "made" : "set"}` },
      t("summary.bid", { name: nameIn(record, r.bidder), n: r.bid }),
      " ",
      h("strong", {}, r.made ? t("summary.made") : t("summary.set")),
    ),
    h("table", { class: "points" }, h("tbody", {}, rows)),
    h(
      "ul",
      { class: "deltas" },
      (r.deltas || []).map((d, i) =>
        h("li", {}, `${unitLabel(record, book, i)}: `, h("strong", {}, signed(d)), ` → ${num((record.scores || [])[i] ?? 0)}`),
      ),
    ),
  );
}

/** The check of the deal and what it was made from (seed, each seat's commitment and
 * value; a value withheld says so plainly). */
export function dealPanel(record, outcome) {
  const deal = record.deal || {};
  const withheld = new Set(deal.withheld || []);
  const value = (seat) => {
    const e = (deal.entropy || [])[seat];
    if (withheld.has(seat)) return h("strong", { class: "fair-withheld", dataset: { withheld: String(seat) } }, `⚠ ${t("review.withheld")}`);
    return e ? h("code", {}, e) : h("span", { class: "muted" }, t("review.no_entropy"));
  };
  const commit = (seat) => {
    const c = (deal.commits || [])[seat];
    return c ? [h("dt", {}, t("review.commit_of", { name: nameIn(record, seat) })), h("dd", {}, h("code", {}, c))] : [];
  };
  return h(
    "details",
    { class: "review-deal" },
    h("summary", {}, fairLine(outcome, record.n)),
    h(
      "dl",
      { class: "deal-facts" },
      h("dt", {}, t("review.commitment")),
      h("dd", {}, h("code", {}, deal.commitment || "—")),
      h("dt", {}, t("review.seed")),
      h("dd", {}, h("code", {}, deal.server_seed || "—")),
      (record.seats || []).map((s) => [
        ...commit(s.seat),
        h("dt", {}, t("review.entropy_of", { name: nameIn(record, s.seat) })),
        h("dd", {}, value(s.seat)),
      ]),
    ),
    outcome && outcome.mine ? h("p", { class: "muted" }, t("fair.mine")) : null,
    h("p", { class: "muted small" }, t("review.check_yourself")),
  );
}
