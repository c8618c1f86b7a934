// The Schmier table in the browser.
//
// Everything the player may do comes from the server's `view.legal`: this file draws
// the view and turns clicks into the actions listed there, so the rules live in one
// place (the server) and a rule change never needs a client change.
//
// User-supplied text (names, chat) only ever reaches the page through textContent or
// text nodes: the helper `h` below has no way to insert HTML.

import { LANGUAGES, currentLanguage, has, setLanguage, t } from "./i18n.js";
import { SUITS, SUIT_SYMBOL, cardFace, cardName, cardShort, sortHand } from "./cards.js";
import { Connection, api, getToken, setToken } from "./net.js";

const TRICK_PAUSE_MS = 1200;
const NAME_KEY = "schmier.name";
const TEAM_LETTERS = ["A", "B", "C", "D", "E", "F"];

// ---------------------------------------------------------------- DOM helper

function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (typeof v === "boolean") el[k] = v;
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

function $(id) {
  return document.getElementById(id);
}

function fill(el, ...children) {
  el.replaceChildren();
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

/**
 * Re-rendering replaces buttons; put the keyboard focus back on the button that
 * does the same thing, so keyboard players do not lose their place on every update.
 */
function keepFocus(fn) {
  const active = document.activeElement;
  let key = null;
  if (active && active !== document.body && active.dataset) {
    const d = active.dataset;
    if (d.card || d.action) {
      key = ["card", "action", "amount", "suit", "seat"]
        .map((k) => (d[k] === undefined ? "" : d[k]))
        .join("|");
    }
  }
  fn();
  if (key === null || document.activeElement === active) return;
  for (const el of document.querySelectorAll("button[data-card], button[data-action]")) {
    const d = el.dataset;
    const k = ["card", "action", "amount", "suit", "seat"]
      .map((x) => (d[x] === undefined ? "" : d[x]))
      .join("|");
    if (k === key && !el.disabled) {
      el.focus({ preventScroll: true });
      return;
    }
  }
  // The button is gone (the card was played, the bid made): go on to the next thing
  // there is to do rather than back to the top of the page.
  const next =
    document.querySelector("#actions button:not(:disabled)") ||
    document.querySelector("#hand button[data-card]:not(:disabled)") ||
    document.querySelector("#hand button[data-card]");
  if (next) next.focus({ preventScroll: true });
}

// ---------------------------------------------------------------- page shell

function shell(...main) {
  const picker = h(
    "select",
    {
      id: "lang",
      "aria-label": t("language"),
      onchange: (ev) => {
        setLanguage(ev.target.value);
        start();
      },
    },
    LANGUAGES.map(([code, label]) =>
      h("option", { value: code, selected: code === currentLanguage() }, label),
    ),
  );
  const header = h(
    "header",
    { class: "topbar" },
    h("a", { class: "brand", href: "/" }, h("span", { "aria-hidden": "true" }, "♠♥ "), "Schmier"),
    h("div", { class: "topbar-mid", id: "topbar-mid" }),
    h("label", { class: "lang" }, h("span", { class: "sr-only" }, t("language")), picker),
  );
  const banner = h("div", { id: "banner", class: "banner", role: "status", hidden: true });
  const toast = h("div", { id: "toast", class: "toast", role: "alert", hidden: true });
  document.body.replaceChildren(header, banner, toast, ...main);
}

let toastTimer = null;
function showToast(text) {
  const el = $("toast");
  if (!el) return;
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 4000);
}

// ---------------------------------------------------------------- home page

const VARIANTS = ["schmier6", "schmier5", "wisconsin4"];

