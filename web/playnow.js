// "Play now": one click on the home page to a started table of the chosen game, the
// player in seat 1 and bots in every other seat.
//
// It is a flow of the client over the protocol every client speaks, not an endpoint of
// its own: the home page creates the room and joins it (home.js), leaving a note for the
// room's page in this tab's sessionStorage; the room's page, once its first lobby view
// says the player sits, adds a bot (the default level) to each empty seat and starts
// the game, exactly as a player clicking "Fill the rest with bots" and "Start the game"
// would. Nothing new to secure on the server, the same checks for every step.

import { addBot, legalOf, room, send, subscribe } from "./state.js";

const KEY = "schmier.playnow.";

/** Leave the note for room `code`'s page: fill it with bots and start. */
export function markPlayNow(code) {
  try {
    sessionStorage.setItem(KEY + code.toLowerCase(), "1");
  } catch {
    /* storage blocked: the player lands in the lobby and starts it there */
  }
}

function marked() {
  try {
    return sessionStorage.getItem(KEY + room.code.toLowerCase()) === "1";
  } catch {
    return false;
  }
}

function done() {
  try {
    sessionStorage.removeItem(KEY + room.code.toLowerCase());
  } catch {
    /* nothing to forget */
  }
}

let filled = null; // the room whose empty seats were given bots (once: each add_bot is
// answered by a view that still lists the seats not filled yet)
let subscribed = false;

/** Follow the room's views, and finish a "Play now" begun on the home page. */
export function followPlayNow() {
  if (subscribed) return;
  subscribed = true;
  subscribe((what) => {
    if (what !== "view" || !room.view || !marked()) return;
    const v = room.view;
    if (v.phase !== "lobby") {
      done();
      return;
    }
    if (v.you === null || v.you === undefined) return;
    const start = legalOf("start")[0];
    if (start) {
      done();
      send(start);
    } else if (filled !== room.code) {
      filled = room.code;
      for (const a of legalOf("add_bot")) addBot(a.seat);
    }
  });
}
