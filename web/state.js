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
//   "timedout"   this player's turn timer ran out and the bot played for them (or that
//                notice is over)
//   "review"     a `review` frame: the room's shared review changed (together.js)
//
// The score sheet is kept in sessionStorage per room, so a reload keeps it.

import { t, has } from "./i18n.js";
import { CLOSE, Connection, api, getToken, setToken } from "./net.js";
import { gameOf } from "./games.js";
import { checkDeals, dealsFor, noteDeal, revealFor } from "./deals.js";
import { trickHoldMs } from "./hold.js";
import { useDeck } from "./cardface.js";
import { noteTurnTimer } from "./timer.js";
import { changed, room, subscribe } from "./room.js";
import { botPick, legalOf, myTurn, seatName } from "./viewing.js";

export { room, subscribe };
export {
  botPick,
  isSeated,
  legalOf,
  myTurn,
  seatInfo,
  seatName,
  sideLabel,
  teamIndex,
  teamLabel,
  teamLetter,
} from "./viewing.js";

const TOAST_MS = 4000;
const TIMED_OUT_MS = 12000; // how long "Time ran out: …" stays, unless the player moves
const CHAT_KEEP = 200;

// A move not answered by a state (or an error) within this time is shown as such, with
// a way to give it up (a connection that looks open but delivers nothing).
const PENDING_MS = 2500;

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
      if (s !== "open" && room.pending) settle();
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
    // The move is answered once what this player may do has changed.
    if (room.pending && JSON.stringify(msg.view?.legal) !== room.pending.legal) settle(false);
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
  } else if (msg.type === "reveal") {
    // The deal is due: this tab's secret value for it, committed to before.
    const value = revealFor(room.deals, msg.commitment);
    if (value) room.conn.send({ type: "entropy", value });
  } else if (msg.type === "error" && msg.code === "bad_message" && room.deals.revealing) {
    // Our value was not the one the room holds a commit for (another tab of this seat
    // committed last, and answers with its own): nothing the player did.
    room.deals.revealing = false;
  } else if (msg.type === "error") {
    // A refusal answers the move or the chat line sent last: either may be sent again.
    room.moved = null;
    room.chatPending = null;
    settle();
    notice(has(`err.${msg.code}`) ? t(`err.${msg.code}`) : msg.message);
  } else if (msg.type === "hint") {
    // Only for the view it was asked in: an older one's advice is no advice.
    if (msg.seq === room.seq && myTurn()) {
      room.hint = msg;
      changed("hint");
    }
  } else if (msg.type === "timed_out") {
    room.timedOut = msg;
    clearTimeout(room.timedOutTimer);
    room.timedOutTimer = setTimeout(() => timedOutOver(), TIMED_OUT_MS);
    changed("timedout");
  } else if (msg.type === "paused") {
    room.paused = true;
    changed("paused");
  } else if (msg.type === "resumed") {
    resume();
  } else if (msg.type === "review") {
    room.review = msg;
    changed("review");
  } else if (msg.type === "practice") {
    room.practice = msg; // this seat's place in a practice room (together.js offers it)
    changed("review");
  }
}

function timedOutOver() {
  if (!room.timedOut) return;
  clearTimeout(room.timedOutTimer);
  room.timedOut = null;
  changed("timedout");
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
  // A commit to a fresh secret value for each new commitment (seated only), and a check
  // of every finished hand: all of them at first, then each one as it is scored.
  room.deals.revealing = false;
  const commit = noteDeal(room.deals, view, fresh);
  if (commit) room.conn.send({ type: "entropy", commit });
  const scored = Boolean(prev && view.last_hand) && JSON.stringify(view.last_hand) !== JSON.stringify(prev.last_hand);
  if (!prev || scored) checkDeals(room.deals, room.book, dealsChecked, scored);
  changed("view");
}

/** The deals' checks moved on; the list of hands they fetched numbers the sheet's rows. */
function dealsChecked() {
  numberSheet();
  changed("deals");
}

/**
 * The score sheet's newest row gets the room's number of its hand (the one of the room's
 * history and of the replay link: hands are numbered across the room's games), once the
 * list of the room's hands (deals.js) has it.
 */
function numberSheet() {
  const last = room.sheet.entries[room.sheet.entries.length - 1];
  const n = room.deals?.latest;
  if (!last || last.n !== undefined || typeof n !== "number") return;
  if (room.sheet.entries.some((e) => e.n === n)) return;
  last.n = n;
  saveSheet();
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

// ---------------------------------------------------------------- commands

// The moves of a turn: one is sent per state, so a double tap on a card (or a bid)
// does not send it twice and earn "It is not your turn." for the second.
const MOVES = new Set(["bid", "pass", "trump", "discard", "call", "play"]);

/**
 * Send an action (one of `view.legal`, or chat/leave). Without a connection nothing is
 * sent (nothing is kept to be sent later) and a toast says so. A move sent stays
 * "pending" until the room answers; one that takes long is shown so (`pending.slow`),
 * and may be given up (cancelMove).
 */
export function send(action) {
  const move = MOVES.has(action.type);
  if (move) {
    if (room.moved === room.seq) return;
    room.moved = room.seq;
    timedOutOver(); // the player is back at it: the notice has done its work
  }
  const up = room.status === "open" && navigator.onLine !== false;
  if (!up || !room.conn || !room.conn.send(action)) {
    room.moved = null;
    notice(t(move ? "err.not_sent" : "err.offline"));
    return;
  }
  if (move) {
    room.pending = { action, slow: false, legal: JSON.stringify(room.view?.legal) };
    clearTimeout(room.pendingTimer);
    room.pendingTimer = setTimeout(() => {
      if (!room.pending) return;
      room.pending.slow = true;
      changed("selection");
    }, PENDING_MS);
    changed("selection");
  }
}

/** The move sent is answered (or can no longer be): nothing pending any more. */
function settle(redraw = true) {
  clearTimeout(room.pendingTimer);
  const had = room.pending !== null;
  room.pending = null;
  if (had && redraw) changed("selection");
}

/**
 * Give up a move the room has not answered: the socket is closed and a new one says
 * hello, whose first state shows what the room has (the move played, if it got there).
 */
export function cancelMove() {
  if (!room.pending || !room.conn) return;
  settle();
  room.moved = null;
  room.conn.reopen(room.conn.token);
}

/** Whether a finished trick is still shown on the table (no card may be played yet). */
export function trickShown() {
  return room.held !== null;
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

/** Why a join failed, said under the name field ("" clears it). */
export function joinFailed(text) {
  room.joinError = text;
  changed("join");
}

/** Sit down with a join's new `token`: kept for this room, and said hello with. */
export function sitDown(token) {
  room.joinError = "";
  setToken(room.code, token);
  room.prevTricks = null;
  room.conn.reopen(token);
}
