// The seats as a list by team, in the lobby and between games: who sits where (a bot
// with its level, "you", the host, who is offline), and what may be done to each seat
// there: a bot added at the level picked, or removed (both listed in `view.legal`),
// "Sit here" for a seated player in the lobby (`move_seat`), and for the host "Free the
// seat" of a player who is offline (`free_seat`; docs/protocol.md, "The host").

import { num, t } from "./i18n.js";
import { h } from "./dom.js";
import { actionButton } from "./buttons.js";
import { addBot, botPick, isSeated, legalOf, pickBot, room, seatInfo, seatName, send, teamLetter } from "./state.js";
import { botDescription, botLabel, seatTitle } from "./bots.js";

/** The seats of `view`, by team (a team's letter above its seats where teams are fixed). */
export function seatList(v) {
  const addBots = legalOf("add_bot");
  const removeBots = legalOf("remove_bot");
  const teams = v.teams.map((team, i) =>
    h(
      "div",
      { class: `lobby-team team-${i}` },
      teamLetter(i)
        ? h(
            "div",
            { class: "lobby-team-name" },
            h("span", { class: "team-letter" }, teamLetter(i)),
            t("team.n", { n: teamLetter(i) }),
          )
        : null,
      team.map((seat) => seatRow(v, seat, addBots, removeBots)),
    ),
  );
  return h("div", { class: "lobby-teams" }, teams);
}

/** "Fill the rest with bots", when more than one seat is empty. */
export function fillButton() {
  if (legalOf("add_bot").length < 2) return null;
  const fillBots = () => {
    for (const a of legalOf("add_bot")) addBot(a.seat);
  };
  return h("button", { type: "button", class: "secondary", dataset: { action: "fill_bots" }, onclick: fillBots }, t("lobby.fill"));
}

/**
 * What the lobby waits for: players while a seat is empty, then the host's start (the
 * host is told that everyone is seated; the others who is to start the game).
 */
export function lobbyWait(v) {
  if (v.seats.some((s) => s.kind === "empty")) return t("lobby.waiting");
  if (v.host === null || v.host === undefined || v.host === v.you) return t("lobby.full");
  return t("lobby.wait_host", { name: seatName(v.host) });
}

/** Whether this player hosts the room. */
export function amHost() {
  const v = room.view;
  return isSeated() && v.host === v.you;
}

function seatRow(v, seat, addBots, removeBots) {
  const s = seatInfo(seat);
  const add = addBots.find((a) => a.seat === seat);
  const remove = removeBots.find((a) => a.seat === seat);
  const away = s.kind === "human" && !s.connected;
  // Moving to another chair is for the lobby only (between games the host swaps).
  const move = add && v.phase === "lobby" && isSeated();
  return h(
    "div",
    { class: "lobby-seat", dataset: { seat: String(seat) } },
    h("span", { class: "lobby-seat-no" }, num(seat + 1)),
    h(
      "span",
      { class: `lobby-seat-name${s.kind === "empty" ? " muted" : ""}` },
      s.kind === "empty" ? t("seat.empty") : seatTitle(seat),
      s.kind === "bot" ? h("span", { class: "badge bot" }, t("seat.bot")) : null,
      s.seat === v.you ? h("span", { class: "badge you" }, t("seat.you")) : null,
      s.seat === v.host ? h("span", { class: "badge host" }, t("seat.host")) : null,
      away ? h("span", { class: "badge away" }, t("seat.away")) : null,
    ),
    add && room.bots.length ? levelPicker(seat) : null,
    add
      ? h(
          "button",
          { type: "button", class: "small", dataset: { action: "add_bot", seat: String(seat) }, onclick: () => addBot(seat) },
          t("lobby.add_bot"),
        )
      : null,
    move ? actionButton({ type: "move_seat", seat }, t("lobby.move_here"), { class: "small quiet" }) : null,
    remove ? actionButton(remove, t("lobby.remove_bot"), { class: "small quiet" }) : null,
    away && amHost() ? freeButton(seat) : null,
  );
}

/** The host's "Free the seat" of a player who is offline. */
export function freeButton(seat) {
  return h(
    "button",
    {
      type: "button",
      class: "small secondary",
      dataset: { action: "free_seat", seat: String(seat) },
      title: t("host.free_help", { name: seatName(seat) }),
      onclick: () => send({ type: "free_seat", seat }),
    },
    t("host.free_seat", { name: seatName(seat) }),
  );
}

/** The level of the bot to add at an empty seat: every level, strongest (the default) first. */
function levelPicker(seat) {
  const picked = botPick(seat);
  return h(
    "select",
    {
      class: "bot-level small",
      dataset: { seat: String(seat) },
      "aria-label": t("lobby.bot_level"),
      title: botDescription(picked),
      onchange: (ev) => pickBot(seat, ev.target.value),
    },
    room.bots.map((b) =>
      h("option", { value: b.name, selected: b.name === picked, title: botDescription(b.name) }, botLabel(b.name)),
    ),
  );
}
