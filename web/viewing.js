// What the room's view says: the questions every panel asks of it (may I act, whose
// seat, which side), read from `room` alone and changing nothing.

import { botName, t } from "./i18n.js";
import { scoresByTeam } from "./games.js";
import { room } from "./room.js";

/** The entries of `view.legal` of one type. */
export function legalOf(type) {
  return (room.view?.legal || []).filter((a) => a.type === type);
}

export function isSeated() {
  return room.view !== null && room.view.you !== null && room.view.you !== undefined;
}

/** Whether this player is awaited now and has something to do (a trick still shown or
 * not: `trickShown`). */
export function myTurn() {
  const v = room.view;
  return isSeated() && (v.turn || []).includes(v.you) && v.legal.length > 0;
}

export function seatInfo(seat) {
  return room.view?.seats.find((s) => s.seat === seat) || null;
}

/** A seat's name; a bot's with its level: "Bot 3 · Strong". */
export function seatName(seat) {
  if (seat === null || seat === undefined) return "";
  const s = seatInfo(seat);
  if (!s || s.kind === "empty" || !s.name) return t("seat.n", { n: seat + 1 });
  return s.kind === "bot" ? botName(s.name) : s.name;
}

/** The level picked for the bot of empty seat `seat` (the strongest, the default). */
export function botPick(seat) {
  return room.botPicks[seat] || room.bots[0]?.name || null;
}

export function teamIndex(seat) {
  return (room.view?.teams || []).findIndex((team) => team.includes(seat));
}

/** The names of a scoring unit (an entry of `view.teams`): "Ann & Bot 4". */
export function teamLabel(i) {
  return sideLabel(room.view.teams[i]);
}

/** The letter of scoring unit `i` ("A", "B", …), or null when the game scores per player. */
export function teamLetter(i) {
  return room.book && scoresByTeam(room.book) ? String.fromCharCode(65 + i) : null;
}

/** The names of a list of seats: "Ann & Bot 4". */
export function sideLabel(side) {
  return side.map(seatName).join(" & ");
}
