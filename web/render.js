// The room page's render orchestrator: builds the page's fixed frame, and after every
// change of the room state (state.js) redraws the panels that show it. Each panel is
// drawn by its own module from `room` alone; this module only decides which ones, in
// which order, and keeps the keyboard focus in place while they are replaced.

import { t } from "./i18n.js";
import { $, h, keepFocus, setNextFocus } from "./dom.js";
import { messagePage, shell, showBanner, showToast } from "./page.js";
import { gameLabel } from "./games.js";
import { myTurn, room, subscribe } from "./state.js";
import { placeTrick, renderScoreboard, renderTable, renderTopbar } from "./table.js";
import { renderActions } from "./actions.js";
import { renderHand } from "./hand.js";
import { coachInReview, renderSheet, renderSummary } from "./summary.js";
import { renderSummaryCoach } from "./handcoach.js";
import {
  chatPanel,
  joinPanel,
  renderChat,
  renderChatForm,
  renderInvite,
  renderJoin,
  renderJoinError,
  renderLeave,
  renderSeatLink,
} from "./side.js";
import { listenForTrickKeys, renderTricksBar } from "./lasttrick.js";
import { renderFairAlert } from "./fairview.js";
import { historyPanel, refreshHistory } from "./history.js";
import { renderHandTools } from "./reviewopen.js";
import { afterRender, afterSelection, listenForArrows, nextThing } from "./keys.js";
import { settingsPanel } from "./settings.js";
import { afterRedraw, beforeRedraw } from "./motion.js";
import { cue } from "./sound.js";
import { onSeatSize, renderTurnTimer } from "./timer.js";
import { renderTimedOut } from "./timeout.js";
import { renderHostTools, renderPauseNotice } from "./host.js";
import { renderPaused } from "./banner.js";
import { renderTally } from "./tally.js";
import { onReview, renderTogether, togetherPanel } from "./together.js";
import { practicePanel, renderPractice } from "./practiceview.js";

/** What to redraw for each change announced by state.js. */
const REDRAW = {
  view: renderView,
  status: () => showBanner(room.status),
  chat: renderChat,
  selection: () => {
    renderControls();
    afterSelection();
  },
  hint: renderControls,
  join: renderJoinError,
  toast: () => showToast(room.toast),
  fatal: renderFatal,
  paused: () => (room.view ? renderView() : renderPaused(room.paused)),
  timedout: () => renderTimedOut(room.timedOut),
  review: onReview,
  deals: () =>
    keepFocus(() => {
      renderFairAlert(room.deals);
      renderHandTools();
      renderSummaryCoach(coachInReview);
      renderTogether();
      renderSheet();
      refreshHistory();
    }),
};

/** The hand and the action panel (a pick for the discard, a hint), paused or not. */
function renderControls() {
  keepFocus(() => {
    renderHand();
    renderActions();
  });
  renderPaused(room.paused);
}

let subscribed = false;

// The trick's cards lie where the seats leave room, which the table's size decides: the
// window's, and on a phone held sideways the top bar's height too (a chip that wraps it
// to two rows, the banner), which changes the table's and not the window's.
const tableSize = new ResizeObserver(() => placeTrick());

/** Draw the room page (again, after a language change) and follow the room state. */
export function showRoom() {
  if (!subscribed) {
    subscribe((what) => {
      if (room.fatal && what !== "fatal") return;
      if (what === "fatal" || $("room")) REDRAW[what]();
    });
    subscribed = true;
    listenForTrickKeys();
    listenForArrows();
    setNextFocus(nextThing);
    onSeatSize(placeTrick);
  }
  if (room.fatal) {
    renderFatal();
    return;
  }
  document.title = `Schmier · ${room.code}`;
  buildFrame();
  tableSize.disconnect();
  tableSize.observe($("table"));
  showBanner(room.status);
  renderPaused(room.paused);
  if (room.view) renderView();
}

function roomTitle() {
  const game = room.view ? gameLabel(room.view.variant) : "Schmier";
  return t("room.heading", { game, code: room.code });
}

