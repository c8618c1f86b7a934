// The read-only page of one finished hand, `/r/{code}/h/{n}`: its review for anyone with
// the room's link (no seat, no token, no socket: the hand's record is public once the
// hand is scored), the check of its deal, and the way to the hands before and after it
// and to the room.

import { t } from "./i18n.js";
import { $, fill, h } from "./dom.js";
import { messagePage, shell } from "./page.js";
import { api } from "./net.js";
import { gameOf } from "./games.js";
import { useDeck } from "./cardface.js";
import { checkOne, dealsFor, recordOf } from "./deals.js";
import { renderFairAlert } from "./fairview.js";
import { reviewView } from "./review.js";

let current = null; // the review on show, for the keys pressed outside it
let listening = false;

/** Show the review of hand `n` of room `code`. */
export async function showReplay(code, n) {
  document.title = t("review.page_title", { n, code });
  shell(h("main", { class: "replay", id: "replay" }, h("p", { class: "muted" }, t("review.loading"))));
  if (!listening) {
    // With the focus nowhere in particular (a click on the page), the keys still step.
    document.addEventListener("keydown", (ev) => {
      if (current && $("replay") && (ev.target === document.body || ev.target === document.documentElement)) current.key(ev);
    });
    listening = true;
  }
  const deals = dealsFor(code);
  let record;
  let list;
  try {
    [record, list] = await Promise.all([recordOf(deals, n), api("GET", `/api/rooms/${encodeURIComponent(code)}/hands`)]);
  } catch {
    messagePage(t("err.network"));
    return;
  }
  if (!record) {
    messagePage(list && list.status === 404 ? t("err.no_room") : t("review.missing"));
    return;
  }
  const book = gameOf(record.variant);
  useDeck(book);
  const outcome = checkOne(deals, record, book);
  const review = reviewView(record, book, { code, outcome });
  current = review;
  const numbers = list && list.status === 200 && Array.isArray(list.data) ? list.data.map((x) => x.n) : [];
  const before = numbers.filter((x) => x < n).pop();
  const after = numbers.find((x) => x > n);
  const room = `/r/${encodeURIComponent(code)}`;
  const main = $("replay");
  fill(
    main,
    // The page's own heading (the review's title is a panel's, an h2).
    h("h1", { class: "sr-only" }, t("review.page_title", { n, code })),
    h("div", { id: "fair-alert", class: "fair-alert card-panel", role: "alert", hidden: true }),
    h(
      "nav",
      { class: "replay-nav", "aria-label": t("review.hands") },
      h("a", { href: room, class: "button-link quiet", dataset: { review: "room" } }, `← ${t("review.to_room")}`),
      before !== undefined
        ? h("a", { href: `${room}/h/${before}`, class: "button-link", dataset: { review: "before" } }, `‹ ${t("review.hand_n", { n: before })}`)
        : null,
      after !== undefined
        ? h("a", { href: `${room}/h/${after}`, class: "button-link", dataset: { review: "after" } }, `${t("review.hand_n", { n: after })} ›`)
        : null,
    ),
    review.el,
  );
  renderFairAlert(deals);
  review.focus();
}