function home() {
  document.title = "Schmier";
  let variant = "schmier6";
  const target = h("input", {
    id: "target",
    name: "target",
    type: "number",
    min: "5",
    max: "99",
    value: "21",
    inputmode: "numeric",
  });
  const stick = h("input", { id: "stick", name: "stick_the_dealer", type: "checkbox" });
  const anytime = h("input", { id: "anytime", name: "trump_anytime", type: "checkbox" });
  const kitty = h(
    "select",
    { id: "kitty", name: "kitty" },
    [0, 1, 2, 3].map((k) => h("option", { value: String(k), selected: k === 2 }, String(k))),
  );
  const jokerOrder = h(
    "select",
    { id: "joker_order", name: "joker_order" },
    h("option", { value: "first_high" }, t("rule.first_high")),
    h("option", { value: "second_high" }, t("rule.second_high")),
  );
  const wisconsinOnly = h(
    "div",
    { class: "wisconsin-only" },
    h("label", { class: "field" }, h("span", {}, t("rule.kitty")), kitty),
    h("label", { class: "field" }, h("span", {}, t("rule.joker_order")), jokerOrder),
  );
  const choices = VARIANTS.map((v) =>
    h(
      "label",
      { class: "variant" },
      h("input", {
        type: "radio",
        name: "variant",
        value: v,
        checked: v === variant,
        onchange: () => pick(v),
      }),
      h(
        "span",
        { class: "variant-body" },
        h("strong", {}, t(`variant.${v}`)),
        h("span", { class: "muted" }, t(`variant.${v}.about`)),
      ),
    ),
  );
  function pick(v) {
    variant = v;
    anytime.checked = v === "wisconsin4";
    wisconsinOnly.hidden = v !== "wisconsin4";
  }
  const status = h("p", { class: "form-status", role: "status" });
  const create = h("button", { type: "submit", class: "primary big", dataset: { action: "create" } }, t("create"));
  const form = h(
    "form",
    {
      class: "card-panel create",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const rules = {
          target: Number(target.value),
          stick_the_dealer: stick.checked,
          trump_anytime: anytime.checked,
        };
        if (variant === "wisconsin4") {
          rules.kitty = Number(kitty.value);
          rules.joker_order = jokerOrder.value;
        }
        create.disabled = true;
        status.textContent = "";
        try {
          const res = await api("POST", "/api/rooms", { variant, rules });
          if (res.status === 201 || res.status === 200) {
            location.assign(`/r/${encodeURIComponent(res.data.code)}`);
            return;
          }
          status.textContent = res.status === 429 ? t("err.too_many") : t("err.bad_rules");
        } catch {
          status.textContent = t("err.network");
        }
        create.disabled = false;
      },
    },
    h("h1", {}, t("home.title")),
    h("fieldset", { class: "variants" }, h("legend", {}, t("home.game")), choices),
    h(
      "fieldset",
      { class: "rules" },
      h("legend", {}, t("home.rules")),
      h("label", { class: "field" }, h("span", {}, t("rule.target")), target),
      h("label", { class: "check" }, stick, h("span", {}, t("rule.stick"))),
      h("label", { class: "check" }, anytime, h("span", {}, t("rule.anytime"))),
      wisconsinOnly,
    ),
    create,
    status,
  );
  const code = h("input", {
    id: "room-code",
    name: "code",
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    "aria-label": t("home.code"),
    placeholder: t("home.code"),
  });
  const joinForm = h(
    "form",
    {
      class: "card-panel open-room",
      onsubmit: (ev) => {
        ev.preventDefault();
        const c = code.value.trim().replace(/^.*\/r\//, "").toLowerCase();
        if (c) location.assign(`/r/${encodeURIComponent(c)}`);
      },
    },
    h("h2", {}, t("home.have_code")),
    h("div", { class: "row" }, code, h("button", { type: "submit", dataset: { action: "open" } }, t("home.open"))),
  );
  shell(h("main", { class: "home" }, form, joinForm));
  pick(variant);
}

// ---------------------------------------------------------------- the room

const room = {
  code: "",
  conn: null,
  view: null,
  seq: -1,
  status: "connecting",
  selected: new Set(),
  chat: [],
  sheet: { entries: [], lastKey: null, game: 0 },
  held: null,
  heldTimer: null,
  prevTricks: null,
  prevPhase: null,
  joinError: "",
  fatal: null,
};

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

function openRoom(code) {
  room.code = code;
  document.title = `Schmier · ${code}`;
  loadSheet();
  buildRoom();
  room.conn = new Connection(code, {
    onMessage,
    onStatus: (s) => {
      room.status = s;
      renderBanner();
    },
    onFinal,
  });
  room.view = null;
  room.prevTricks = null;
  room.conn.open(getToken(code));
  renderBanner();
}

/** The page's fixed frame; the parts that follow the game are filled by render(). */
function buildRoom() {
  const nameInput = h("input", {
    id: "name",
    name: "name",
    maxlength: "24",
    autocomplete: "nickname",
    value: localStorage.getItem(NAME_KEY) || "",
    "aria-label": t("join.name"),
    placeholder: t("join.name"),
  });
  const chatInput = h("input", {
    id: "chat-input",
    maxlength: "300",
    autocomplete: "off",
    "aria-label": t("chat.say"),
    placeholder: t("chat.say"),
  });
  const chatForm = h(
    "form",
    {
      id: "chat-form",
      class: "chat-form",
      onsubmit: (ev) => {
        ev.preventDefault();
        const text = chatInput.value.trim();
        if (!text) return;
        if (room.conn && room.conn.send({ type: "chat", text })) chatInput.value = "";
      },
    },
    chatInput,
    h("button", { type: "submit", dataset: { action: "chat" } }, t("chat.send")),
  );
  shell(
    h(
      "main",
      { class: "room", id: "room" },
      h(
        "section",
        { class: "board", "aria-label": t("table") },
        h("div", { id: "scoreboard", class: "scoreboard" }),
        h("div", { id: "table", class: "table" }),
        h(
          "div",
          { id: "join", class: "card-panel join", hidden: true },
          h("h2", {}, t("join.title")),
          h("label", { class: "field" }, h("span", {}, t("join.name")), nameInput),
          h("div", { id: "join-seats" }),
          h("p", { id: "join-error", class: "form-status", role: "status" }),
        ),
        h("section", { id: "invite", class: "card-panel invite", hidden: true }),
        h("div", { id: "actions", class: "actions" }),
        h("div", { id: "hand", class: "hand", role: "group", "aria-label": t("hand.yours") }),
        h("div", { id: "summary", class: "summary" }),
      ),
      h(
        "aside",
        { class: "side" },
        h(
          "section",
          { class: "card-panel chat" },
          h("h2", {}, t("chat.title")),
          h("ol", { id: "chat-log", class: "chat-log", "aria-live": "polite" }),
          chatForm,
        ),
        h("section", { id: "sheet", class: "card-panel sheet" }),
        h("section", { id: "leave", class: "card-panel leave", hidden: true }),
      ),
    ),
  );
  renderChat();
  renderSheet();
}

