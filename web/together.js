// Review together (docs/protocol.md, "Review together"): the table looks at a finished
// hand with one leader. The panel under the table offers to open a shared review
// between hands (a seated player) or to join the one that is open (anyone, spectators
// too); the review itself opens over the room as a dialog, drawn by review.js, with a
// bar that says who leads, who follows and who looks on their own, and the controls:
// "Back to the leader", the lead handed on, "Close for everyone" (the leader's), leave.
//
// The leader's steps and pointer come in `review` frames (state.js keeps the last in
// `room.review`); a follower's review moves with them. Stepping on one's own (buttons,
// arrow keys, a swipe) stops following until "Back to the leader". The leader's own
// moves are sent as the server's action counts (sharedsteps.js); the leader points at a
// card by clicking or tapping it, or by focusing it and pressing Enter.
//
// The leader may also play the hand on from the step on show, or deal it again ("Practice
// from this step", "Play this deal again"): the server makes a practice room and sends
// each seated player their seat's token there (`practice` frame, kept in `room.practice`);
// the token is kept as a join's would be, and a link opens the practice room.

import { t } from "./i18n.js";
import { $, fill, h } from "./dom.js";
import { isSeated, room, seatName, send } from "./state.js";
import { recordOf } from "./deals.js";
import { setToken } from "./net.js";
import { cardName } from "./cards.js";
import { closeReviewDialog, reviewView } from "./review.js";
import { stepsOf } from "./steps.js";
import { reviewStepOf, startsOf } from "./sharedsteps.js";

const BETWEEN_HANDS = new Set(["hand_over", "game_over"]);

/** This page's side of the shared review: its dialog, and whether it follows. */
const shared = { dialog: null, hand: null, view: null, starts: [], following: true, bar: null, declined: false, offer: null, pick: null, leadPick: null };

// The panel and the bar are drawn again at every frame (another person joins, the leader
// steps): what this person was doing in them stays, the control the keyboard was on and
// what they chose in a list (`shared.pick`, `shared.leadPick`), so that the frame takes
// neither away between choosing and pressing.

/** The control in `el` the keyboard is on, as a selector to find it again after a redraw. */
function focusedControl(el) {
  const active = document.activeElement;
  if (!active || !el.contains(active)) return null;
  if (active.id) return `#${CSS.escape(active.id)}`;
  return active.dataset && active.dataset.together ? `[data-together="${CSS.escape(active.dataset.together)}"]` : null;
}

function focusAgain(el, selector) {
  const again = selector ? el.querySelector(selector) : null;
  if (again && document.activeElement !== again) again.focus({ preventScroll: true });
}

function me() {
  return isSeated() ? room.view.you : null;
}

function leading() {
  const r = room.review;
  return Boolean(r && r.hand !== null && r.leader === me());
}

function names(seats) {
  return seats.length ? seats.map(seatName).join(", ") : t("together.nobody");
}

/** The hands there are to review: 1 to the latest finished one. */
function finishedHands() {
  const latest = room.deals ? room.deals.latest : null;
  return latest ? Array.from({ length: latest }, (_, i) => i + 1) : [];
}

// ---------------------------------------------------------------- the panel

/** The panel under the table: open a shared review, or join the one that is open. */
export function togetherPanel() {
  return h("section", { id: "together", class: "card-panel together", "aria-labelledby": "together-title", hidden: true });
}

/** Draw the panel again (a new view, a `review` frame, the list of hands). */
export function renderTogether() {
  const el = $("together");
  if (!el) return;
  const r = room.review;
  const open = r && r.hand !== null;
  const phase = room.view ? room.view.phase : null;
  const hands = finishedHands();
  const canOpen = !open && isSeated() && BETWEEN_HANDS.has(phase) && hands.length > 0;
  el.hidden = !open && !canOpen;
  if (el.hidden) {
    fill(el);
    return;
  }
  const focused = focusedControl(el);
  const title = h("h2", { id: "together-title" }, t("together.title"));
  if (open) {
    const joined = shared.dialog !== null;
    fill(
      el,
      title,
      h("p", { class: "together-now", role: "status" }, t("together.open_hand", { n: r.hand }), " ", leaderLine(r)),
      joined
        ? null
        : h("button", { type: "button", dataset: { together: "join" }, onclick: () => joinShared() }, t("together.join")),
      practiceOffer(),
    );
    focusAgain(el, focused);
    return;
  }
  // The latest hand, unless this person chose another that is still there.
  const wanted = hands.includes(shared.pick) ? shared.pick : hands[hands.length - 1];
  const pick = h(
    "select",
    { id: "together-hand", "aria-label": t("together.hand"), onchange: () => (shared.pick = Number(pick.value)) },
    ...hands.map((n) => h("option", { value: String(n), selected: n === wanted }, t("review.title", { n }))),
  );
  fill(
    el,
    title,
    practiceOffer(),
    h("p", { class: "muted small" }, t("together.about")),
    h(
      "div",
      { class: "row" },
      pick,
      h(
        "button",
        { type: "button", dataset: { together: "open" }, onclick: () => send({ type: "review", op: "open", hand: Number(pick.value) }) },
        t("together.open"),
      ),
    ),
  );
  focusAgain(el, focused);
}

