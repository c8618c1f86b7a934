// The room's state, and the one place that changes it.
//
// Data flows one way: a frame from the server (or a click) comes in here, changes
// `room`, and announces what changed to the subscribers (render.js), which redraw
// from `room` alone. The panels never change `room` themselves; they call the commands
// at the bottom of this module. The change names are:
//
//   "view"       a new state frame (or the held trick expired): everything
//   "status"     the connection's status (the banner)
//   "chat"       a chat line arrived
//   "selection"  the cards picked for a discard
//   "join"       the join panel's message
//   "toast"      a message that shows for a moment (a refused action)
//   "fatal"      the room is gone or the connection is closed for good
//   "deals"      the checks of the room's deals made progress (deals.js)
//   "hint"       a hint arrived (or was picked: a bot's level in the lobby)
//   "paused"     the table was paused (the server cannot reach its storage) or resumed
//
// The score sheet is kept in sessionStorage per room, so a reload keeps it.

import { botName, t, has } from "./i18n.js";
import { CLOSE, Connection, api, getToken, setToken } from "./net.js";
import { gameOf, scoresByTeam } from "./games.js";
import { checkDeals, dealsFor, noteDeal } from "./deals.js";
import { trickHoldMs } from "./hold.js";
import { useDeck } from "./cardface.js";
import { noteTurnTimer } from "./timer.js";

const TOAST_MS = 4000;
const CHAT_KEEP = 200;
const NAME_KEY = "schmier.name";

/** Everything the room's page shows, and nothing else holds state. */
export const room = {
  code: "",
  conn: null,
  view: null, // the newest view (docs/protocol.md, "View")
  book: null, // the rule book of the room's game (games.js)
  seq: -1,
  status: "connecting", // the connection: "connecting", "open" or "reconnecting"
  selected: new Set(), // cards picked for the discard
  chat: [], // the last CHAT_KEEP chat frames
  sheet: { entries: [], lastKey: null, game: 0 }, // the score sheet, one entry a hand
  held: null, // a finished trick kept on the table for a moment
  heldQueue: [], // the finished tricks still to be held, in turn
  heldTimer: null,
  deals: null, // what this browser saw of the deals, and their checks (deals.js)
  socket: null, // the socket the last state came from (a new one: a fresh start)
  prevTricks: null,
  joinError: "",
  toast: "",
  toastTimer: null,
  fatal: null, // "not_found", "lost", "elsewhere" or "closed" once the connection has ended for good
  moved: null, // the seq of the state a move was sent for (one move per state)
  chatPending: null, // the chat line sent and not yet seen back from the room
  chatSent: null, // the last line of ours the room sent back (the field may be cleared)
  bots: [], // GET /api/bots: the levels a room can seat, strongest first
  botPicks: {}, // the level picked in the lobby for each empty seat (default: the first)
  hint: null, // the last `hint` frame, while the turn it was asked for lasts
  paused: false, // between a `paused` frame and `resumed` (or the socket closing)
};

const subscribers = [];

/** Call `fn(change)` after every change of the room (the change names above). */
export function subscribe(fn) {
  subscribers.push(fn);
}

function changed(what) {
  for (const fn of subscribers) fn(what);
}

// ---------------------------------------------------------------- the score sheet

function sheetKey() {
  return `schmier.sheet.${room.code.toLowerCase()}`;
}

function loadSheet() {
  try {
    const s = JSON.parse(sessionStorage.getItem(sheetKey()) || "null");
    if (s && Array.isArray(s.entries)) room.sheet = s;
  } catch {
    /* a broken entry only loses the history */
  }
}

function saveSheet() {
  sessionStorage.setItem(sheetKey(), JSON.stringify(room.sheet));
}

function recordHand(view) {
  const last = view.last_hand;
  if (!last) return;
  const key = JSON.stringify(last);
  if (key === room.sheet.lastKey) return;
  room.sheet.lastKey = key;
  room.sheet.entries.push({
    bidder: last.bidder,
    bidderName: seatName(last.bidder),
    bid: last.bid,
    made: last.made,
    deltas: last.deltas,
    scores: view.scores,
  });
  saveSheet();
}

// ---------------------------------------------------------------- the connection