function onFinal(code) {
  if (code === 4401) {
    // The seat is gone (freed, or the room was reset): watch, and offer to join again.
    setToken(room.code, null);
    room.joinError = t("err.seat_lost");
    room.conn.open(null);
    return;
  }
  room.fatal = code === 4404 ? "not_found" : "closed";
  renderFatal();
}

function renderFatal() {
  const msg = room.fatal === "not_found" ? t("err.no_room") : t("err.closed");
  shell(
    h(
      "main",
      { class: "home" },
      h(
        "div",
        { class: "card-panel" },
        h("h1", {}, msg),
        h("p", {}, h("a", { href: "/", class: "button-link" }, t("home.new_room"))),
      ),
    ),
  );
}

function renderBanner() {
  const el = $("banner");
  if (!el) return;
  el.hidden = room.status === "open";
  el.textContent = room.status === "reconnecting" ? t("reconnecting") : t("connecting");
  document.body.dataset.connection = room.status;
}

function onMessage(msg) {
  if (msg.type === "state") {
    if (typeof msg.seq === "number" && msg.seq < room.seq && room.view) return;
    room.seq = msg.seq;
    applyView(msg.view);
  } else if (msg.type === "chat") {
    room.chat.push(msg);
    if (room.chat.length > 200) room.chat.shift();
    renderChat();
  } else if (msg.type === "error") {
    showToast(has(`err.${msg.code}`) ? t(`err.${msg.code}`) : msg.message);
  }
}

function applyView(view) {
  const prev = room.view;
  room.view = view;
  if (view.you === null && getToken(room.code) && room.conn.token) {
    // We said hello with a token and sit nowhere: the seat was left or freed.
    setToken(room.code, null);
    room.conn.token = null;
  }
  // Keep a finished trick on the table a moment so people can see who won it.
  const tricks = view.tricks || [];
  if (room.prevTricks !== null && tricks.length > room.prevTricks && tricks.length > 0) {
    room.held = tricks[tricks.length - 1];
    clearTimeout(room.heldTimer);
    room.heldTimer = setTimeout(() => {
      room.held = null;
      render();
    }, TRICK_PAUSE_MS);
  } else if (tricks.length < (room.prevTricks || 0)) {
    room.held = null;
  }
  room.prevTricks = tricks.length;
  // A selection only makes sense while the same discard is open.
  const discard = legalOf("discard")[0];
  if (!discard) room.selected.clear();
  else for (const c of [...room.selected]) if (!discard.from.includes(c)) room.selected.delete(c);
  // A rematch starts a fresh score sheet.
  if (prev && prev.phase === "game_over" && view.phase !== "game_over") {
    room.sheet = { entries: [], lastKey: room.sheet.lastKey, game: (room.sheet.game || 0) + 1 };
  }
  recordHand(view);
  // The tab's title says when it is this player's turn, for a player in another tab.
  const mine = view.you !== null && (view.turn || []).includes(view.you) && view.legal.length > 0;
  document.title = `${mine ? "▶ " : ""}Schmier · ${room.code}`;
  document.body.dataset.seq = String(room.seq);
  document.body.dataset.phase = view.phase;
  render();
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
  renderSheet();
}

function legalOf(type) {
  return (room.view?.legal || []).filter((a) => a.type === type);
}

function send(action) {
  if (!room.conn || !room.conn.send(action)) showToast(t("err.offline"));
}

function seatInfo(seat) {
  return room.view?.seats.find((s) => s.seat === seat) || null;
}

function seatName(seat) {
  if (seat === null || seat === undefined) return "";
  const s = seatInfo(seat);
  if (!s || s.kind === "empty" || !s.name) return t("seat.n", { n: seat + 1 });
  return s.name;
}

function teamIndex(seat) {
  return (room.view?.teams || []).findIndex((team) => team.includes(seat));
}

function teamLabel(i) {
  const team = room.view.teams[i];
  return team.map(seatName).join(" & ");
}

function sideLabel(side) {
  return side.map(seatName).join(" & ");
}

// ---------------------------------------------------------------- rendering

function render() {
  keepFocus(() => {
    renderTopbar();
    renderScoreboard();
    renderTable();
    renderJoin();
    renderActions();
    renderHand();
    renderSummary();
    renderInvite();
    renderSheet();
    renderLeave();
  });
  const form = $("chat-form");
  if (form) form.hidden = room.view.you === null || room.view.you === undefined;
}

