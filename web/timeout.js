// "Time ran out: the bot played … for you": when this player's turn timer ran out, the
// server plays the turn with the default bot and tells this seat alone what it played
// (the `timed_out` frame, docs/protocol.md "Timer feedback"). state.js keeps the notice
// until the player's next move, or for a while; this draws it by the action panel.

import { t } from "./i18n.js";
import { $ } from "./dom.js";
import { hintWords } from "./actions.js";

/** Show `notice` (a `timed_out` frame) by the action panel, or nothing. */
export function renderTimedOut(notice) {
  const el = $("timeout-note");
  if (!el) return;
  el.hidden = !notice;
  el.textContent = notice ? t("timer.ran_out", { what: hintWords(notice.action) }) : "";
}