function renderFatal() {
  const text = { not_found: "err.no_room", lost: "err.room_lost", elsewhere: "err.seat_elsewhere" };
  messagePage(t(text[room.fatal] || "err.closed"));
}

/** The page's fixed frame; the parts that follow the game are filled by renderView(). */
function buildFrame() {
  shell(
    h(
      "main",
      { class: "room", id: "room" },
      // The page's heading (the game and the room), for screen readers and the outline.
      h("h1", { id: "room-title", class: "sr-only" }, roomTitle()),
      // What the action panel asks of the player, said once however often it is redrawn.
      h("p", { id: "announce", class: "sr-only", role: "status" }),
      h("div", { id: "fair-alert", class: "fair-alert card-panel", role: "alert", hidden: true }),
      h(
        "section",
        { class: "board", "aria-label": t("table") },
        h("div", { id: "scoreboard", class: "scoreboard" }),
        // The table, and what the player does in a group that lays out as nothing
        // (`display: contents`) but on a phone held sideways, where it is the column
        // beside the table (screens.css), so that the trick and the hand share a screen.
        h("div", { id: "table", class: "table" }),
        h(
          "div",
          { class: "board-controls" },
          h("div", { id: "tricks-bar", class: "tricks-bar", hidden: true }),
          joinPanel(),
          // By the action panel: this player's own countdown, and what the bot played
          // for them when the time ran out.
          h("div", { id: "turn-clock", class: "turn-clock", hidden: true }),
          h("p", { id: "timeout-note", class: "timeout-note", role: "alert", hidden: true }),
          h("div", { id: "actions", class: "actions" }),
          h("div", { id: "hand", class: "hand", role: "group", tabindex: "-1", "aria-label": t("hand.yours") }),
        ),
        h("div", { id: "summary", class: "summary" }),
        togetherPanel(),
        practicePanel(),
        h("section", { id: "host-tools", class: "card-panel host-tools", hidden: true }),
      ),
      h(
        "aside",
        { class: "side" },
        // First in the side column: beside the table on a wide screen, in sight at
        // once; on a phone below the table, after "Start the game".
        h("section", { id: "invite", class: "card-panel invite", hidden: true }),
        // What each side holds so far in the hand (tally.js), beside the table.
        h("section", { id: "tally", class: "card-panel tally", hidden: true }),
        h("section", { id: "seat-link", class: "card-panel seat-link", hidden: true }),
        chatPanel(),
        h("section", { id: "sheet", class: "card-panel sheet" }),
        historyPanel(),
        h("section", { id: "leave", class: "card-panel leave", hidden: true }),
        settingsPanel(),
      ),
    ),
  );
  renderChat();
  renderSheet();
  renderFairAlert(room.deals);
}

/** Everything that follows the view, from the top of the page down. */
function renderView() {
  const v = room.view;
  if (!v) return;
  // The tab's title says when it is this player's turn, for a player in another tab.
  document.title = `${myTurn() ? "▶ " : ""}Schmier · ${room.code}`;
  document.body.dataset.seq = String(room.seq);
  document.body.dataset.phase = v.phase;
  const heading = $("room-title");
  if (heading) heading.textContent = roomTitle();
  // Motion and sound follow the state already drawn; they never hold it back.
  const before = beforeRedraw();
  keepFocus(() => {
    renderTopbar();
    renderScoreboard();
    renderTable();
    renderTurnTimer(v);
    renderTricksBar();
    renderTally();
    renderJoin();
    renderActions();
    renderHand();
    renderSummary();
    renderTogether();
    renderPractice();
    renderInvite();
    renderSheet();
    renderLeave();
    renderSeatLink();
    renderHostTools();
    renderPauseNotice();
    renderTimedOut(room.timedOut);
  });
  placeTrick(); // once every seat has its size (the turn's ring is drawn after the table)
  afterRedraw(before);
  cue(shown, v, room.held);
  shown = v;
  renderChatForm();
  renderPaused(room.paused);
  afterRender();
}

let shown = null; // the view drawn last, for the sounds of what changed
