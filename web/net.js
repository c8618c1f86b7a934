// The wire: plain HTTP for rooms, seats and the rule books, one WebSocket per room for
// everything that happens at the table (docs/protocol.md), and the seat tokens (and the
// name last joined with) kept in localStorage. Nothing here draws or knows the game.

/** Call the HTTP API; never throws for an HTTP status, only for a dead network. */
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  return { status: res.status, data, headers: res.headers };
}

const TOKEN_KEY = "schmier.tokens";
const NAME_KEY = "schmier.name";

/** The name this browser joined with last time. */
export function savedName() {
  return localStorage.getItem(NAME_KEY) || "";
}

/** Remember the name this browser joins with. */
export function saveName(name) {
  localStorage.setItem(NAME_KEY, name);
}

/** The catalogue key of a refused join's message (docs/protocol.md: the join's 409 for a
 * name in use has a `detail` starting "name taken"). */
export function joinError(res) {
  const detail = String(res.data?.detail || "");
  if (res.status === 409 && detail.startsWith("name taken")) return "err.name_taken";
  if (res.status === 503 && /store/i.test(detail)) return "err.store_unreachable";
  const reasons = { 409: "err.seat_taken", 422: "err.name", 404: "err.no_room", 429: "err.too_many_attempts" };
  return reasons[res.status] || "err.network";
}

function readTokens() {
  try {
    return JSON.parse(localStorage.getItem(TOKEN_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

/** Seat tokens are kept per room code so that a reload sits the player down again. */
export function getToken(code) {
  return readTokens()[code.toLowerCase()] || null;
}

export function setToken(code, token) {
  const all = readTokens();
  if (token) all[code.toLowerCase()] = token;
  else delete all[code.toLowerCase()];
  localStorage.setItem(TOKEN_KEY, JSON.stringify(all));
}

/**
 * A seat's own link (`/r/{code}#seat=<token>`, docs/protocol.md "The host") opened here:
 * keep its token as a join's would be kept, and take the fragment out of the address bar
 * at once (so it is in no bookmark, no shared screenshot, no history entry). A browser
 * never sends a fragment to a server. Call before anything else reads the address.
 */
export function takeSeatFromLink() {
  const match = location.hash.match(/^#seat=([A-Za-z0-9_-]{16,200})$/);
  const room = location.pathname.match(/^\/r\/([^/]+)\/?$/);
  if (!location.hash.startsWith("#seat=")) return;
  history.replaceState(history.state, "", location.pathname + location.search);
  if (match && room) {
    try {
      setToken(decodeURIComponent(room[1]), match[1]);
    } catch {
      /* a code that cannot be one: the page says there is no such room */
    }
  }
}

/** The WebSocket close codes the server uses (docs/protocol.md, "Close codes"). */
export const CLOSE = Object.freeze({
  NORMAL: 1000,
  BINARY_FRAME: 1003,
  BAD_UTF8: 1007,
  RATE_LIMITED: 1008,
  FRAME_TOO_BIG: 1009,
  ROOM_FAILED: 1011,
  RESTARTING: 1012,
  BAD_TOKEN: 4401,
  NO_ROOM: 4404,
  NO_HELLO: 4408,
  SEAT_ELSEWHERE: 4409, // a newer socket of this seat took this one's place
  LOOKUPS_EXHAUSTED: 4429, // this address failed too many look-ups: retried, slowly
});

// Close codes after which retrying the same hello cannot help.
const FINAL = new Set([
  CLOSE.NO_ROOM,
  CLOSE.SEAT_ELSEWHERE, // reconnecting would push the other tab out, and so on for ever
  CLOSE.BAD_TOKEN,
  CLOSE.RATE_LIMITED,
  CLOSE.FRAME_TOO_BIG,
  CLOSE.BINARY_FRAME,
  CLOSE.BAD_UTF8,
]);

/**
 * One room's socket that says hello again after every reconnect, backing off
 * (0.5 s doubling up to 8 s) so that a restarting server is not hammered.
 *
 * Offline: when the browser says it has lost the network (`offline`), the socket is
 * closed at once and no new one is dialled until it is back (`online`, then at once).
 * So nothing can be written into a socket that cannot deliver it (a browser keeps such
 * a frame and sends it whenever the network returns, many seconds later), and closing
 * it lets the server tell the others at once that the player is offline.
 */
export class Connection {
  constructor(code, handlers) {
    this.code = code;
    this.handlers = handlers;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
    this.token = null;
    this.offline = () => this.wentOffline();
    this.online = () => this.cameBack();
  }

  wentOffline() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close(CLOSE.NORMAL, "offline");
    }
    this.handlers.onStatus("offline");
  }

  cameBack() {
    if (this.stopped || this.ws) return;
    this.attempt = 0;
    this.handlers.onStatus("reconnecting");
    this.dial();
  }

  open(token) {
    this.token = token;
    this.stopped = false;
    window.addEventListener("offline", this.offline);
    window.addEventListener("online", this.online);
    this.attempt = 0;
    this.dial();
  }

  /** Say hello again with another token (or as a spectator) on a fresh socket. */
  reopen(token) {
    this.shutdown();
    this.open(token);
  }

  dial() {
    clearTimeout(this.timer);
    if (navigator.onLine === false) {
      this.handlers.onStatus("offline");
      return; // dialled again by the `online` event
    }
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/${encodeURIComponent(this.code)}`);
    this.ws = ws;
    ws.addEventListener("open", () => {
      const hello = { type: "hello" };
      if (this.token) hello.token = this.token;
      ws.send(JSON.stringify(hello));
    });
    ws.addEventListener("message", (ev) => {
      if (this.ws !== ws) return; // a socket said goodbye to (reopen) speaks no more
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === "state") {
        this.attempt = 0;
        this.handlers.onStatus("open");
      }
      this.handlers.onMessage(msg);
    });
    ws.addEventListener("close", (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      if (FINAL.has(ev.code)) {
        this.stopped = true;
        this.handlers.onFinal(ev.code);
        return;
      }
      // A room that cannot be loaded because the store is down (docs/protocol.md, "When
      // the store is unreachable") is still there: say so, and keep trying.
      const storage = ev.code === CLOSE.ROOM_FAILED && /store/i.test(ev.reason || "");
      this.handlers.onStatus(storage ? "storage" : "reconnecting");
      const delay = Math.min(8000, 500 * 2 ** this.attempt);
      this.attempt += 1;
      this.timer = setTimeout(() => this.dial(), delay);
    });
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  shutdown() {
    this.stopped = true;
    window.removeEventListener("offline", this.offline);
    window.removeEventListener("online", this.online);
    clearTimeout(this.timer);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close(CLOSE.NORMAL);
    }
  }
}