/** The practice room made for this seat, as a link (it opens in a tab of its own). */
function practiceOffer() {
  const offer = shared.offer;
  if (!offer) return null;
  return h(
    "p",
    { class: "together-practice", role: "status" },
    t("together.practice_ready"),
    " ",
    h("a", { href: `/r/${encodeURIComponent(offer.code)}`, target: "_blank", rel: "noopener", dataset: { together: "practice" } }, t("together.practice_open")),
  );
}

function leaderLine(r) {
  return r.leader === me() ? t("together.you_lead") : t("together.leads", { name: seatName(r.leader) });
}

// ---------------------------------------------------------------- the dialog

/** A `review` or `practice` frame arrived (state.js): the panel and the dialog follow. */
export function onReview() {
  const offer = room.practice;
  if (offer && offer !== shared.offer) {
    setToken(offer.code, offer.token);
    shared.offer = offer;
  }
  const r = room.review;
  const open = r && r.hand !== null;
  if (shared.dialog && (!open || r.hand !== shared.hand)) leaveShared(false);
  if (open && !shared.dialog && r.leader === me() && !shared.declined) joinShared();
  if (!open) shared.declined = false;
  if (shared.dialog) follow();
  renderTogether();
}

/** Look on: the record of the hand, the review over the room, following the leader. */
export async function joinShared() {
  const r = room.review;
  if (!r || r.hand === null || shared.dialog) return;
  closeReviewDialog();
  const hand = r.hand;
  const dialog = h("dialog", { class: "review-dialog together-dialog", id: "together-dialog", "aria-label": t("together.title") });
  const body = h("div", { class: "review-body" }, h("p", { class: "muted" }, t("review.loading")));
  shared.bar = h("div", { class: "together-bar", id: "together-bar" });
  dialog.append(shared.bar, body);
  dialog.addEventListener("cancel", (ev) => {
    ev.preventDefault();
    leaveShared(true);
  });
  Object.assign(shared, { dialog, hand, view: null, following: true, declined: false, pick: null });
  document.body.append(dialog);
  dialog.showModal();
  if (me() !== null && !leading()) send({ type: "review", op: "join" });
  let record = null;
  try {
    record = await recordOf(room.deals, hand);
  } catch {
    record = null;
  }
  if (shared.dialog !== dialog) return;
  if (!record) {
    fill(body, h("p", {}, t("review.missing")));
    return;
  }
  const view = reviewView(record, room.book, { code: room.code, onStep: (i) => stepped(i) });
  shared.view = view;
  shared.starts = startsOf(record, view.steps);
  view.stage.addEventListener("click", (ev) => pointAt(ev.target));
  view.stage.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") {
      if (pointAt(ev.target)) ev.preventDefault();
    }
  });
  fill(body, view.el);
  follow();
  view.focus();
  renderTogether();
}

/** Stop looking on (`told`: the viewer chose to, so the others are told). */
function leaveShared(told) {
  const dialog = shared.dialog;
  if (!dialog) return;
  if (told) {
    shared.declined = true;
    if (me() !== null && !leading() && room.review && room.review.hand !== null) {
      send({ type: "review", op: "follow", follow: false });
    }
  }
  Object.assign(shared, { dialog: null, hand: null, view: null, starts: [], bar: null, leadPick: null });
  if (dialog.open) dialog.close();
  dialog.remove();
  renderTogether();
}

/** The viewer moved the review to its step `i` (buttons, keys, a swipe). */
function stepped(i) {
  const r = room.review;
  if (!r || r.hand === null) return;
  if (leading()) {
    send({ type: "review", op: "step", step: shared.starts[i] });
  } else if (shared.following && i !== reviewStepOf(shared.starts, r.step)) {
    shared.following = false;
    if (me() !== null) send({ type: "review", op: "follow", follow: false });
  }
  decorate();
  drawBar();
}

/** "Back to the leader": follow again, at the leader's step. */
function backToLeader() {
  shared.following = true;
  if (me() !== null) send({ type: "review", op: "follow", follow: true });
  follow();
  if (shared.view) shared.view.focus();
}

