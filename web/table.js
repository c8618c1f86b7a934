// The table: the top bar's game name and trump chip, the scoreboard, and the felt with
// the seats around it (name, badges, bid, card count) and the cards of the trick.

import { num, t } from "./i18n.js";
import { $, h, patch } from "./dom.js";
import { SUIT_SYMBOL, cardFace, cardName, cardShort, isRed } from "./cards.js";
import { gameLabel } from "./games.js";
import { room, seatName, teamIndex, teamLabel, teamLetter } from "./state.js";
import { seatTitle } from "./bots.js";
import { openRulesDialog } from "./help.js";
import { lobbyWait } from "./seats.js";
import { trickSpots } from "./trickspots.js";
import { timerRule } from "./timer.js";

function trumpText(v) {
  if (v.trump) return [SUIT_SYMBOL[v.trump], " ", t(`suit.${v.trump}`)];
  if (v.my_trump) return [SUIT_SYMBOL[v.my_trump], " ", t(`suit.${v.my_trump}`)];
  return [t("trump.none")];
}

export function renderTopbar() {
  const v = room.view;
  const el = $("topbar-mid");
  if (!el || !v) return;
  const suit = v.trump || v.my_trump;
  // Nothing is trump before the cards are dealt: no "Trump: not yet" in the lobby.
  const trump =
    v.phase === "lobby"
      ? null
      : h(
          "span",
          { class: `trump-chip ${suit ? `suit-${suit}` : ""}`, id: "trump" },
          h("span", { class: "label" }, t("trump"), ": "),
          trumpText(v),
        );
  // A secret trump says so beside the chip, free to go to a line of its own.
  const secret = !v.trump && v.my_trump && v.phase !== "lobby";
  // The game's name opens its rules over the table (help.js).
  const rules = h(
    "button",
    {
      type: "button",
      class: "variant-name",
      title: t("rules.link", { game: gameLabel(v.variant) }),
      dataset: { action: "rules" },
      onclick: () => openRulesDialog(room.book),
    },
    h("span", { class: "game-label" }, gameLabel(v.variant)),
    h("span", { class: "rules-mark", "aria-hidden": "true" }, "?"),
  );
  // Patched, as the table is: drawn anew, the whole bar was styled and laid out again
  // at every state.
  patch(
    el,
    rules,
    trump,
    secret ? h("span", { class: "secret" }, t("trump.secret")) : null,
    contract(v),
  );
}

/**
 * The contract, in the top bar beside the trump so that it stays in sight all hand long
 * (the centre of the table is covered by the trick): the winning bid, and where the
 * bidder calls a partner by a card, the card called (or that the bidder plays alone).
 */
function contract(v) {
  const parts = [];
  if (v.bidder !== null && v.bid !== null && !["lobby", "bidding"].includes(v.phase)) {
    parts.push(
      h(
        "span",
        { class: "chip bid-chip", dataset: { bid: String(v.bid) }, title: t("bid.by", { name: seatName(v.bidder), n: v.bid }) },
        t("bid.chip", { n: v.bid }),
      ),
    );
  }
  if (room.book.called_partner && ["play", "hand_over"].includes(v.phase)) {
    if (v.called) {
      parts.push(
        h(
          "span",
          { class: `chip called-chip${isRed(v.called) ? " red" : ""}`, dataset: { called: v.called }, title: cardName(v.called) },
          t("call.called", { card: cardShort(v.called) }),
        ),
      );
    } else if (v.phase === "play") {
      parts.push(h("span", { class: "chip called-chip", dataset: { called: "" } }, t("call.alone_now")));
    }
  }
  return parts.length ? h("span", { class: "contract", id: "contract" }, parts) : null;
}

export function renderScoreboard() {
  const v = room.view;
  patch(
    $("scoreboard"),
    h("span", { class: "target" }, t("score.target", { n: v.rules.target })),
    timerRule(v),
    v.teams.map((team, i) => {
      const letter = v.teams.length > 1 ? teamLetter(i) : null;
      const mine = team.includes(v.you) ? " mine" : "";
      const winner = (v.winners || []).includes(i) ? " winner" : "";
      return h(
        "div",
        { class: `score team-${i}${mine}${winner}`, dataset: { team: String(i) } },
        letter ? h("span", { class: "team-letter" }, letter) : null,
        h("span", { class: "score-names" }, teamLabel(i)),
        h("strong", { class: "score-value" }, num(v.scores[i])),
      );
    }),
  );
}

