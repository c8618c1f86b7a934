// The coach in the hand summary: each player's accuracy in the hand just scored and the
// points left on the table by the search's reckoning (docs/coach.md), from the hand's
// analysis (GET /api/rooms/{code}/hands/{n}/analysis, docs/protocol.md).
//
// An analysis costs the server seconds of a worker, so it starts only when a player asks
// ("Coach: weigh this hand"). One somebody already asked for (in the review, from
// another seat) is shown at once: the summary looks with `?start=0`, which never starts
// one. While it is computed the summary polls as the 202's Retry-After says, and only
// while it is open and still shows that hand (the next hand dealt folds it and so stops
// the polling); an answer that comes back for a hand no longer shown is dropped.

import { botName, currentLanguage, num, t } from "./i18n.js";
import { $, fill, h } from "./dom.js";
import { api } from "./net.js";
import { room } from "./state.js";

/** Seconds between polls when a 202 names none. */
const POLL_SECONDS = 1;
/** A refusal's wait from this many seconds on is said in minutes. */
const IN_MINUTES = 90;

let shown = null; // the coach of the hand on show (made by `coachOf`), or null

/** The slot in the hand summary (summary.js) holding the coach of the hand on show. */
export function summaryCoach(openReview) {
  const slot = h("div", { id: "summary-coach-slot" });
  place(slot, openReview);
  return slot;
}

/** Draw the slot again in place (the hand's number became known), the rest untouched. */
export function renderSummaryCoach(openReview) {
  const slot = $("summary-coach-slot");
  if (slot) place(slot, openReview);
}

/** Poll again if the summary was opened while an analysis is computed. */
export function resumeSummaryCoach() {
  const c = shown;
  if (c && c.phase === "pending") schedule(c);
}

function place(slot, openReview) {
  const n = room.deals ? room.deals.latest : null;
  if (n === null || n === undefined || !room.code) {
    // A new hand was scored and its number is not known yet: the last one's coach goes.
    if (shown) clearTimeout(shown.timer);
    shown = null;
    fill(slot);
    return;
  }
  if (!shown || shown.key !== `${room.code}:${n}`) {
    if (shown) clearTimeout(shown.timer);
    shown = coachOf(room.code, n, openReview);
    ask(shown, false);
  }
  draw(shown);
  fill(slot, shown.phase === "absent" ? null : shown.el);
  // Once the summary around it is on the page: poll on if it is open.
  queueMicrotask(resumeSummaryCoach);
}

function coachOf(code, n, openReview) {
  const c = { key: `${code}:${n}`, code, n, phase: "looking", analysis: null, progress: null, retry: 0, poll: POLL_SECONDS };
  Object.assign(c, { timer: null, asking: false, figuresOf: "" });
  c.title = h("h3", { id: "summary-coach-title" });
  c.explain = h("p", { class: "muted small" });
  c.start = h("button", { type: "button", class: "secondary", dataset: { action: "coach_weigh" }, onclick: () => ask(c, true) });
  c.bar = h("progress", { class: "coach-progress", max: "1", value: "0", hidden: true });
  c.row = h("div", { class: "row summary-coach-ask" }, c.start, c.bar);
  c.status = h("p", { class: "coach-status small", role: "status", "aria-live": "polite" });
  c.figures = h("div", { class: "summary-coach-figures", "aria-live": "polite" });
  c.review = h("button", { type: "button", class: "quiet", dataset: { action: "coach_review" }, onclick: () => openReview(n) });
  c.el = h(
    "section",
    { class: "summary-coach", "aria-labelledby": "summary-coach-title", dataset: { coachSummary: "", hand: String(n) } },
    c.title,
    c.explain,
    c.row,
    c.status,
    c.figures,
    c.review,
  );
  return c;
}