function trumpText(v) {
  if (v.trump) return [SUIT_SYMBOL[v.trump], " ", t(`suit.${v.trump}`)];
  if (v.my_trump) {
    return [SUIT_SYMBOL[v.my_trump], " ", t(`suit.${v.my_trump}`), " ", h("span", { class: "secret" }, t("trump.secret"))];
  }
  return [t("trump.none")];
}

function renderTopbar() {
  const v = room.view;
  const el = $("topbar-mid");
  if (!el || !v) return;
  fill(
    el,
    h("span", { class: "variant-name" }, t(`variant.${v.variant}`)),
    h(
      "span",
      { class: `trump-chip ${v.trump || v.my_trump ? `suit-${v.trump || v.my_trump}` : ""}`, id: "trump" },
      h("span", { class: "label" }, t("trump"), ": "),
      trumpText(v),
    ),
  );
}

function renderScoreboard() {
  const v = room.view;
  const el = $("scoreboard");
  fill(
    el,
    h("span", { class: "target" }, t("score.target", { n: v.rules.target })),
    v.teams.map((team, i) =>
      h(
        "div",
        {
          class: `score team-${i}${team.includes(v.you) ? " mine" : ""}${(v.winners || []).includes(i) ? " winner" : ""}`,
          dataset: { team: String(i) },
        },
        v.teams.length > 1 && v.variant !== "schmier5"
          ? h("span", { class: "team-letter" }, TEAM_LETTERS[i])
          : null,
        h("span", { class: "score-names" }, teamLabel(i)),
        h("strong", { class: "score-value" }, String(v.scores[i])),
      ),
    ),
  );
}

function relativeAngle(seat, n, me) {
  const r = (seat - me + n) % n;
  return ((90 + (r * 360) / n) * Math.PI) / 180;
}

function renderTable() {
  const v = room.view;
  const el = $("table");
  if (!v || !el) return;
  const n = v.seats.length;
  const me = v.you ?? 0;
  const turn = new Set(v.turn || []);
  const bidsBySeat = new Map();
  for (const b of v.bids || []) bidsBySeat.set(b.seat, b.amount);
  const seats = v.seats.map((s) => {
    const a = relativeAngle(s.seat, n, me);
    const chip = h(
      "div",
      {
        class: `seat team-${teamIndex(s.seat)}${turn.has(s.seat) ? " turn" : ""}${s.seat === v.you ? " me" : ""}${s.kind === "empty" ? " empty" : ""}`,
        dataset: { seat: String(s.seat) },
        role: "group",
        "aria-label": seatDescription(s),
      },
      h(
        "div",
        { class: "seat-top" },
        turn.has(s.seat) ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "▶") : null,
        h("span", { class: "seat-name" }, s.kind === "empty" ? t("seat.empty") : s.name),
        s.seat === v.dealer ? h("span", { class: "badge dealer", title: t("seat.dealer") }, "D") : null,
      ),
      h(
        "div",
        { class: "seat-meta" },
        s.kind === "bot" ? h("span", { class: "badge bot" }, t("seat.bot")) : null,
        s.kind === "human" && !s.connected ? h("span", { class: "badge away" }, t("seat.away")) : null,
        v.phase !== "lobby" ? h("span", { class: "count", title: t("seat.cards", { n: s.cards }) }, `▮${s.cards}`) : null,
        seatBidBadge(v, s.seat, bidsBySeat),
        v.partner === s.seat ? h("span", { class: "badge partner" }, t("seat.partner")) : null,
      ),
    );
    chip.style.left = `${50 + 39 * Math.cos(a)}%`;
    chip.style.top = `${50 + 41 * Math.sin(a)}%`;
    return chip;
  });
  const showing = room.held ? room.held.cards : v.trick || [];
  const winner = room.held ? room.held.winner : null;
  const played = showing.map((p, i) => {
    const a = relativeAngle(p.seat, n, me);
    const card = h(
      "div",
      {
        class: `played${p.seat === winner ? " won" : ""}`,
        role: "img",
        "aria-label": `${seatName(p.seat)}: ${cardName(p.card)}`,
        dataset: { played: p.card, seat: String(p.seat) },
      },
      cardFace(p.card),
    );
    card.style.left = `${50 + 18 * Math.cos(a)}%`;
    card.style.top = `${50 + 24 * Math.sin(a)}%`;
    card.style.zIndex = String(10 + i);
    return card;
  });
  // The centre is free only while no card lies there; the trick's winner is named in
  // a corner of the table, where the cards cannot cover it and nothing moves.
  const centre = h("div", { class: "centre" }, showing.length ? null : centreNote(v));
  const note =
    winner !== null && winner !== undefined
      ? h("p", { class: "trick-note", role: "status" }, "★ ", t("trick.won", { name: seatName(winner) }))
      : null;
  fill(el, h("div", { class: "felt" }), centre, seats, played, note);
  el.classList.toggle("in-lobby", v.phase === "lobby");
  el.classList.toggle(`seats-${n}`, true);
}

function seatBidBadge(v, seat, bidsBySeat) {
  if (v.phase === "bidding" && bidsBySeat.has(seat)) {
    const amount = bidsBySeat.get(seat);
    return h("span", { class: "badge bid" }, amount === null ? t("bid.pass") : t("bid.short", { n: amount }));
  }
  if (v.bidder === seat && v.bid !== null && v.phase !== "lobby") {
    return h("span", { class: "badge bid won-bid" }, t("bid.short", { n: v.bid }));
  }
  return null;
}