/** Where a seat sits on the round table, the viewer at the bottom. */
function relativeAngle(seat, n, me) {
  const r = (seat - me + n) % n;
  return ((90 + (r * 360) / n) * Math.PI) / 180;
}

export function renderTable() {
  const v = room.view;
  const el = $("table");
  if (!v || !el) return;
  const n = v.seats.length;
  const me = v.you ?? 0;
  // Each seat's measured half height (placeTrick) goes to its new chip, so that a chip
  // of the same height needs no new value, and no layout, at every state.
  const halves = new Map(
    [...el.querySelectorAll(".seat[data-seat]")].map((c) => [c.dataset.seat, c.style.getPropertyValue("--seat-h-half")]),
  );
  // And each card already on the table keeps the place placeTrick gave it.
  const places = new Map([...el.querySelectorAll(".played[data-seat]")].map((c) => [`${c.dataset.seat}:${c.dataset.played}`, c.style.cssText]));
  const seats = v.seats.map((s) => {
    const a = relativeAngle(s.seat, n, me);
    const chip = seatChip(v, s);
    // Kept whole inside the table's edge, whatever the table's size and the chip's.
    chip.style.left = `clamp(calc(var(--seat-w) / 2 + 4px), ${50 + 39 * Math.cos(a)}%, calc(100% - var(--seat-w) / 2 - 4px))`;
    chip.style.top = `clamp(var(--seat-h-half), ${50 + 41 * Math.sin(a)}%, calc(100% - var(--seat-h-half)))`;
    // Last, as placeTrick adds it: the same style in the same order is left as it is.
    const half = halves.get(String(s.seat));
    if (half) chip.style.setProperty("--seat-h-half", half);
    return chip;
  });
  const showing = room.held ? room.held.cards : v.trick || [];
  const winner = room.held ? room.held.winner : null;
  // Placed by placeTrick() once the whole page is drawn, when the seats have their size.
  const played = showing.map((p, i) => {
    const card = h(
      "div",
      {
        class: `played${p.seat === winner ? " won" : ""}`,
        role: "img",
        "aria-label": `${seatName(p.seat)}: ${cardName(p.card)}`,
        dataset: { played: p.card, seat: String(p.seat) },
      },
      cardFace(p.card),
    );
    const place = places.get(`${p.seat}:${p.card}`);
    if (place) card.style.cssText = place;
    card.style.zIndex = String(10 + i);
    return card;
  });
  // The centre is free only while no card lies there; the trick's winner is named in
  // a corner of the table, where the cards cannot cover it and nothing moves.
  const centre = h("div", { class: "centre" }, showing.length ? null : centreNote(v));
  const note =
    winner !== null && winner !== undefined
      ? h("p", { class: "trick-note", role: "status" }, "★ ", t("trick.won", { name: seatName(winner) }))
      : null;
  // The last state's note, if it had no corner and went to the bar under the table
  // (which lasttrick.js hides again if the hand has no trick).
  document.querySelector("#tricks-bar > .trick-note")?.remove();
  // Patched, not drawn anew: most states change a seat or two and a card, and what is
  // unchanged (the other seats, the cards already played) then costs the browser no new
  // style and no new layout.
  patch(el, h("div", { class: "felt" }), centre, seats, played, note);
  el.classList.toggle("in-lobby", v.phase === "lobby");
  // A hand's last trick, still held when the next is dealt (a long hold), keeps the
  // table at its playing height: on a phone the bidding's lower table crowded it.
  el.classList.toggle("holding", Boolean(room.held));
  el.classList.toggle(`seats-${n}`, true);
}

const SCALES = [1, 0.9, 0.8, 0.7]; // the trick's cards' sizes tried, until they fit

/**
 * Lay the trick's cards on the table, each in front of its player: on the line from
 * the table's centre to the player's seat, as near the seat as the seat leaves room for,
 * then pushed apart where they would cover one another or another seat (on a phone the
 * seats take much of the table, and a card on a plain ring round the centre covered
 * names). Each seat's spot is worked out whether or not it has played, so a card never
 * moves when the next is played. Called once the page is drawn (the turn's ring can
 * make a seat taller), when a ring shows or goes, and when the table's size changes;
 * the seats are first kept inside the table by their height.
 */