/** Set a text only when it changes (a live region re-announces any change). */
function say(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function statusText(c) {
  switch (c.phase) {
    case "pending":
      return t("coach.progress", { done: num(c.progress.done), total: num(c.progress.total) });
    case "done":
      return t("coach.done", { n: num(c.analysis.decisions.length) });
    case "refused":
      return c.retry >= IN_MINUTES ? t("handcoach.busy_minutes", { minutes: num(Math.ceil(c.retry / 60)) }) : t("coach.busy", { seconds: num(c.retry) });
    case "none":
      return t("coach.none");
    case "failed":
      return t("coach.failed");
    default:
      return "";
  }
}

function draw(c) {
  c.el.dataset.state = c.phase;
  say(c.title, t("coach.title"));
  const asking = ["idle", "refused", "failed"].includes(c.phase);
  c.explain.hidden = !asking;
  say(c.explain, t("handcoach.explain"));
  c.start.hidden = !asking;
  c.start.disabled = c.asking;
  say(c.start, t("handcoach.start"));
  c.bar.hidden = c.phase !== "pending";
  c.row.hidden = c.start.hidden && c.bar.hidden;
  c.bar.setAttribute("aria-label", t("coach.progress_label"));
  if (c.phase === "pending") {
    c.bar.max = Math.max(1, c.progress.total);
    c.bar.value = c.progress.done;
  }
  say(c.status, statusText(c));
  c.review.hidden = c.phase !== "done" && c.phase !== "pending";
  say(c.review, t("handcoach.review"));
  // The table is made again only when there is something new to say in it.
  const figuresOf = c.phase === "done" ? `${currentLanguage()}` : "";
  if (figuresOf !== c.figuresOf) {
    c.figuresOf = figuresOf;
    fill(c.figures, c.phase === "done" ? figures(c.analysis) : null);
  }
}

/** Each player's accuracy (rounded as the review's coach rounds) and points left. */
function figures(analysis) {
  return h(
    "table",
    { class: "summary-coach-table" },
    h("caption", {}, t("coach.accuracy_title")),
    h(
      "thead",
      {},
      h("tr", {}, h("th", { scope: "col" }, t("coach.seat")), h("th", { scope: "col" }, t("handcoach.accuracy")), h("th", { scope: "col" }, t("handcoach.loss"))),
    ),
    h(
      "tbody",
      {},
      analysis.players.map((p) =>
        h(
          "tr",
          { dataset: { seat: String(p.seat) } },
          h("th", { scope: "row" }, botName(String(p.name))),
          h("td", { class: "num", dataset: { coach: "accuracy" } }, num(Math.round(p.accuracy))),
          h("td", { class: "num", dataset: { coach: "loss" } }, num(Math.round(p.loss * 100) / 100)),
        ),
      ),
    ),
  );
}

/** Polling goes on only while this hand's summary is on the page and open. */
function live(c) {
  if (shown !== c || !c.el.isConnected) return false;
  const details = c.el.closest("details");
  return !details || details.open;
}

function schedule(c) {
  if (c.timer || c.asking || !live(c)) return;
  c.timer = setTimeout(() => {
    c.timer = null;
    if (live(c)) ask(c, true);
  }, c.poll * 1000);
}

function seconds(res, fallback) {
  const s = Number(res.headers && res.headers.get("Retry-After"));
  return Number.isFinite(s) && s >= 1 ? s : fallback;
}

/** Ask for the analysis (`start`: start it if nobody has; else only look). */
async function ask(c, start) {
  clearTimeout(c.timer);
  c.timer = null;
  if (c.asking) return;
  c.asking = true;
  if (start) draw(c);
  const path = `/api/rooms/${encodeURIComponent(c.code)}/hands/${c.n}/analysis${start ? "" : "?start=0"}`;
  let res;
  try {
    res = await api("GET", path);
  } catch {
    res = { status: 0, data: null };
  }
  c.asking = false;
  if (shown !== c) return; // another hand is on show now: the answer is of no use
  if (c.phase === "done") return; // the review's coach told it meanwhile
  if (res.status === 200 && res.data && Array.isArray(res.data.players)) {
    c.phase = "done";
    c.analysis = res.data;
  } else if (res.status === 202 && res.data) {
    c.phase = "pending";
    c.progress = res.data;
    c.poll = seconds(res, POLL_SECONDS);
  } else if (res.status === 429) {
    c.phase = "refused";
    c.retry = Number(res.data && res.data.retry_after) || seconds(res, 60);
  } else if (res.status === 404) {
    c.phase = start ? "none" : "absent"; // no record (a hand that is not the room's)
  } else if (res.status === 204 || !start) {
    c.phase = "idle";
  } else {
    c.phase = "failed";
  }
  draw(c);
  if (c.phase === "absent") c.el.remove();
  if (c.phase === "pending") schedule(c);
  if (c.phase === "done") {
    // The room's history (history.js) shows the game's accuracy with this hand in it.
    const detail = { code: c.code, n: c.n, status: 200, data: c.analysis };
    document.dispatchEvent(new CustomEvent("schmier:analysis", { detail }));
  }
}

// The review's coach tells of what it was answered: the summary of that hand shows it too.
document.addEventListener("schmier:analysis", (ev) => {
  const c = shown;
  const { code, n, status, data } = ev.detail || {};
  if (!c || code !== c.code || n !== c.n || c.phase === "done") return;
  if (status === 200) {
    clearTimeout(c.timer);
    c.timer = null;
    c.phase = "done";
    c.analysis = data;
  } else if (status === 202 && c.phase !== "pending") {
    c.phase = "pending";
    c.progress = data;
  } else return;
  draw(c);
  if (c.phase === "pending") schedule(c);
});