function seatDescription(s) {
  const v = room.view;
  const parts = [s.kind === "empty" ? t("seat.empty") : s.name];
  if (s.seat === v.you) parts.push(t("seat.you"));
  if (s.kind === "bot") parts.push(t("seat.bot"));
  if (s.kind === "human" && !s.connected) parts.push(t("seat.away"));
  if (s.seat === v.dealer) parts.push(t("seat.dealer"));
  if ((v.turn || []).includes(s.seat)) parts.push(t("seat.turn"));
  if (v.phase !== "lobby") parts.push(t("seat.cards", { n: s.cards }));
  return parts.join(", ");
}

function centreNote(v) {
  const lines = [];
  if (v.bidder !== null && v.bid !== null && v.phase !== "lobby") {
    lines.push(h("div", {}, t("bid.by", { name: seatName(v.bidder), n: v.bid })));
  }
  if (v.variant === "schmier5" && ["play", "hand_over"].includes(v.phase)) {
    if (v.called) lines.push(h("div", {}, t("call.called", { card: cardShort(v.called) })));
    else if (v.phase === "play") lines.push(h("div", {}, t("call.alone_now")));
  }
  if (v.phase === "lobby") lines.push(h("div", {}, t("lobby.waiting")));
  return h("div", { class: "centre-note" }, lines);
}

function renderJoin() {
  const v = room.view;
  const box = $("join");
  const seated = v.you !== null && v.you !== undefined;
  const open = v.seats.filter((s) => s.kind !== "human");
  box.hidden = seated || open.length === 0 || v.phase === "game_over";
  if (box.hidden) return;
  const buttons = v.teams.map((team, i) =>
    h(
      "div",
      { class: `join-team team-${i}` },
      v.variant !== "schmier5" ? h("span", { class: "team-letter" }, TEAM_LETTERS[i]) : null,
      team.map((seat) => {
        const s = seatInfo(seat);
        const free = s && s.kind !== "human";
        const label =
          s.kind === "empty"
            ? t("join.sit", { n: seat + 1 })
            : s.kind === "bot"
              ? t("join.take_over", { name: s.name, n: seat + 1 })
              : `${s.name} (${seat + 1})`;
        return h(
          "button",
          {
            type: "button",
            class: "seat-pick",
            disabled: !free,
            dataset: { action: "join", seat: String(seat) },
            onclick: () => join(seat),
          },
          label,
        );
      }),
    ),
  );
  fill($("join-seats"), h("p", { class: "muted" }, t("join.pick")), h("div", { class: "join-teams" }, buttons));
  $("join-error").textContent = room.joinError;
}

async function join(seat) {
  const input = $("name");
  const name = input.value.trim();
  if (!name) {
    room.joinError = t("err.name");
    $("join-error").textContent = room.joinError;
    input.focus();
    return;
  }
  localStorage.setItem(NAME_KEY, name);
  let res;
  try {
    res = await api("POST", `/api/rooms/${encodeURIComponent(room.code)}/join`, { name, seat });
  } catch {
    room.joinError = t("err.network");
    $("join-error").textContent = room.joinError;
    return;
  }
  if (res.status === 200 && res.data && res.data.token) {
    room.joinError = "";
    setToken(room.code, res.data.token);
    room.prevTricks = null;
    room.conn.reopen(res.data.token);
    return;
  }
  room.joinError =
    res.status === 409
      ? t("err.seat_taken")
      : res.status === 422
        ? t("err.name")
        : res.status === 404
          ? t("err.no_room")
          : res.status === 429
            ? t("err.too_many")
            : t("err.network");
  $("join-error").textContent = room.joinError;
}

function actionButton(action, label, props = {}, extra = {}) {
  const dataset = { action: action.type };
  if (action.amount !== undefined) dataset.amount = String(action.amount);
  if (action.suit !== undefined) dataset.suit = action.suit;
  if (action.seat !== undefined) dataset.seat = String(action.seat);
  if (action.card) dataset.card = action.card;
  return h(
    "button",
    { type: "button", dataset, onclick: () => send(action), ...props },
    label,
    extra.children || [],
  );
}

function waitingText(v) {
  const names = (v.turn || []).map(seatName);
  if (!names.length) return "";
  return t("wait.for", { names: names.join(", ") });
}

/**
 * Leaving hands the seat to a bot (or frees it in the lobby). The server accepts it
 * from any seated player, listed in `legal` or not. It sits at the bottom of the page,
 * away from the thumb; a mistaken leave is undone by taking the seat back from the bot.
 */
function renderLeave() {
  const v = room.view;
  const el = $("leave");
  const seated = v.you !== null && v.you !== undefined;
  el.hidden = !seated;
  if (!seated) {
    fill(el);
    return;
  }
  const leave = legalOf("leave")[0] || { type: "leave" };
  fill(
    el,
    h("p", { class: "muted" }, v.phase === "lobby" ? t("leave.lobby") : t("leave.game")),
    actionButton(leave, t("leave"), { class: "quiet" }),
  );
}