/** Start watching the room `code` (sitting down at once if this browser has its token). */
export function openRoom(code) {
  room.code = code;
  room.deals = dealsFor(code);
  loadSheet();
  room.conn = new Connection(code, {
    onMessage,
    onStatus: (s) => {
      room.status = s;
      changed("status");
      if (s !== "open" && room.paused) resume();
    },
    onFinal,
  });
  room.view = null;
  room.prevTricks = null;
  room.conn.open(getToken(code));
  loadBots();
}

/** The bots a room can seat (the lobby's level pickers, the level beside a bot's name). */
async function loadBots() {
  try {
    const res = await api("GET", "/api/bots");
    if (res.status === 200 && Array.isArray(res.data)) {
      room.bots = res.data;
      if (room.view) changed("view");
    }
  } catch {
    /* without the list, bots are added at the server's default level */
  }
}

function onFinal(code) {
  if (code === CLOSE.BAD_TOKEN) {
    // The seat is gone (freed, or the room was reset): watch, and offer to join again.
    setToken(room.code, null);
    room.joinError = t("err.seat_lost");
    room.conn.open(null);
    return;
  }
  // A room this page was in (or holds a seat of) did exist: it is gone from the server
  // (a restart that kept no rooms), which is not "there is no room with this code".
  const known = room.view !== null || getToken(room.code) !== null;
  if (code === CLOSE.SEAT_ELSEWHERE) room.fatal = "elsewhere";
  else room.fatal = code === CLOSE.NO_ROOM ? (known ? "lost" : "not_found") : "closed";
  changed("fatal");
}

function onMessage(msg) {
  if (msg.type === "state") {
    if (typeof msg.seq === "number" && msg.seq < room.seq && room.view) return;
    room.seq = msg.seq;
    room.moved = null; // a new state (a new socket's too) may be answered afresh
    const fresh = room.conn.ws !== room.socket;
    room.socket = room.conn.ws;
    noteTurnTimer(msg.view);
    applyView(msg.view, fresh);
  } else if (msg.type === "chat_history") {
    // Once per socket, after its first state: the conversation so far, instead of ours.
    room.chat = (msg.lines || []).slice(-CHAT_KEEP);
    changed("chat");
  } else if (msg.type === "chat") {
    if (room.chatPending !== null && msg.seat === room.view?.you) {
      room.chatSent = room.chatPending;
      room.chatPending = null;
    }
    room.chat.push(msg);
    if (room.chat.length > CHAT_KEEP) room.chat.shift();
    changed("chat");
  } else if (msg.type === "error") {
    // A refusal answers the move or the chat line sent last: either may be sent again.
    room.moved = null;
    room.chatPending = null;
    notice(has(`err.${msg.code}`) ? t(`err.${msg.code}`) : msg.message);
  } else if (msg.type === "hint") {
    // Only for the view it was asked in: an older one's advice is no advice.
    if (msg.seq === room.seq && myTurn()) {
      room.hint = msg;
      changed("hint");
    }
  } else if (msg.type === "paused") {
    room.paused = true;
    changed("paused");
  } else if (msg.type === "resumed") {
    resume();
  }
}

function resume() {
  room.paused = false;
  changed("paused");
}

function applyView(view, fresh) {
  const prev = room.view;
  room.view = view;
  // A hint lasts as long as the choices it was one of.
  if (room.hint && (!prev || JSON.stringify(prev.legal) !== JSON.stringify(view.legal))) room.hint = null;
  room.book = gameOf(view.variant);
  useDeck(room.book);
  if (view.you === null && getToken(room.code) && room.conn.token) {
    // We said hello with a token and sit nowhere: the seat was left or freed.
    setToken(room.code, null);
    room.conn.token = null;
  }
  holdFinishedTrick(view.tricks || []);
  // A selection only makes sense while the same discard is open.
  const discard = legalOf("discard")[0];
  if (!discard) room.selected.clear();
  else for (const c of [...room.selected]) if (!discard.from.includes(c)) room.selected.delete(c);
  // A rematch starts a fresh score sheet.
  if (prev && prev.phase === "game_over" && view.phase !== "game_over") {
    room.sheet = { entries: [], lastKey: room.sheet.lastKey, game: (room.sheet.game || 0) + 1 };
  }
  recordHand(view);
  // A fresh random value for each new commitment (seated only), and a check of every
  // finished hand: all of them at first, then each one as it is scored.
  const entropy = noteDeal(room.deals, view, fresh);
  if (entropy) room.conn.send({ type: "entropy", value: entropy });
  const scored = Boolean(prev && view.last_hand) && JSON.stringify(view.last_hand) !== JSON.stringify(prev.last_hand);
  if (!prev || scored) checkDeals(room.deals, room.book, () => changed("deals"), scored);
  changed("view");
}

