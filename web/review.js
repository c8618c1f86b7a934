// The review of a finished hand: every hand face up, the stock or kitty, the bids and
// the discards, then trick by trick, forward and back (buttons, the arrow keys, a swipe),
// the result, and the check of the deal; with the hand's exports (its record as JSON,
// a plain-text transcript) and its link (/r/{code}/h/{n}, the read-only replay page).
//
// Drawn from the hand's record alone (steps.js, handparts.js), so the same review opens
// over the room (`openReviewDialog`) and as its own page (replay.js). Which step is on
// show is the review's own state: it is nobody else's business, and it is read-only.

import { t } from "./i18n.js";
import { fill, h } from "./dom.js";
import { gameLabel } from "./games.js";
import { copyLink } from "./page.js";
import { stepsOf } from "./steps.js";
import { icon } from "./icons.js";
import { dealPanel, handLine, middleOf, seatsAt } from "./handparts.js";
import { transcript } from "./transcript.js";
import { coachPanel } from "./coach.js";
import { tablesPanel } from "./tables.js";

const SWIPE_PX = 40;

/** The link to the review of hand `n` of room `code`. */
export function reviewLink(code, n) {
  return `${location.origin}/r/${encodeURIComponent(code)}/h/${n}`;
}

function stepTitle(step, count) {
  if (step.kind === "trick") return t("review.trick", { n: step.index + 1, total: count });
  return t(`review.step.${step.kind}`);
}

/**
 * Build the review of `record` (the rule book `book`; `outcome` the check of its deal,
 * if made; `onStep(i)` told of each step the viewer moves to). Returns `{el, go(delta),
 * goTo(i, quiet), key(event), steps, stage, coaching, at(), focus()}` (`coaching` the
 * coach's panel, coach.js, or null).
 */
export function reviewView(record, book, { code, outcome = null, step = 0, onStep = null, coach = Boolean(code) } = {}) {
  const { facts, steps } = stepsOf(record);
  const tricks = facts.tricks.length;
  const state = { at: Math.max(0, Math.min(steps.length - 1, step)) };
  // A name that holds the word one sees ("Back"), whatever else it says (WCAG 2.5.3).
  const spoken = (key) => {
    const word = t(`review.${key}_short`);
    const long = t(`review.${key}`);
    return long.toLowerCase().includes(word.toLowerCase()) ? long : `${word}: ${long}`;
  };
  const status = h("p", { class: "review-step", role: "status", "aria-live": "polite" });
  const stage = h("div", { class: "review-stage" });
  const nav = (action, label, text) =>
    h("button", { type: "button", class: "secondary review-nav-button", dataset: { review: action }, "aria-label": label }, text);
  const first = nav("first", t("review.first"), icon("first"));
  const prev = nav("prev", spoken("prev"), ["◀ ", h("span", { class: "nav-word" }, t("review.prev_short"))]);
  const next = nav("next", spoken("next"), [h("span", { class: "nav-word" }, t("review.next_short")), " ▶"]);
  const last = nav("last", t("review.last"), icon("last"));

  const draw = () => {
    const s = steps[state.at];
    status.textContent = `${stepTitle(s, tricks)} · ${t("review.step_of", { n: state.at + 1, total: steps.length })}`;
    fill(stage, middleOf(record, book, facts, s), seatsAt(record, book, facts, s));
    stage.dataset.step = String(state.at);
    stage.dataset.kind = s.kind;
    first.disabled = prev.disabled = state.at === 0;
    next.disabled = last.disabled = state.at === steps.length - 1;
    if (coaching) coaching.show(state.at);
  };
  // `quiet`: moved from outside (the shared review's leader), so `onStep` is not told.
  const goTo = (i, quiet = false) => {
    const to = Math.max(0, Math.min(steps.length - 1, i));
    if (to === state.at) return;
    state.at = to;
    draw();
    if (onStep && !quiet) onStep(to);
  };
  const go = (delta) => goTo(state.at + delta);
  // The coach (coach.js): a room's hand only, its analysis asked of the server.
  const coaching = coach && code ? coachPanel(record, steps, code, goTo) : null;
  first.addEventListener("click", () => goTo(0));
  prev.addEventListener("click", () => go(-1));
  next.addEventListener("click", () => go(1));
  last.addEventListener("click", () => goTo(steps.length - 1));
  swipe(stage, go);

  const title = t("review.title", { n: record.n });
  const el = h(
    "section",
    {
      class: "review",
      tabindex: "-1",
      "aria-label": title,
      dataset: { hand: String(record.n) },
      onkeydown: (ev) => key(ev),
    },
    h(
      "header",
      { class: "review-head" },
      h("h2", {}, title, " ", h("span", { class: "muted" }, `· ${t("review.game", { n: record.game })} · ${gameLabel(record.variant)}`)),
      h("p", { class: "muted review-line" }, handLine(record, book, facts)),
    ),
    h("div", { class: "review-nav", role: "toolbar", "aria-label": t("review.steps") }, first, prev, status, next, last),
    stage,
    coaching ? coaching.el : null,
    h("p", { class: "muted small review-keys" }, t("review.keys")),
    // Another table, and how each table played this deal (tables.js): a room's hand only.
    code ? tablesPanel(code, record.n) : null,
    dealPanel(record, outcome),
    exports(record, book, code, outcome),
  );
  draw();
  const key = (ev) => keys(ev, go, goTo, steps.length);
  return { el, go, goTo, key, steps, stage, coaching, at: () => state.at, focus: () => el.focus({ preventScroll: true }) };
}