function renderActions() {
  const v = room.view;
  const el = $("actions");
  const mine = (v.turn || []).includes(v.you);
  const parts = [];
  const title = (text) => h("h2", { class: "panel-title", role: "status" }, text);

  if (["bidding", "trump", "discard", "call"].includes(v.phase)) {
    // This hand's bids stay in view until the play starts.
    parts.push(
      h(
        "div",
        { class: "bids-made", "aria-label": t("bid.list") },
        (v.bids || []).length === 0
          ? h("span", { class: "muted" }, t("bid.none_yet"))
          : (v.bids || []).map((b) =>
              h("span", { class: "bid-entry" }, `${seatName(b.seat)}: `, b.amount === null ? t("bid.pass") : String(b.amount)),
            ),
      ),
    );
  }
  switch (v.phase) {
    case "lobby":
      parts.push(lobbyPanel(v));
      break;
    case "bidding": {
      const bids = legalOf("bid");
      const pass = legalOf("pass")[0];
      if (bids.length || pass) {
        parts.push(title(t("bid.your_turn")));
        parts.push(
          h(
            "div",
            { class: "button-row" },
            bids.map((b) => actionButton(b, String(b.amount), { class: "primary bid-button", "aria-label": t("bid.aria", { n: b.amount }) })),
            pass ? actionButton(pass, t("bid.pass"), { class: "secondary" }) : null,
          ),
        );
      }
      break;
    }
    case "trump": {
      const suits = legalOf("trump");
      if (suits.length) {
        parts.push(title(v.variant === "wisconsin4" ? t("trump.commit") : t("trump.choose")));
        if (v.variant === "wisconsin4") parts.push(h("p", { class: "muted" }, t("trump.commit_help")));
        parts.push(
          h(
            "div",
            { class: "button-row" },
            SUITS.filter((s) => suits.some((a) => a.suit === s)).map((s) =>
              actionButton(
                suits.find((a) => a.suit === s),
                [h("span", { class: "suit-sym", "aria-hidden": "true" }, SUIT_SYMBOL[s]), " ", t(`suit.${s}`)],
                { class: `trump-button suit-${s}` },
              ),
            ),
          ),
        );
      }
      break;
    }
    case "discard": {
      const d = legalOf("discard")[0];
      if (d) {
        const n = room.selected.size;
        const ok = n >= d.min && n <= d.max;
        parts.push(
          title(d.min === d.max ? t("discard.exact", { n: d.min }) : t("discard.range", { min: d.min, max: d.max })),
        );
        parts.push(h("p", { class: "muted" }, t("discard.help", { n })));
        parts.push(
          h(
            "div",
            { class: "button-row" },
            h(
              "button",
              {
                type: "button",
                class: "primary",
                disabled: !ok,
                dataset: { action: "discard" },
                onclick: () => {
                  const cards = [...room.selected];
                  if (cards.length < d.min || cards.length > d.max) return;
                  send({ type: "discard", cards });
                },
              },
              n === 0 && d.min === 0 ? t("discard.none") : t("discard.do", { n }),
            ),
          ),
        );
      }
      break;
    }
    case "call": {
      const calls = legalOf("call");
      if (calls.length) {
        parts.push(title(t("call.title")));
        parts.push(h("p", { class: "muted" }, t("call.help")));
        const bySuit = new Map();
        for (const c of calls) {
          if (!c.card) continue;
          const key = c.card.startsWith("X") ? "X" : c.card[1];
          if (!bySuit.has(key)) bySuit.set(key, []);
          bySuit.get(key).push(c);
        }
        const order = ["S", "H", "C", "D", "X"];
        const rankOrder = "AKQJT98765432";
        parts.push(
          h(
            "div",
            { class: "call-grid" },
            order
              .filter((k) => bySuit.has(k))
              .map((k) =>
                h(
                  "div",
                  { class: `call-suit suit-${k}` },
                  bySuit
                    .get(k)
                    .sort((a, b) => rankOrder.indexOf(a.card[0]) - rankOrder.indexOf(b.card[0]))
                    .map((c) => actionButton(c, cardShort(c.card), { class: `call-card suit-${k}`, "aria-label": cardName(c.card) })),
                ),
              ),
          ),
        );
        const alone = calls.find((c) => !c.card);
        if (alone) {
          parts.push(h("div", { class: "button-row" }, actionButton({ type: "call", card: null }, t("call.alone"), { class: "secondary" })));
        }
      }
      break;
    }
    case "play":
      if (mine && legalOf("play").length) parts.push(title(t("play.your_turn")));
      break;
    case "hand_over":
      parts.push(h("p", { class: "muted" }, t("hand.next_soon")));
      break;
    case "game_over": {
      const winners = (v.winners || []).map((i) => teamLabel(i)).join(", ");
      const iWon = (v.winners || []).some((i) => v.teams[i].includes(v.you));
      parts.push(h("h2", { class: `panel-title game-over${iWon ? " won" : ""}` }, t("game.over")));
      parts.push(h("p", { class: "winners" }, t("game.winners", { names: winners })));
      const rematch = legalOf("rematch")[0];
      if (rematch) parts.push(h("div", { class: "button-row" }, actionButton(rematch, t("game.rematch"), { class: "primary big" })));
      break;
    }
    default:
      break;
  }
  if (!mine && !["lobby", "hand_over", "game_over"].includes(v.phase)) {
    const w = waitingText(v);
    if (w) parts.push(h("p", { class: "waiting" }, w));
  }
  fill(el, parts);
  el.hidden = parts.length === 0;
}