/** Show the leader's step (when following) and pointer, and the bar. */
function follow() {
  const r = room.review;
  const view = shared.view;
  if (view && r && r.hand !== null && (shared.following || leading())) {
    view.goTo(reviewStepOf(shared.starts, r.step), true);
  }
  decorate();
  drawBar();
}

/** The leader's pointer on the stage's cards; the leader's cards can be pointed at. */
function decorate() {
  const view = shared.view;
  const r = room.review;
  if (!view || !r) return;
  const lead = leading();
  const onLeadersStep = reviewStepOf(shared.starts, r.step) === view.at();
  for (const card of view.stage.querySelectorAll("[data-rcard]")) {
    const pointed = onLeadersStep && r.point !== null && card.dataset.rcard === r.point;
    card.classList.toggle("pointed", pointed);
    if (lead) {
      card.tabIndex = 0;
      card.setAttribute("role", "button");
      card.setAttribute("aria-pressed", pointed ? "true" : "false");
    }
  }
}

/** The leader clicked, tapped or pressed Enter on `target`: point at its card (again:
 * at nothing). Whether it was a card. */
function pointAt(target) {
  const card = target && target.closest ? target.closest("[data-rcard]") : null;
  if (!card || !leading()) return false;
  const r = room.review;
  const here = shared.view && reviewStepOf(shared.starts, r.step) === shared.view.at();
  const again = here && r.point === card.dataset.rcard;
  send({ type: "review", op: "point", card: again ? null : card.dataset.rcard });
  return true;
}

/** Who leads, who follows, who looks on alone; this viewer's controls. */
function drawBar() {
  const bar = shared.bar;
  const r = room.review;
  if (!bar || !r || r.hand === null) return;
  const focused = focusedControl(bar);
  const lead = leading();
  const mine = shared.following ? t("together.you_follow") : t("together.you_wander");
  const pointer =
    r.point !== null ? h("p", { class: "together-point", dataset: { point: r.point } }, t("together.points", { name: seatName(r.leader), card: cardName(r.point) })) : null;
  const controls = [];
  if (!lead && !shared.following) {
    controls.push(h("button", { type: "button", dataset: { together: "back" }, onclick: backToLeader }, t("together.back")));
  }
  if (lead) controls.push(...leadControls());
  controls.push(
    h("button", { type: "button", class: "quiet", dataset: { together: "leave" }, onclick: () => leaveShared(true) }, `✕ ${t("together.leave")}`),
  );
  fill(
    bar,
    h(
      "div",
      { class: "together-who", role: "status", "aria-live": "polite" },
      h("p", { dataset: { leader: String(r.leader) } }, h("strong", {}, leaderLine(r)), lead ? null : ` · ${mine}`),
      h("p", { class: "muted small", dataset: { following: r.following.join(",") } }, t("together.following", { names: names(r.following) })),
      h("p", { class: "muted small", dataset: { wandering: r.wandering.join(",") } }, t("together.wandering", { names: names(r.wandering) })),
      pointer,
      lead ? h("p", { class: "muted small" }, t("together.point_help")) : null,
      practiceOffer(),
    ),
    h("div", { class: "button-row together-controls" }, ...controls),
  );
  focusAgain(bar, focused);
}

/** The leader's: hand the lead to another person at the table, close for everyone. */
function leadControls() {
  const others = (room.view?.seats || []).filter((s) => s.kind === "human" && s.seat !== me());
  const out = [];
  if (others.length) {
    const pick = h(
      "select",
      { id: "together-lead", "aria-label": t("together.hand_lead"), onchange: () => (shared.leadPick = Number(pick.value)) },
      ...others.map((s) => h("option", { value: String(s.seat), selected: s.seat === shared.leadPick }, seatName(s.seat))),
    );
    out.push(
      h(
        "span",
        { class: "row together-lead" },
        pick,
        h(
          "button",
          { type: "button", class: "secondary", dataset: { together: "lead" }, onclick: () => send({ type: "review", op: "lead", seat: Number(pick.value) }) },
          t("together.give"),
        ),
      ),
    );
  }
  const practice = (key, step) =>
    h("button", { type: "button", class: "secondary", dataset: { together: key }, onclick: () => send({ type: "review", op: "practice", step: step() }) }, t(`together.${key}`));
  out.push(
    practice("practice_here", () => (shared.view ? shared.starts[shared.view.at()] : 0)),
    practice("deal_again", () => 0),
    h("button", { type: "button", class: "secondary", dataset: { together: "close" }, onclick: () => send({ type: "review", op: "close" }) }, t("together.close_all")),
  );
  return out;
}
