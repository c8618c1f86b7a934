/**
 * The words of the bot levels a room can seat (`GET /api/bots`, translated where the
 * catalogue has them) and the marks of the last hint: what the lobby's picker, the seat
 * titles and the action panel show of the bots. It reads the room's state and never
 * changes it, so it sits beside the screens, downstream of state.js.
 */

import { has, t } from "./i18n.js";
import { room, seatInfo, seatName } from "./state.js";

/**
 * A seat's name where the seat itself is shown (on the table, in the lobby, in the join
 * panel): a bot's with its level, "Bot 3 · Normal". Elsewhere (scores, bids, the hand
 * summary) `seatName` keeps it short, so that the first screen holds what it must.
 */
export function seatTitle(seat) {
  const s = seatInfo(seat);
  if (s && s.kind === "bot" && s.bot) return t("seat.bot_level", { name: seatName(seat), level: botLabel(s.bot) });
  return seatName(seat);
}

/** A bot level's words (`GET /api/bots`): the catalogue's `bot.<name>.label`, else the
 * server's English label, else the name itself. */
export function botLabel(name) {
  if (has(`bot.${name}.label`)) return t(`bot.${name}.label`);
  return room.bots.find((b) => b.name === name)?.label || name;
}

/** A bot level's description, translated when the catalogue has it. */
export function botDescription(name) {
  if (has(`bot.${name}.description`)) return t(`bot.${name}.description`);
  return room.bots.find((b) => b.name === name)?.description || "";
}

/** Whether this room lets players ask for hints (the `hints` rule). */
export function hintsOn() {
  return Boolean(room.view) && room.view.rules.hints !== false;
}

/** Whether `action` (a `legal` entry) is what the last hint suggested. */
export function isHinted(action) {
  const hinted = room.hint?.action;
  if (!hinted || hinted.type !== action.type) return false;
  return ["amount", "suit", "card", "seat"].every((k) => hinted[k] === action[k]);
}

/** The cards the last hint suggests playing or discarding. */
export function hintedCards() {
  const hinted = room.hint?.action;
  if (!hinted) return new Set();
  return new Set(hinted.type === "play" ? [hinted.card] : hinted.type === "discard" ? hinted.cards : []);
}
