// How the checks of the deals show (deals.js makes them): one line per hand ("✓ Deal
// verified", how many revealed values matched their commitments, who withheld one), a
// mark for the history's rows, and the room's alarm, which stays up as long as any hand
// of the room failed its check.

import { t } from "./i18n.js";
import { $, fill, h } from "./dom.js";
import { tally } from "./deals.js";

function problemText(p) {
  return t(p.key, p.params);
}

/** Who withheld a value ("Seat 3" for a seat whose name the record lacks). */
export function withheldNames(outcome) {
  return (outcome.withheld || []).map((w) => w.name || t("seat.n", { n: w.seat + 1 })).join(", ");
}

/** What the players' commits add to a check: how many revealed values matched their
 * commitments, and, plainly, who withheld theirs (nothing for a record without). */
function commitParts(outcome) {
  const parts = [];
  if (outcome.revealed) {
    parts.push(" ", h("span", { class: "muted fair-revealed" }, t("fair.revealed", { count: outcome.revealed })));
  }
  if ((outcome.withheld || []).length) {
    const seats = outcome.withheld.map((w) => String(w.seat)).join(" ");
    parts.push(" ", h("span", { class: "fair-withheld", dataset: { withheld: seats } }, `⚠ ${t("fair.withheld", { names: withheldNames(outcome) })}`));
  }
  return parts;
}

/** The outcome of hand `n`'s check as one line (checking, verified, failed, uncheckable). */
export function fairLine(outcome, n) {
  if (!outcome) return h("span", { class: "fair fair-pending", dataset: { fair: "pending", hand: String(n) } }, t("fair.checking"));
  if (outcome.state === "failed") {
    return h(
      "span",
      { class: "fair fair-failed", dataset: { fair: "failed", hand: String(n) } },
      h("strong", {}, `✗ ${t("fair.failed")}`),
      " ",
      outcome.problems.map(problemText).join(" "),
      ...commitParts(outcome),
    );
  }
  if (outcome.state === "unchecked") {
    return h("span", { class: "fair fair-unchecked", dataset: { fair: "unchecked", hand: String(n) } }, `? ${t("fair.problem.legacy")}`);
  }
  const seen = outcome.seen === "seen" ? t("fair.seen") : t("fair.not_seen");
  return h(
    "span",
    { class: "fair fair-verified", dataset: { fair: "verified", hand: String(n) } },
    h("strong", {}, `✓ ${t("fair.verified")}`),
    " ",
    h("span", { class: "muted" }, seen),
    ...commitParts(outcome),
  );
}

/** A short mark for a row of the history: ✓, ✗ or nothing yet. */
export function fairMark(outcome, n) {
  if (!outcome) return h("span", { class: "fair-mark muted", dataset: { fair: "pending", hand: String(n) } }, "…");
  const state = outcome.state;
  const sign = state === "verified" ? "✓" : state === "failed" ? "✗" : "?";
  return h(
    "span",
    {
      class: `fair-mark fair-${state}`,
      title: state === "verified" ? t("fair.verified") : state === "failed" ? t("fair.failed") : t("fair.problem.legacy"),
      dataset: { fair: state, hand: String(n) },
    },
    sign,
  );
}

/** The room's alarm (`#fair-alert`): up, and loud, while any hand failed its check. */
export function renderFairAlert(deals) {
  const el = $("fair-alert");
  if (!el) return;
  const { failed } = tally(deals);
  el.hidden = failed.length === 0;
  if (el.hidden) {
    fill(el);
    return;
  }
  const code = encodeURIComponent(deals.code);
  fill(
    el,
    h("h2", {}, `⚠ ${t("fair.alert.title")}`),
    h("p", {}, t("fair.alert.text", { count: failed.length })),
    h(
      "ul",
      {},
      failed.map((n) =>
        h(
          "li",
          {},
          h("a", { href: `/r/${code}/h/${n}`, dataset: { failedHand: String(n) } }, t("fair.alert.hand", { n })),
          ": ",
          deals.results.get(n).problems.map(problemText).join(" "),
        ),
      ),
    ),
  );
}
