// The wire: plain HTTP for rooms, seats and the rule books, one WebSocket per room for
// everything that happens at the table (docs/protocol.md), and the seat tokens kept in
// localStorage. Nothing here draws or knows the game.

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
  return { status: res.status, data };
}

const TOKEN_KEY = "schmier.tokens";

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
  }

  open(token) {
    this.token = token;
    this.stopped = false;
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
    clearTimeout(this.timer);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close(CLOSE.NORMAL);
    }
  }
}
