// The action panel: what this player may do now, one render function per phase.
//
// Every button is one entry of the server's `view.legal`, sent exactly as listed (the
// discard sends the cards picked in the hand, within the template's min..max). A phase
// function returns the panel's parts; `renderActions` adds the "waiting for …" line, the
// "Hint" button on the player's turn (unless the room's `hints` rule is off), and hides
// the panel when it is empty. A hint marks the button (or card) it suggests, and says it
// in words; it never acts for the player.

import { num, t } from "./i18n.js";
import { $, h, patch } from "./dom.js";
import { SUITS, SUIT_SYMBOL, cardName, cardShort, isJoker, plainRank } from "./cards.js";
import { askHint, cancelMove, legalOf, room, seatName, send, trickShown } from "./state.js";
import { hintsOn } from "./bots.js";
import { actionButton } from "./buttons.js";
import { fillButton, lobbyWait, seatList } from "./seats.js";
import { gameOverParts } from "./rematch.js";
import { optionText, points } from "./coachwords.js";

const PHASES = {
  lobby: lobbyPanel,
  bidding: biddingPanel,
  trump: trumpPanel,
  discard: discardPanel,
  call: callPanel,
  play: playPanel,
  hand_over: handOverPanel,
  game_over: gameOverPanel,
  // The deal is due and waits (at most a moment) for the players' revealed values.
  deal: () => [h("p", { class: "muted dealing" }, t("deal.revealing"))],
};

// In these phases nobody is "awaited": there is no "waiting for …" line.
const NO_WAITING = new Set(["lobby", "deal", "hand_over", "game_over"]);

export function renderActions() {
  const v = room.view;
  const el = $("actions");
  const mine = (v.turn || []).includes(v.you);
  const parts = PHASES[v.phase] ? PHASES[v.phase](v, mine) : [];
  if (!mine && !NO_WAITING.has(v.phase)) {
    const names = (v.turn || []).map(seatName);
    if (names.length) parts.push(h("p", { class: "waiting" }, t("wait.for", { names: names.join(", ") })));
  }
  if (room.pending) parts.push(pendingRow());
  else if (mine && !NO_WAITING.has(v.phase) && v.legal.length && hintsOn() && !trickShown()) parts.push(hintRow());
  // Patched, not replaced: a button being pressed as another move comes stays the same node.
  patch(el, parts);
  el.hidden = parts.length === 0;
  announce(el);
}

/** The panel's title said once to screen readers (a live region that outlives redraws). */
function announce(panel) {
  const region = $("announce");
  const text = panel.querySelector(".panel-title")?.textContent || "";
  if (region && region.textContent !== text) region.textContent = text;
}

/** The move sent and not answered yet; after a while, a way to give it up. */
function pendingRow() {
  const p = room.pending;
  return h(
    "div",
    { class: `pending-row${p.slow ? " slow" : ""}`, role: "status" },
    h("span", {}, p.slow ? t("move.slow") : t("move.sending")),
    p.slow
      ? h("button", { type: "button", class: "secondary small", dataset: { action: "cancel_move" }, onclick: cancelMove }, t("move.cancel"))
      : null,
  );
}

export { actionButton };

/** The "Hint" button, and what the last hint suggests, in words. */
function hintRow() {
  const hinted = room.hint?.action;
  return h(
    "div",
    { class: "hint-row" },
    h("button", { type: "button", class: "secondary small", dataset: { action: "hint" }, onclick: askHint }, t("hint.ask")),
    hinted ? h("p", { class: "hint-text", role: "status" }, t("hint.suggest", { what: hintWords(hinted) })) : null,
    hinted && room.hint.options ? hintWhy(room.hint.options) : null,
  );
}

/** Why the hint: the values of the options the bot's search weighed (points for your side). */
function hintWhy(options) {
  const values = options.map((o) => `${optionText(o.action)} ${points(o.value)}`).join(" · ");
  return h("p", { class: "muted small hint-why", dataset: { hint: "why" } }, t("hint.why", { values }));
}

/** An action in words: what a hint suggests, what the bot played when time ran out. */
export function hintWords(a) {
  if (a.type === "play") return cardName(a.card);
  if (a.type === "discard") return a.cards.length ? t("hint.discard", { cards: a.cards.map(cardName).join(", ") }) : t("discard.none");
  if (a.type === "bid") return t("bid.aria", { n: a.amount });
  if (a.type === "pass") return t("bid.pass");
  if (a.type === "trump") return t(`suit.${a.suit}`);
  if (a.type === "call") return a.card ? cardName(a.card) : t("call.alone");
  return a.type;
}

function title(text) {
  return h("h2", { class: "panel-title" }, text);
}

function row(...buttons) {
  return h("div", { class: "button-row" }, buttons);
}

/** This hand's bids, in view from the bidding until the play starts. */
function bidsMade(v) {
  const bids = v.bids || [];
  return h(
    "div",
    { class: "bids-made", "aria-label": t("bid.list") },
    bids.length === 0
      ? h("span", { class: "muted" }, t("bid.none_yet"))
      : bids.map((b) =>
          h("span", { class: "bid-entry" }, `${seatName(b.seat)}: `, b.amount === null ? t("bid.pass") : num(b.amount)),
        ),
  );
}

