// The running tally of a hand: what each side holds so far, from what everyone at the
// table sees (the finished tricks, who took them, and trump once it is public), so it
// never tells more than the view does. High and low go to whoever played the highest
// and the lowest natural trump so far (they may still change hands); the jacks and
// jokers to the side that took their trick; and each side's count towards "game" from
// the cards of the tricks it took (`card_values` of the rule book). Where the bidder's
// discards count for game (`banks_discards`), that is said, not counted: only the
// bidder sees them.
//
// The sides are the view's scoring units where they are fixed teams; where the bidder
// calls a partner in secret, each player's own tricks (the view says who the partner
// is only once everyone may know it, or to the partner).

import { t } from "./i18n.js";
import { $, fill, h, patch } from "./dom.js";
import { room, seatName, teamIndex, teamLetter, sideLabel } from "./state.js";
import { pointTerm } from "./terms.js";

const SAME_COLOUR = { S: "C", C: "S", H: "D", D: "H" };

/** The card that earns a point taken with its trick, by the point's name. */
function pointCard(point, trump, book) {
  if (point === "right" || point === "jack") return `J${trump}`;
  if (point === "left") return book.left_bauer ? `J${SAME_COLOUR[trump]}` : null;
  if (point === "joker" || point === "joker1") return book.jokers[0] || null;
  if (point === "joker2") return book.jokers[1] || null;
  return null;
}

/** The sides to count for: fixed teams, else one per player. */
function sides(v) {
  return room.book.fixed_teams ? v.teams : v.seats.map((s) => [s.seat]);
}

/** What each side holds so far: {points: [names], game: n} per side, or null. */
export function tallyOf(v, book) {
  const tricks = v.tricks || [];
  if (!v.trump || !tricks.length) return null;
  const all = sides(v);
  const sideOf = (seat) => all.findIndex((side) => side.includes(seat));
  const held = all.map(() => ({ points: [], game: 0 }));
  const order = book.trump_order[v.trump] || [];
  const jokers = new Set(book.jokers);
  let high = null;
  let low = null;
  for (const trick of tricks) {
    for (const { seat, card } of trick.cards) {
      const at = order.indexOf(card);
      if (at >= 0 && (high === null || at < high.at)) high = { at, seat };
      if (at >= 0 && !jokers.has(card) && (low === null || at > low.at)) low = { at, seat };
      held[sideOf(trick.winner)].game += book.card_values?.[card] || 0;
    }
  }
  for (const point of book.points) {
    let seat = null;
    if (point === "high") seat = high?.seat ?? null;
    else if (point === "low") seat = low?.seat ?? null;
    else {
      const card = pointCard(point, v.trump, book);
      const trick = card && tricks.find((tr) => tr.cards.some((c) => c.card === card));
      seat = trick ? trick.winner : null;
    }
    if (seat !== null && sideOf(seat) >= 0) held[sideOf(seat)].points.push(point);
  }
  return held;
}

function sideName(side) {
  if (!room.book.fixed_teams) return seatName(side[0]);
  const letter = teamLetter(teamIndex(side[0]));
  return letter ? `${letter} · ${sideLabel(side)}` : sideLabel(side);
}

/** The tally in the side column, during the play of a hand (from its first trick). */
export function renderTally() {
  const el = $("tally");
  const v = room.view;
  if (!el || !v) return;
  const held = v.phase === "play" ? tallyOf(v, room.book) : null;
  el.hidden = held === null;
  if (el.hidden) {
    fill(el);
    return;
  }
  const all = sides(v);
  const rows = all.map((side, i) =>
    h(
      "tr",
      { dataset: { side: String(i) } },
      h("th", { scope: "row" }, sideName(side)),
      h("td", {}, held[i].points.length ? held[i].points.flatMap((p, k) => (k ? [", ", pointTerm(p)] : [pointTerm(p)])) : h("span", { class: "muted" }, t("tally.nothing"))),
      h("td", { class: "num" }, t("tally.game", { n: held[i].game })),
    ),
  );
  patch(
    el,
    h("h2", {}, t("tally.title")),
    h("table", { class: "tally-table" }, h("tbody", {}, rows)),
    h("p", { class: "muted small" }, t("tally.help"), room.book.banks_discards ? [" ", t("tally.discards")] : null),
  );
}