function lobbyPanel(v) {
  const addBots = legalOf("add_bot");
  const removeBots = legalOf("remove_bot");
  const start = legalOf("start")[0];
  const rows = v.teams.map((team, i) =>
    h(
      "div",
      { class: `lobby-team team-${i}` },
      v.variant !== "schmier5"
        ? h("div", { class: "lobby-team-name" }, h("span", { class: "team-letter" }, TEAM_LETTERS[i]), t("team.n", { n: TEAM_LETTERS[i] }))
        : null,
      team.map((seat) => {
        const s = seatInfo(seat);
        const add = addBots.find((a) => a.seat === seat);
        const remove = removeBots.find((a) => a.seat === seat);
        return h(
          "div",
          { class: "lobby-seat", dataset: { seat: String(seat) } },
          h("span", { class: "lobby-seat-no" }, String(seat + 1)),
          h(
            "span",
            { class: `lobby-seat-name${s.kind === "empty" ? " muted" : ""}` },
            s.kind === "empty" ? t("seat.empty") : s.name,
            s.kind === "bot" ? h("span", { class: "badge bot" }, t("seat.bot")) : null,
            s.seat === v.you ? h("span", { class: "badge you" }, t("seat.you")) : null,
          ),
          add ? actionButton(add, t("lobby.add_bot"), { class: "small" }) : null,
          remove ? actionButton(remove, t("lobby.remove_bot"), { class: "small quiet" }) : null,
        );
      }),
    ),
  );
  const buttons = [];
  if (addBots.length > 1) {
    buttons.push(
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          dataset: { action: "fill_bots" },
          onclick: () => {
            for (const a of legalOf("add_bot")) send(a);
          },
        },
        t("lobby.fill"),
      ),
    );
  }
  if (start) buttons.push(actionButton(start, t("lobby.start"), { class: "primary big" }));
  const empty = v.seats.filter((s) => s.kind === "empty").length;
  // The buttons come first: on a phone they are what the thumb is looking for.
  return h(
    "div",
    { class: "lobby" },
    h("h2", { class: "panel-title" }, t("lobby.title")),
    empty ? h("p", { class: "muted" }, t("lobby.need", { n: empty })) : null,
    buttons.length ? h("div", { class: "button-row lobby-buttons" }, buttons) : null,
    h("div", { class: "lobby-teams" }, rows),
  );
}

function renderHand() {
  const v = room.view;
  const el = $("hand");
  if (v.you === null || v.you === undefined) {
    fill(el, v.phase === "lobby" ? null : h("p", { class: "muted spectating" }, t("spectating")));
    return;
  }
  const plays = new Set(legalOf("play").map((a) => a.card));
  const discard = legalOf("discard")[0];
  const from = new Set(discard ? discard.from : []);
  const mode = plays.size ? "play" : discard ? "discard" : "idle";
  const cards = sortHand(v.hand || [], v.trump || v.my_trump, v.variant).map((card) => {
    const enabled = mode === "play" ? plays.has(card) : mode === "discard" ? from.has(card) : false;
    const selected = mode === "discard" && room.selected.has(card);
    const cls = ["card"];
    if (mode !== "idle") cls.push(enabled ? "playable" : "dimmed");
    if (selected) cls.push("selected");
    return h(
      "button",
      {
        type: "button",
        class: cls.join(" "),
        disabled: !enabled,
        "aria-label": cardName(card),
        "aria-pressed": mode === "discard" ? String(selected) : null,
        dataset: { card },
        onclick: () => {
          if (mode === "play") send({ type: "play", card });
          else if (mode === "discard") {
            if (room.selected.has(card)) room.selected.delete(card);
            else room.selected.add(card);
            keepFocus(() => {
              renderHand();
              renderActions();
            });
          }
        },
      },
      cardFace(card),
      selected ? h("span", { class: "discard-mark", "aria-hidden": "true" }, "✕") : null,
    );
  });
  fill(
    el,
    h("h2", { class: "sr-only" }, t("hand.yours")),
    cards.length ? h("div", { class: `cards mode-${mode}` }, cards) : null,
  );
}

const POINT_ORDER = ["high", "low", "right", "left", "jack", "joker", "joker1", "joker2", "game"];