// ---------------------------------------------------------------- one function per phase

function lobbyPanel(v) {
  const start = legalOf("start")[0];
  const buttons = [fillButton(), start ? actionButton(start, t("lobby.start"), { class: "primary big" }) : null].filter(Boolean);
  const empty = v.seats.filter((s) => s.kind === "empty").length;
  // The buttons come first: on a phone they are what the thumb is looking for.
  return [
    h(
      "div",
      { class: "lobby" },
      h("h2", { class: "panel-title" }, t("lobby.title")),
      h("p", { class: "muted lobby-wait" }, empty ? t("lobby.need", { count: empty }) : lobbyWait(v)),
      buttons.length ? h("div", { class: "button-row lobby-buttons" }, buttons) : null,
      seatList(v),
    ),
  ];
}

function biddingPanel(v) {
  const parts = [bidsMade(v)];
  const bids = legalOf("bid");
  const pass = legalOf("pass")[0];
  if (bids.length || pass) {
    parts.push(title(t("bid.your_turn")));
    parts.push(
      row(
        bids.map((b) =>
          actionButton(b, num(b.amount), { class: "primary bid-button", "aria-label": t("bid.aria", { n: b.amount }) }),
        ),
        pass ? actionButton(pass, t("bid.pass"), { class: "secondary" }) : null,
      ),
    );
  }
  return parts;
}

function trumpPanel(v) {
  const parts = [bidsMade(v)];
  const suits = legalOf("trump");
  if (!suits.length) return parts;
  // Where trump is committed in secret (and shown by the first lead), say so.
  if (room.book.secret_trump) {
    parts.push(title(t("trump.commit")), h("p", { class: "muted" }, t("trump.commit_help")));
  } else {
    parts.push(title(t("trump.choose")));
  }
  const buttons = SUITS.map((s) => suits.find((a) => a.suit === s))
    .filter(Boolean)
    .map((a) =>
      actionButton(a, [h("span", { class: "suit-sym", "aria-hidden": "true" }, SUIT_SYMBOL[a.suit]), " ", t(`suit.${a.suit}`)], {
        class: `trump-button suit-${a.suit}`,
      }),
    );
  parts.push(row(buttons));
  return parts;
}

function discardPanel(v) {
  const parts = [bidsMade(v)];
  const d = legalOf("discard")[0];
  if (!d) return parts;
  const n = room.selected.size;
  const ok = n >= d.min && n <= d.max;
  parts.push(title(d.min === d.max ? t("discard.exact", { count: d.min }) : t("discard.range", { min: d.min, count: d.max })));
  parts.push(h("p", { class: "muted" }, t("discard.help", { count: n })));
  const discard = () => {
    const cards = [...room.selected];
    if (cards.length >= d.min && cards.length <= d.max) send({ type: "discard", cards });
  };
  parts.push(
    row(
      h(
        "button",
        { type: "button", class: "primary", disabled: !ok, dataset: { action: "discard" }, onclick: discard },
        n === 0 && d.min === 0 ? t("discard.none") : t("discard.do", { count: n }),
      ),
    ),
  );
  return parts;
}

// The call picker's columns: the suits, then the jokers.
const CALL_COLUMNS = ["S", "H", "C", "D", "X"];

function callPanel(v) {
  const parts = [bidsMade(v)];
  const calls = legalOf("call");
  if (!calls.length) return parts;
  parts.push(title(t("call.title")), h("p", { class: "muted" }, t("call.help")));
  const bySuit = new Map();
  for (const c of calls) {
    if (!c.card) continue;
    const key = isJoker(c.card) ? "X" : c.card[1];
    if (!bySuit.has(key)) bySuit.set(key, []);
    bySuit.get(key).push(c);
  }
  const byRank = (a, b) => plainRank(room.book, a.card) - plainRank(room.book, b.card);
  parts.push(
    h(
      "div",
      { class: "call-grid" },
      CALL_COLUMNS.filter((k) => bySuit.has(k)).map((k) =>
        h(
          "div",
          { class: `call-suit suit-${k}` },
          bySuit
            .get(k)
            .sort(byRank)
            // Named by content, as the hand's cards: "10♠" shown, "Ten of spades" said.
            .map((c) =>
              actionButton(c, [h("span", { "aria-hidden": "true" }, cardShort(c.card)), h("span", { class: "sr-only" }, cardName(c.card))], {
                class: `call-card suit-${k}`,
              }),
            ),
        ),
      ),
    ),
  );
  if (calls.some((c) => !c.card)) {
    parts.push(row(actionButton({ type: "call", card: null }, t("call.alone"), { class: "secondary" })));
  }
  return parts;
}

function playPanel(v, mine) {
  if (!mine || !legalOf("play").length) return [];
  // The last trick is still on the table: the turn is shown once it has gone.
  return trickShown() ? [h("p", { class: "muted" }, t("play.after_trick"))] : [title(t("play.your_turn"))];
}

function handOverPanel() {
  return [h("p", { class: "muted" }, t("hand.next_soon"))];
}

function gameOverPanel(v) {
  return gameOverParts(v);
}
