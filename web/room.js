// The room's page's one state object, and who is told when it changes.
//
// `room` is changed only by state.js (the frames that come in, the commands that go
// out); the panels read it and subscribe to its changes (state.js lists their names).
// It lives in a module of its own so that the questions asked of it (viewing.js) and
// state.js can both import it without importing each other.

/** Everything the room's page shows, and nothing else holds state. */
export const room = {
  code: "",
  conn: null,
  view: null, // the newest view (docs/protocol.md, "View")
  book: null, // the rule book of the room's game (games.js)
  seq: -1,
  status: "connecting", // the connection: "connecting", "open" or "reconnecting"
  selected: new Set(), // cards picked for the discard
  chat: [], // the last chat frames (state.js keeps CHAT_KEEP of them)
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
  pending: null, // the move sent and not answered yet: {action, slow}
  pendingTimer: null,
  timedOut: null, // the last `timed_out` frame, while its notice lasts
  timedOutTimer: null,
  review: null, // the last `review` frame: the room's shared review (together.js)
  practice: null, // the last `practice` frame: this seat's place in a practice room
};

const subscribers = [];

/** Call `fn(change)` after every change of the room (the change names: state.js). */
export function subscribe(fn) {
  subscribers.push(fn);
}

/** Tell every subscriber that `what` changed (state.js alone calls it). */
export function changed(what) {
  for (const fn of subscribers) fn(what);
}