export function placeTrick() {
  const el = $("table");
  if (!el) return;
  // A chip taller than the stylesheet's guess (a long name on three lines, the turn's
  // ring) is kept inside the table by its own half height, measured once it has all it
  // shows: measured before the ring came, the player's own seat ran off the bottom.
  // All the heights are read before any is written: a write between two reads made the
  // browser lay the whole page out again for each seat.
  const chips = [...el.querySelectorAll(".seat[data-seat]")];
  const halves = chips.map((chip) => `${Math.ceil(chip.offsetHeight / 2) + 2}px`);
  chips.forEach((chip, i) => {
    if (chip.style.getPropertyValue("--seat-h-half") !== halves[i]) chip.style.setProperty("--seat-h-half", halves[i]);
  });
  const cards = [...el.querySelectorAll(".played[data-seat]")];
  if (!cards.length) return;
  const origin = el.getBoundingClientRect();
  const seats = chips.map((chip) => {
    const r = chip.getBoundingClientRect();
    const left = r.left - origin.left - el.clientLeft;
    const top = r.top - origin.top - el.clientTop;
    return { seat: chip.dataset.seat, left, top, right: left + r.width, bottom: top + r.height };
  });
  // A crowded table (five seats and a long name on a phone) has no room for the cards
  // at their full size: they are drawn a little smaller rather than over one another.
  const full = parseFloat(getComputedStyle(el).getPropertyValue("--played-w")) || 40;
  // Read once, before the cards are moved: read after a card's move, the table's size
  // made the browser lay the page out again for every card.
  const width = el.clientWidth;
  const height = el.clientHeight;
  let best = null;
  for (const scale of SCALES) {
    const laid = trickSpots(width, height, seats, full * scale);
    if (!best || laid.clashes < best.clashes) best = { ...laid, scale };
    if (!laid.clashes) break;
  }
  const w = full * best.scale;
  const tall = (w * 84) / 60;
  const laid = [];
  const set = (card, name, value) => {
    if (card.style.getPropertyValue(name) !== value) card.style.setProperty(name, value);
  };
  for (const card of cards) {
    const spot = best.spots.get(card.dataset.seat);
    if (!spot) continue;
    set(card, "left", `${spot.x}%`);
    set(card, "top", `${spot.y}%`);
    set(card, "width", best.scale < 1 ? `${w}px` : "");
    const x = (spot.x / 100) * width;
    const y = (spot.y / 100) * height;
    laid.push({ left: x - w / 2, top: y - tall / 2, right: x + w / 2, bottom: y + tall / 2 });
  }
  placeNote(el, [...seats, ...laid]);
}

// The corners the won trick's note may take, in order of preference.
const CORNERS = [[], ["at-right"], ["at-top"], ["at-top", "at-right"]];

/**
 * The won trick's note ("★ Ann takes the trick") in the first corner of the table
 * where it covers no seat and no card: bottom left, else bottom right, top left, top
 * right. Where every corner covers something (the six-seat table on a phone under
 * 375 px: the bottom left lay over a seat, and a long name ran over the player's own),
 * it lies over the bar under the table instead, over its "Last trick" button: the
 * trick is on the table meanwhile, so the button is of no use until the note goes.
 */
function placeNote(el, boxes) {
  const bar = $("tricks-bar"); // drawn with the table (render.js)
  const note = el.querySelector(".trick-note") || bar.querySelector(":scope > .trick-note");
  if (!note) return;
  if (note.parentNode !== el) {
    if (note.classList.contains("alone")) bar.hidden = true; // shown for the note only
    el.append(note);
  }
  note.classList.remove("in-bar", "alone");
  // The cards' boxes are where they come to rest (`boxes`, in the table's pixels), not
  // where their motions have them now: measured as they slid in, a free corner was
  // taken for covered and a covered one for free.
  const origin = el.getBoundingClientRect();
  // A note that only touches a box (within a pixel: a 34% wide note beside the player's
  // seat) covers nothing.
  const covered = () => {
    const r = note.getBoundingClientRect();
    const left = r.left - origin.left - el.clientLeft + 1;
    const top = r.top - origin.top - el.clientTop + 1;
    const across = (b) => Math.max(0, Math.min(left + r.width - 2, b.right) - Math.max(left, b.left));
    const down = (b) => Math.max(0, Math.min(top + r.height - 2, b.bottom) - Math.max(top, b.top));
    return boxes.reduce((sum, b) => sum + across(b) * down(b), 0);
  };
  for (const corner of CORNERS) {
    note.classList.remove("at-right", "at-top");
    note.classList.add(...corner);
    if (covered() < 1) return;
  }
  note.classList.remove("at-right", "at-top");
  // The bar is hidden while the hand has no trick (a hand's last trick still held when
  // the next is dealt): then it shows for the note alone, which takes its room.
  note.classList.add("in-bar");
  note.classList.toggle("alone", bar.hidden);
  bar.hidden = false;
  bar.prepend(note);
}