/** ← → step, Home and End go to the ends (not while typing, nor with a modifier). */
function keys(ev, go, goTo, count) {
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const tag = ev.target && ev.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  const moves = { ArrowLeft: () => go(-1), ArrowRight: () => go(1), Home: () => goTo(0), End: () => goTo(count - 1) };
  if (!moves[ev.key]) return;
  ev.preventDefault();
  moves[ev.key]();
}

/** A horizontal swipe on `el` steps: to the left is forward, as in a book. */
function swipe(el, go) {
  let from = null;
  el.addEventListener("pointerdown", (ev) => {
    from = { x: ev.clientX, y: ev.clientY, id: ev.pointerId };
  });
  el.addEventListener("pointercancel", () => {
    from = null;
  });
  el.addEventListener("pointerup", (ev) => {
    if (!from || from.id !== ev.pointerId) return;
    const dx = ev.clientX - from.x;
    const dy = ev.clientY - from.y;
    from = null;
    if (Math.abs(dx) >= SWIPE_PX && Math.abs(dx) > 1.5 * Math.abs(dy)) go(dx < 0 ? 1 : -1);
  });
}

function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Export the hand (its record, a transcript) and share its link. */
function exports(record, book, code, outcome) {
  const base = `schmier-${String(code || "room").toLowerCase()}-hand-${record.n}`;
  const link = code ? reviewLink(code, record.n) : "";
  const copied = h("span", { class: "muted", role: "status" });
  const copy = () => copyLink(input, copied, link);
  const input = h("input", { readonly: true, value: link, class: "review-link", "aria-label": t("review.link") });
  return h(
    "div",
    { class: "review-exports" },
    h(
      "div",
      { class: "button-row" },
      h(
        "button",
        {
          type: "button",
          dataset: { review: "json" },
          onclick: () => download(`${base}.json`, "application/json", `${JSON.stringify(record, null, 2)}\n`),
        },
        t("review.export_json"),
      ),
      h(
        "button",
        {
          type: "button",
          dataset: { review: "text" },
          onclick: () => download(`${base}.txt`, "text/plain;charset=utf-8", transcript(record, book, outcome, link)),
        },
        t("review.export_text"),
      ),
    ),
    link
      ? h(
          "div",
          { class: "row review-share" },
          input,
          h("button", { type: "button", dataset: { review: "copy" }, onclick: copy }, t("invite.copy")),
        )
      : null,
    copied,
  );
}

let openDialog = null;

/**
 * Show the review of hand `n` over the room. `load()` gives its record (or null) and
 * `outcomeOf(record)` the check of its deal. Escape, or the close button, closes it.
 * `code` null: a hand of a club's archive, whose room may be gone (no page, no link).
 * `coach`: opened at the coach, its analysis asked for at once (the hand summary's link).
 */
export async function openReviewDialog(code, n, book, load, outcomeOf, { coach = false } = {}) {
  closeReviewDialog();
  const dialog = h("dialog", { class: "review-dialog", id: "review-dialog", "aria-label": t("review.title", { n }) });
  const close = h("button", { type: "button", class: "quiet review-close", dataset: { review: "close" } }, `✕ ${t("review.close")}`);
  close.addEventListener("click", closeReviewDialog);
  const open = code ? h("a", { href: reviewLink(code, n), class: "button-link quiet", dataset: { review: "page" } }, t("review.open_page")) : null;
  const body = h("div", { class: "review-body" }, h("p", { class: "muted" }, t("review.loading")));
  dialog.append(h("div", { class: "review-bar" }, open, close), body);
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (openDialog === dialog) openDialog = null;
  });
  document.body.append(dialog);
  openDialog = dialog;
  dialog.showModal();
  let record = null;
  try {
    record = await load();
  } catch {
    record = null;
  }
  if (openDialog !== dialog) return;
  if (!record) {
    fill(body, h("p", {}, t("review.missing")));
    return;
  }
  const review = reviewView(record, book, { code, outcome: outcomeOf(record) });
  fill(body, review.el);
  if (coach && review.coaching) review.coaching.open();
  else review.focus();
}

export function closeReviewDialog() {
  const dialog = openDialog;
  openDialog = null;
  if (!dialog) return;
  if (dialog.open) dialog.close();
  dialog.remove();
}
