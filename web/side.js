// The side panels around the game: taking a seat (join), the invite link, the chat,
// and leaving. Each has a builder for its fixed part of the page frame where it needs
// one, and a render function that follows the room state.

import { num, t } from "./i18n.js";
import { $, fill, h } from "./dom.js";
import { actionButton } from "./actions.js";
import { isSeated, joinSeat, legalOf, room, savedName, seatInfo, seatName, sendChat, teamLetter } from "./state.js";
import { seatTitle } from "./bots.js";

// ---------------------------------------------------------------- join

/** The join panel's frame: the name field (kept while the seats are redrawn). */
export function joinPanel() {
  const nameInput = h("input", {
    id: "name",
    name: "name",
    maxlength: "24",
    autocomplete: "nickname",
    value: savedName(),
    "aria-label": t("join.name"),
    placeholder: t("join.name"),
  });
  return h(
    "div",
    { id: "join", class: "card-panel join", hidden: true },
    h("h2", {}, t("join.title")),
    h("label", { class: "field" }, h("span", {}, t("join.name")), nameInput),
    h("div", { id: "join-seats" }),
    h("p", { id: "join-error", class: "form-status", role: "status" }),
  );
}

/** The seats one may take, by team: an empty seat, or a bot's (hand and all). */
export function renderJoin() {
  const v = room.view;
  const box = $("join");
  const open = v.seats.filter((s) => s.kind !== "human");
  box.hidden = isSeated() || open.length === 0 || v.phase === "game_over";
  if (box.hidden) return;
  const teams = v.teams.map((team, i) =>
    h(
      "div",
      { class: `join-team team-${i}` },
      teamLetter(i) ? h("span", { class: "team-letter" }, teamLetter(i)) : null,
      team.map(seatButton),
    ),
  );
  fill($("join-seats"), h("p", { class: "muted" }, t("join.pick")), h("div", { class: "join-teams" }, teams));
  renderJoinError();
}

function seatButton(seat) {
  const s = seatInfo(seat);
  const label =
    s.kind === "empty"
      ? t("join.sit", { n: seat + 1 })
      : s.kind === "bot"
        ? t("join.take_over", { name: seatTitle(seat), n: seat + 1 })
        : `${s.name} (${num(seat + 1)})`;
  return h(
    "button",
    {
      type: "button",
      class: "seat-pick",
      disabled: s.kind === "human",
      dataset: { action: "join", seat: String(seat) },
      onclick: () => {
        const input = $("name");
        const name = input.value.trim();
        joinSeat(name, seat);
        if (!name) input.focus();
      },
    },
    label,
  );
}

export function renderJoinError() {
  const el = $("join-error");
  if (el) el.textContent = room.joinError;
}

// ---------------------------------------------------------------- invite

export function renderInvite() {
  const v = room.view;
  const el = $("invite");
  el.hidden = v.phase !== "lobby";
  if (el.hidden) return;
  const link = `${location.origin}/r/${encodeURIComponent(room.code)}`;
  const input = h("input", { id: "invite-link", readonly: true, value: link, "aria-label": t("invite.link") });
  const copied = h("span", { class: "muted", role: "status" });
  const copy = async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(link);
      copied.textContent = t("invite.copied");
    } catch {
      copied.textContent = t("invite.select");
    }
  };
  fill(
    el,
    h("h2", {}, t("invite.title")),
    h("p", { class: "muted" }, t("invite.help")),
    h(
      "div",
      { class: "row" },
      input,
      h("button", { type: "button", dataset: { action: "copy" }, onclick: copy }, t("invite.copy")),
    ),
    copied,
  );
}

// ---------------------------------------------------------------- chat

/** The chat panel's frame: the log and the form (the input keeps what is being typed). */
export function chatPanel() {
  const input = h("input", {
    id: "chat-input",
    maxlength: "300",
    autocomplete: "off",
    "aria-label": t("chat.say"),
    placeholder: t("chat.say"),
  });
  const form = h(
    "form",
    {
      id: "chat-form",
      class: "chat-form",
      onsubmit: (ev) => {
        ev.preventDefault();
        const text = input.value.trim();
        if (text) sendChat(text);
      },
    },
    input,
    h("button", { type: "submit", dataset: { action: "chat" } }, t("chat.send")),
  );
  return h(
    "section",
    { class: "card-panel chat" },
    h("h2", {}, t("chat.title")),
    h("ol", { id: "chat-log", class: "chat-log", "aria-live": "polite" }),
    form,
  );
}

export function renderChat() {
  const log = $("chat-log");
  if (!log) return;
  fill(
    log,
    room.chat.map((m) => h("li", {}, h("strong", {}, m.name || seatName(m.seat)), ": ", m.text)),
  );
  log.scrollTop = log.scrollHeight;
  // Our line came back from the room: the field is cleared (unless already retyped).
  const input = $("chat-input");
  if (input && room.chatSent !== null) {
    if (input.value.trim() === room.chatSent) input.value = "";
    room.chatSent = null;
  }
  renderChatForm();
}

/** Only a seated player may chat. */
export function renderChatForm() {
  const form = $("chat-form");
  if (form) form.hidden = !isSeated();
}

// ---------------------------------------------------------------- leave

/**
 * Leaving hands the seat to a bot (or frees it in the lobby). The server accepts it
 * from any seated player, listed in `legal` or not. It sits at the bottom of the page,
 * away from the thumb; a mistaken leave is undone by taking the seat back from the bot.
 */
export function renderLeave() {
  const v = room.view;
  const el = $("leave");
  el.hidden = !isSeated();
  if (el.hidden) {
    fill(el);
    return;
  }
  const leave = legalOf("leave")[0] || { type: "leave" };
  fill(
    el,
    h("p", { class: "muted" }, v.phase === "lobby" ? t("leave.lobby") : t("leave.game")),
    actionButton(leave, t("leave"), { class: "quiet" }),
  );
}
