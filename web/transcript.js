// A hand as plain text, to paste into a message or a bug report: who sat where, every
// hand as dealt, the stock, the bids, the discards, each trick and who took it, the
// result, and what the deal was made from. Pure: from the record alone, in the page's
// language.

import { num, signed, t } from "./i18n.js";
import { SUIT_SYMBOL, cardShort } from "./cards.js";
import { gameLabel } from "./games.js";
import { handFacts } from "./steps.js";
import { nameIn, sideIn, unitLabel } from "./handparts.js";
import { withheldNames } from "./fairview.js";

const cards = (list) => (list.length ? list.map(cardShort).join(" ") : "—");

function outcomeText(outcome) {
  if (!outcome) return t("fair.checking");
  if (outcome.state === "verified") {
    const parts = [`✓ ${t("fair.verified")}`];
    if (outcome.revealed) parts.push(t("fair.revealed", { count: outcome.revealed }));
    if ((outcome.withheld || []).length) parts.push(t("fair.withheld", { names: withheldNames(outcome) }));
    return parts.join(" ");
  }
  if (outcome.state === "unchecked") return t("fair.problem.legacy");
  return `✗ ${t("fair.failed")} ${outcome.problems.map((p) => t(p.key, p.params)).join(" ")}`;
}

/** The transcript of `record` (the rule book `book`; `outcome` its deal's check). */
export function transcript(record, book, outcome, link) {
  const f = handFacts(record);
  const r = record.result || {};
  const name = (s) => nameIn(record, s);
  const lines = [];
  const add = (...parts) => lines.push(parts.join(""));
  add(`${t("review.title", { n: record.n })} · ${t("review.game", { n: record.game })} · ${gameLabel(record.variant)}`);
  if (link) add(link);
  add("");
  add(`${t("review.seats")}:`);
  for (const s of record.seats || []) add(`  ${num(s.seat + 1)}. ${name(s.seat)}${s.seat === record.dealer ? ` (${t("seat.dealer")})` : ""}`);
  add("");
  add(`${t("review.step.deal")}:`);
  f.dealt.forEach((hand, s) => add(`  ${name(s)}: ${cards(hand)}`));
  add(`  ${book.kitty ? t("review.kitty") : t("review.stock")}: ${cards(record.stock || [])}`);
  add("");
  add(`${t("review.step.bidding")}: `, f.bids.map((b) => `${name(b.seat)} ${b.amount === null ? t("bid.pass") : num(b.amount)}`).join(", "));
  add(`${t("trump")}: ${f.trump ? `${SUIT_SYMBOL[f.trump]} ${t(`suit.${f.trump}`)}` : t("trump.none")}`);
  if (book.called_partner && f.called) {
    add(f.called.card ? t("call.called", { card: cardShort(f.called.card) }) : t("call.alone_now"));
  }
  if (f.discarded.some((d) => d.length) || f.drew.some((d) => d.length)) {
    add("");
    add(`${t("review.step.exchange")}:`);
    f.discarded.forEach((gone, s) => {
      if (gone.length || f.drew[s].length) {
        add(`  ${name(s)}: ${t("review.discarded")} ${cards(gone)}; ${t("review.drew")} ${cards(f.drew[s])}`);
      }
    });
  }
  add("");
  f.tricks.forEach((trick, k) => {
    const played = trick.cards.map((p) => `${name(p.seat)} ${cardShort(p.card)}`).join(", ");
    const taker = trick.winner === null || trick.winner === undefined ? t("review.taker_unknown") : t("trick.won", { name: name(trick.winner) });
    add(`${t("review.trick", { n: k + 1, total: f.tricks.length })}: ${played} — ${taker}`);
  });
  add("");
  add(`${t("summary.bid", { name: name(r.bidder), n: r.bid })} ${r.made ? t("summary.made") : t("summary.set")}`);
  const order = (book.points || []).filter((p) => p in (r.points || {}));
  for (const p of [...order, ...Object.keys(r.points || {}).filter((p) => !order.includes(p))]) {
    const side = r.points[p];
    const by = r.by ? r.by[p] : null;
    let who = side === null || side === undefined ? (p === "game" ? t("summary.tie") : t("summary.not_in_play")) : sideIn(record, r.sides[side]);
    if (by !== null && by !== undefined && side !== null && side !== undefined) who = name(by);
    add(`  ${t(`point.${p}`)}: ${who}`);
  }
  (r.deltas || []).forEach((d, i) => add(`  ${unitLabel(record, book, i)}: ${signed(d)} → ${num((record.scores || [])[i] ?? 0)}`));
  add("");
  const deal = record.deal || {};
  add(`${t("review.deal_check")}: ${outcomeText(outcome)}`);
  add(`  ${t("review.commitment")}: ${deal.commitment || "—"}`);
  add(`  ${t("review.seed")}: ${deal.server_seed || "—"}`);
  const withheld = new Set(deal.withheld || []);
  (deal.entropy || []).forEach((e, s) => {
    const commit = (deal.commits || [])[s];
    if (commit) add(`  ${t("review.commit_of", { name: name(s) })}: ${commit}`);
    add(`  ${t("review.entropy_of", { name: name(s) })}: ${withheld.has(s) ? t("review.withheld") : e || "—"}`);
  });
  add(`  ${t("review.deck")}: ${(deal.deck || []).join(" ")}`);
  return `${lines.join("\n")}\n`;
}
