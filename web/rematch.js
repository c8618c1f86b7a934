// The end of a game: who won, and the rematch the seated players confirm
// (docs/protocol.md, "The rematch"). "Rematch" is a vote: the view's `rematch` lists the
// seats that asked, and the next game starts once every seat is taken and every seated
// person has asked. Meanwhile the seats may change (a bot added, removed, a seat
// freed), and the host may change the rules (host.js), which takes the votes back.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { actionButton } from "./buttons.js";
import { legalOf, seatName, teamLabel } from "./state.js";
import { fillButton, seatList } from "./seats.js";

/** The parts of the action panel at `game_over`. */
export function gameOverParts(v) {
  const winners = (v.winners || []).map((i) => teamLabel(i)).join(", ");
  const iWon = (v.winners || []).some((i) => v.teams[i].includes(v.you));
  const parts = [
    h("h2", { class: `panel-title game-over${iWon ? " won" : ""}` }, t("game.over")),
    h("p", { class: "winners" }, t("game.winners", { names: winners })),
  ];
  const rematch = legalOf("rematch")[0];
  const buttons = [rematch ? actionButton(rematch, t("game.rematch"), { class: "primary big" }) : null, fillButton()];
  if (buttons.some(Boolean)) parts.push(h("div", { class: "button-row" }, buttons));
  parts.push(h("p", { class: "rematch-status", id: "rematch-status" }, voteWords(v)));
  parts.push(h("h3", { class: "seats-title" }, t("rematch.seats")), seatList(v));
  return parts;
}

/** Who asked for the rematch, who is still to, what else it waits for. */
function voteWords(v) {
  const asked = v.rematch || [];
  const people = v.seats.filter((s) => s.kind === "human").map((s) => s.seat);
  const waiting = people.filter((k) => !asked.includes(k));
  const lines = [];
  if (asked.includes(v.you)) lines.push(t("rematch.you_asked"));
  else if (asked.length) lines.push(t("rematch.asked", { names: asked.map(seatName).join(", ") }));
  else lines.push(t("rematch.help"));
  if (asked.length && waiting.length) lines.push(t("rematch.waiting", { names: waiting.map(seatName).join(", ") }));
  if (asked.length && v.seats.some((s) => s.kind === "empty")) lines.push(t("rematch.empty"));
  return lines.join(" ");
}