function renderSummary() {
  const v = room.view;
  const el = $("summary");
  const last = v.last_hand;
  if (!last) {
    fill(el);
    el.hidden = true;
    return;
  }
  el.hidden = false;
  const recent = ["hand_over", "game_over"].includes(v.phase);
  const sideName = (i) => (i === null || i === undefined ? t("summary.nobody") : sideLabel(last.sides[i]));
  const names = POINT_ORDER.filter((p) => p in (last.points || {}));
  const rows = names.map((p) => {
    const side = last.points[p];
    const by = last.by ? last.by[p] : null;
    let who = sideName(side);
    if (side === null || side === undefined) who = p === "game" ? t("summary.tie") : t("summary.not_in_play");
    else if (by !== null && by !== undefined && last.sides[side].length > 1) who = `${seatName(by)} (${who})`;
    else if (by !== null && by !== undefined) who = seatName(by);
    return h("tr", { dataset: { point: p } }, h("th", { scope: "row" }, t(`point.${p}`)), h("td", {}, who));
  });
  const totals = (last.game_totals || []).map((n, i) => `${sideLabel(last.sides[i])}: ${n}`).join(" · ");
  const details = h(
    "details",
    { class: "card-panel hand-summary", open: recent, id: "hand-summary" },
    h("summary", {}, h("h2", { class: "inline" }, recent ? t("summary.title") : t("summary.last"))),
    h(
      "p",
      { class: `verdict ${last.made ? "made" : "set"}` },
      t("summary.bid", { name: seatName(last.bidder), n: last.bid }),
      " ",
      h("strong", {}, last.made ? t("summary.made") : t("summary.set")),
    ),
    h("table", { class: "points" }, h("tbody", {}, rows)),
    totals ? h("p", { class: "muted" }, t("summary.game_totals"), ": ", totals) : null,
    h(
      "ul",
      { class: "deltas" },
      (last.deltas || []).map((d, i) =>
        h("li", { class: d < 0 ? "neg" : d > 0 ? "pos" : "" }, `${teamLabel(i)}: `, h("strong", {}, signed(d)), ` → ${v.scores[i]}`),
      ),
    ),
  );
  fill(el, details);
}

function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}

function renderSheet() {
  const el = $("sheet");
  if (!el) return;
  const entries = room.sheet.entries;
  const v = room.view;
  const heading = h("h2", {}, t("sheet.title"));
  if (!entries.length || !v) {
    fill(el, heading, h("p", { class: "muted" }, t("sheet.empty")));
    return;
  }
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, "#"),
    h("th", { scope: "col" }, t("sheet.bid")),
    v.teams.map((_, i) => h("th", { scope: "col", class: "team-col", title: teamLabel(i) }, v.variant === "schmier5" ? seatName(v.teams[i][0]) : TEAM_LETTERS[i])),
  );
  const rows = entries.map((e, k) =>
    h(
      "tr",
      {},
      h("td", {}, String(k + 1)),
      h("td", {}, `${e.bidderName} ${e.bid} `, h("span", { class: e.made ? "made" : "set" }, e.made ? "✓" : "✗")),
      (e.deltas || []).map((d, i) =>
        h("td", { class: "num" }, h("span", { class: d < 0 ? "neg" : "" }, signed(d)), h("br"), h("small", {}, String(e.scores ? e.scores[i] : ""))),
      ),
    ),
  );
  fill(el, heading, h("div", { class: "sheet-wrap" }, h("table", { class: "sheet-table" }, h("thead", {}, head), h("tbody", {}, rows))));
}

function renderInvite() {
  const v = room.view;
  const el = $("invite");
  el.hidden = v.phase !== "lobby";
  if (el.hidden) return;
  const link = `${location.origin}/r/${encodeURIComponent(room.code)}`;
  const input = h("input", { id: "invite-link", readonly: true, value: link, "aria-label": t("invite.link") });
  const copied = h("span", { class: "muted", role: "status" });
  fill(
    el,
    h("h2", {}, t("invite.title")),
    h("p", { class: "muted" }, t("invite.help")),
    h(
      "div",
      { class: "row" },
      input,
      h(
        "button",
        {
          type: "button",
          dataset: { action: "copy" },
          onclick: async () => {
            input.select();
            try {
              await navigator.clipboard.writeText(link);
              copied.textContent = t("invite.copied");
            } catch {
              copied.textContent = t("invite.select");
            }
          },
        },
        t("invite.copy"),
      ),
    ),
    copied,
  );
}

function renderChat() {
  const log = $("chat-log");
  if (!log) return;
  fill(
    log,
    room.chat.map((m) => h("li", {}, h("strong", {}, m.name || seatName(m.seat)), ": ", m.text)),
  );
  log.scrollTop = log.scrollHeight;
  const form = $("chat-form");
  if (form) form.hidden = !room.view || room.view.you === null || room.view.you === undefined;
}

// ---------------------------------------------------------------- start

function start() {
  document.documentElement.lang = currentLanguage();
  const m = location.pathname.match(/^\/r\/([^/]+)\/?$/);
  if (m) {
    const code = decodeURIComponent(m[1]);
    if (room.fatal) renderFatal();
    else if (room.conn) {
      // A language change: rebuild the page around the live connection.
      buildRoom();
      renderBanner();
      if (room.view) render();
    } else openRoom(code);
  } else {
    home();
  }
}

start();
