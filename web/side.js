// The side panels around the game: taking a seat (join), the invite link, this seat's
// own link for another device, the chat, and leaving. Each has a builder for its fixed
// part of the page frame where it needs one, and a render function that follows the
// room state.

import { num, t } from "./i18n.js";
import { $, alreadyShows, fill, h } from "./dom.js";
import { actionButton } from "./buttons.js";
import { getToken, savedName } from "./net.js";
import { joinSeat } from "./joining.js";
import { copyLink } from "./page.js";
import { isSeated, room, seatInfo, seatName, send, sendChat, teamLetter } from "./state.js";
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
    placeholder: t("join.name"),
    "aria-describedby": "join-error",
  });
  // The error ("Enter a name", "That name is taken") sits right under the field it is
  // about, not under the seats' buttons at the bottom of the panel.
  return h(
    "div",
    { id: "join", class: "card-panel join", hidden: true },
    h("h2", {}, t("join.title")),
    h("label", { class: "field" }, h("span", {}, t("join.name")), nameInput),
    h("p", { id: "join-error", class: "form-status field-error", role: "status" }),
    h("div", { id: "join-seats" }),
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
  if (!el) return;
  el.textContent = room.joinError;
  const input = $("name");
  if (input) input.setAttribute("aria-invalid", room.joinError ? "true" : "false");
}

// ---------------------------------------------------------------- invite

export function renderInvite() {
  const v = room.view;
  const el = $("invite");
  el.hidden = v.phase !== "lobby";
  if (el.hidden) return;
  const link = `${location.origin}/r/${encodeURIComponent(room.code)}`;
  // Drawn once for its link (again only in a new frame of the page, after a change of
  // language): people sitting down send frames while someone selects or copies the
  // link, and the field, its selection and "Copied" stay as they are.
  if (alreadyShows(el, link)) return;
  const input = h("input", { id: "invite-link", readonly: true, value: link, "aria-label": t("invite.link") });
  const copied = h("span", { class: "muted", role: "status" });
  const copy = () => {
    input.select();
    return copyLink(input, copied, link);
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

// ---------------------------------------------------------------- this seat elsewhere

/**
 * The seat's own link, `/r/{code}#seat=<token>`, to carry the seat to another device
 * (docs/protocol.md, "The host"): the token is in the fragment, which a browser never
 * sends to a server. It is folded away until asked for (it is a secret: whoever has it
 * plays the seat), and drawn again only when the seat changes.
 */
let seatLinkFor = null;

export function renderSeatLink() {
  const el = $("seat-link");
  const token = isSeated() ? getToken(room.code) : null;
  el.hidden = !token;
  const key = token ? `${room.code}:${room.view.you}:${token}` : null;
  if (key === seatLinkFor) return;
  seatLinkFor = key;
  if (!token) {
    fill(el);
    return;
  }
  const link = `${location.origin}/r/${encodeURIComponent(room.code)}#seat=${token}`;
  const input = h("input", { id: "seat-link-input", readonly: true, value: link, "aria-label": t("seatlink.link") });
  const copied = h("span", { class: "muted", role: "status" });
  const copy = () => {
    input.select();
    return copyLink(input, copied, link);
  };
  fill(
    el,
    h(
      "details",
      { id: "seat-link-box" },
      h("summary", {}, h("h2", { class: "inline" }, t("seatlink.title"))),
      h("p", { class: "muted" }, t("seatlink.help")),
      h(
        "div",
        { class: "row" },
        input,
        h("button", { type: "button", dataset: { action: "copy-seat" }, onclick: copy }, t("seatlink.copy")),
      ),
      copied,
    ),
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
 * away from the thumb, and asks first: "Leave the game" opens a confirmation, whose
 * "Yes, leave" sends it and whose "Stay" (or Escape) puts things back.
 */
let confirming = false;

export function renderLeave() {
  const v = room.view;
  const el = $("leave");
  el.hidden = !isSeated();
  if (el.hidden) {
    confirming = false;
    fill(el);
    return;
  }
  const ask = (yes) => {
    confirming = yes;
    renderLeave();
    const target = el.querySelector(yes ? 'button[data-action="leave-confirm"]' : 'button[data-action="leave"]');
    if (target) target.focus();
  };
  if (!confirming) {
    fill(
      el,
      h("p", { class: "muted" }, v.phase === "lobby" ? t("leave.lobby") : t("leave.game")),
      h("button", { type: "button", class: "quiet", dataset: { action: "leave" }, "aria-expanded": "false", onclick: () => ask(true) }, t("leave")),
    );
    return;
  }
  const leave = () => {
    confirming = false;
    send({ type: "leave" });
  };
  fill(
    el,
    h(
      "div",
      { class: "leave-confirm", role: "group", "aria-labelledby": "leave-question", onkeydown: (ev) => ev.key === "Escape" && ask(false) },
      h("p", { id: "leave-question" }, h("strong", {}, v.phase === "lobby" ? t("leave.confirm_lobby") : t("leave.confirm"))),
      h(
        "div",
        { class: "button-row" },
        h("button", { type: "button", class: "danger", dataset: { action: "leave-confirm" }, onclick: leave }, t("leave.yes")),
        h("button", { type: "button", class: "secondary", dataset: { action: "leave-cancel" }, onclick: () => ask(false) }, t("leave.cancel")),
      ),
    ),
  );
}
