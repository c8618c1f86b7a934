// Opening the review of a hand over the room (review.js draws it): from the hand
// summary ("Review this hand", with the check of its deal) and from the history. The
// records come through deals.js, which keeps each one fetched and checked.

import { t } from "./i18n.js";
import { $, fill, h } from "./dom.js";
import { room } from "./state.js";
import { checkOne, recordOf } from "./deals.js";
import { fairLine } from "./fairview.js";
import { openReviewDialog } from "./review.js";

/** Show the review of hand `n` of this room (`coach`: at its coach, asked at once). */
export function openHand(n, { coach = false } = {}) {
  const deals = room.deals;
  const book = room.book;
  openReviewDialog(
    room.code,
    n,
    book,
    () => recordOf(deals, n),
    (record) => deals.results.get(record.n) || checkOne(deals, record, book),
    { coach },
  );
}

/** Under the hand summary: the check of the hand's deal and "Review this hand". */
export function lastHandTools() {
  return h("div", { id: "hand-tools", class: "hand-tools" }, toolParts());
}

/** Draw them again in place (a check has ended), the summary around them untouched. */
export function renderHandTools() {
  const el = $("hand-tools");
  if (el) fill(el, toolParts());
}

function toolParts() {
  const deals = room.deals;
  const n = deals ? deals.latest : null;
  return [
    h("p", { class: "fair-line", role: "status" }, n === null ? h("span", { class: "muted" }, t("fair.checking")) : fairLine(deals.results.get(n), n)),
    h(
      "button",
      {
        type: "button",
        class: "secondary",
        disabled: n === null,
        dataset: { action: "review", hand: n === null ? "" : String(n) },
        onclick: () => openHand(n),
      },
      t("review.this_hand"),
    ),
  ];
}