function seatChip(v, s) {
  const turn = (v.turn || []).includes(s.seat);
  const cls = [`seat team-${teamIndex(s.seat)}`];
  if (turn) cls.push("turn");
  if (s.seat === v.you) cls.push("me");
  if (s.kind === "empty") cls.push("empty");
  return h(
    "div",
    { class: cls.join(" "), dataset: { seat: String(s.seat) }, role: "group", "aria-label": seatDescription(v, s) },
    h(
      "div",
      { class: "seat-top" },
      turn ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "▶") : null,
      // An empty seat is named by its number, as the join panel's "Sit in seat 4" says.
      h("span", { class: "seat-name" }, seatTitle(s.seat)),
      s.seat === v.dealer ? h("span", { class: "badge dealer", title: t("seat.dealer") }, "D") : null,
    ),
    h(
      "div",
      { class: "seat-meta" },
      // The host's star goes here, not beside the name, which keeps the chip's width.
      s.seat === v.host ? h("span", { class: "badge host-mark", title: t("seat.host"), "aria-hidden": "true" }, "★") : null,
      s.kind === "empty" ? h("span", { class: "badge empty" }, t("seat.empty")) : null,
      s.kind === "bot" ? h("span", { class: "badge bot" }, t("seat.bot")) : null,
      s.kind === "human" && !s.connected ? h("span", { class: "badge away" }, t("seat.away")) : null,
      v.phase !== "lobby"
        ? h("span", { class: "count", title: t("seat.cards", { count: s.cards }) }, `▮${num(s.cards)}`)
        : null,
      seatBidBadge(v, s.seat),
      v.partner === s.seat ? h("span", { class: "badge partner" }, t("seat.partner")) : null,
    ),
  );
}

function seatBidBadge(v, seat) {
  const bid = v.phase === "bidding" ? (v.bids || []).findLast((b) => b.seat === seat) : undefined;
  if (bid) {
    return h("span", { class: "badge bid" }, bid.amount === null ? t("bid.pass") : t("bid.short", { n: bid.amount }));
  }
  if (v.bidder === seat && v.bid !== null && v.phase !== "lobby") {
    return h("span", { class: "badge bid won-bid" }, t("bid.short", { n: v.bid }));
  }
  return null;
}

function seatDescription(v, s) {
  const parts = [seatTitle(s.seat)];
  if (s.kind === "empty") parts.push(t("seat.empty"));
  if (s.seat === v.you) parts.push(t("seat.you"));
  if (s.kind === "bot") parts.push(t("seat.bot"));
  if (s.kind === "human" && !s.connected) parts.push(t("seat.away"));
  if (s.seat === v.dealer) parts.push(t("seat.dealer"));
  if (s.seat === v.host) parts.push(t("seat.host"));
  if ((v.turn || []).includes(s.seat)) parts.push(t("seat.turn"));
  if (v.phase !== "lobby") parts.push(t("seat.cards", { count: s.cards }));
  return parts.join(", ");
}

function centreNote(v) {
  const lines = [];
  if (v.bidder !== null && v.bid !== null && v.phase !== "lobby") {
    lines.push(h("div", {}, t("bid.by", { name: seatName(v.bidder), n: v.bid })));
  }
  // A game whose bidder calls a partner by a card says which card, or that they play alone.
  if (room.book.called_partner && ["play", "hand_over"].includes(v.phase)) {
    if (v.called) lines.push(h("div", {}, t("call.called", { card: cardShort(v.called) })));
    else if (v.phase === "play") lines.push(h("div", {}, t("call.alone_now")));
  }
  if (v.phase === "lobby") lines.push(h("div", {}, lobbyWait(v)));
  return h("div", { class: "centre-note" }, lines);
}