/**
 * Keep each finished trick on the table for a moment (hold.js: the time this browser
 * chose) so people see who played what and who took it: one after the other, none
 * skipped, neither by the next lead nor by the next deal.
 */
function holdFinishedTrick(tricks) {
  const before = room.prevTricks;
  room.prevTricks = tricks.length;
  if (before === null || tricks.length <= before) return;
  room.heldQueue.push(...tricks.slice(before));
  if (!room.held) holdNext();
}

function holdNext() {
  clearTimeout(room.heldTimer);
  room.held = room.heldQueue.shift() || null;
  if (!room.held) return;
  room.heldTimer = setTimeout(() => {
    holdNext();
    changed("view");
  }, trickHoldMs());
}

// ---------------------------------------------------------------- questions about the view

/** The entries of `view.legal` of one type. */
export function legalOf(type) {
  return (room.view?.legal || []).filter((a) => a.type === type);
}

export function isSeated() {
  return room.view !== null && room.view.you !== null && room.view.you !== undefined;
}

/** Whether this player is awaited now and has something to do. */
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

// ---------------------------------------------------------------- commands

// The moves of a turn: one is sent per state, so a double tap on a card (or a bid)
// does not send it twice and earn "It is not your turn." for the second.
const MOVES = new Set(["bid", "pass", "trump", "discard", "call", "play"]);

/** Send an action (one of `view.legal`, or chat/leave); a toast when offline. */
export function send(action) {
  if (MOVES.has(action.type)) {
    if (room.moved === room.seq) return;
    room.moved = room.seq;
  }
  if (!room.conn || !room.conn.send(action)) {
    room.moved = null;
    notice(t("err.offline"));
  }
}

/** Add a bot to empty seat `seat` at the level picked for it. */
export function addBot(seat) {
  const bot = botPick(seat);
  send(bot ? { type: "add_bot", seat, bot } : { type: "add_bot", seat });
}

/** Pick the level of the bot to add at empty seat `seat`. */
export function pickBot(seat, name) {
  room.botPicks[seat] = name;
  changed("hint");
}

/** Ask the default bot what it would do now (the answer highlights it, never plays it). */
export function askHint() {
  send({ type: "hint" });
}

/**
 * Send a chat line; whether it went out. The line stays in the field until the room
 * sends it back (`chatSent` says when): a line the server refuses (too many too fast)
 * is not lost.
 */
export function sendChat(text) {
  const sent = Boolean(room.conn && room.conn.send({ type: "chat", text }));
  room.chatPending = sent ? text : null;
  return sent;
}

/** Pick a card for the discard, or put it back. */
export function toggleDiscard(card) {
  if (room.selected.has(card)) room.selected.delete(card);
  else room.selected.add(card);
  changed("selection");
}

/** Show `text` as a toast for a moment. */
export function notice(text) {
  room.toast = text;
  clearTimeout(room.toastTimer);
  room.toastTimer = setTimeout(() => {
    room.toast = "";
    changed("toast");
  }, TOAST_MS);
  changed("toast");
}

function joinFailed(text) {
  room.joinError = text;
  changed("join");
}

/** The name this browser joined with last time. */
export function savedName() {
  return localStorage.getItem(NAME_KEY) || "";
}

/** Take seat `seat` under `name` (POST …/join), then say hello with the new token. */
export async function joinSeat(name, seat) {
  if (!name) {
    joinFailed(t("err.name"));
    return;
  }
  localStorage.setItem(NAME_KEY, name);
  let res;
  try {
    res = await api("POST", `/api/rooms/${encodeURIComponent(room.code)}/join`, { name, seat });
  } catch {
    joinFailed(t("err.network"));
    return;
  }
  if (res.status === 200 && res.data && res.data.token) {
    room.joinError = "";
    setToken(room.code, res.data.token);
    room.prevTricks = null;
    room.conn.reopen(res.data.token);
    return;
  }
  const reasons = { 409: "err.seat_taken", 422: "err.name", 404: "err.no_room", 429: "err.too_many_attempts" };
  const storage = res.status === 503 && /store/i.test(String(res.data?.detail || ""));
  joinFailed(t(storage ? "err.store_unreachable" : reasons[res.status] || "err.network"));
}
