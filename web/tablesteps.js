// Two tables' play of one deal side by side, trick by trick (tables.js offers it under
// the comparison once another table has played the deal out): pick two tables, then step
// through their tricks together (buttons, or ← → with the focus on the steps), each
// trick drawn from that table's own hand record (GET /api/rooms/{room}/hands/{n}).

import { t } from "./i18n.js";
import { fill, h } from "./dom.js";
import { api } from "./net.js";
import { trickOf } from "./handparts.js";
import { seatLabel, tableTitle } from "./tables.js";

/** The picker of two tables and, once picked, their tricks side by side. */
export function compareSteps(tables, id) {
  const choice = (which, chosen) =>
    h(
      "select",
      { id: `${id}-${which}`, dataset: { tables: which } },
      tables.map((table, i) => h("option", { value: String(i), selected: i === chosen }, tableTitle(table, i))),
    );
  const left = choice("left", 0);
  const right = choice("right", tables.length - 1);
  const status = h("p", { class: "review-step", role: "status", "aria-live": "polite" });
  const stage = h("div", { class: "tables-stage", dataset: { tables: "stage" } });
  const nav = (action, label) => h("button", { type: "button", class: "secondary review-nav-button", dataset: { tables: action }, disabled: true }, label);
  const prev = nav("prev", `◀ ${t("review.prev_short")}`);
  const next = nav("next", `${t("review.next_short")} ▶`);
  const state = { shown: [], at: 0 };

  const count = () => Math.max(0, ...state.shown.map((s) => s.record.tricks.length));
  const draw = () => {
    const total = count();
    status.textContent = total ? t("review.trick", { n: state.at + 1, total }) : "";
    stage.dataset.step = String(state.at);
    fill(
      stage,
      state.shown.map(({ table, i, record }) => {
        const trick = record.tricks[state.at];
        return h(
          "div",
          { class: "tables-side", dataset: { table: table.room } },
          h("h5", {}, tableTitle(table, i)),
          trick ? trickOf(record, trick, (s) => seatLabel(table, s)) : h("p", { class: "muted" }, "—"),
        );
      }),
    );
    prev.disabled = state.at === 0;
    next.disabled = state.at >= total - 1;
  };
  const go = (delta) => {
    const to = Math.max(0, Math.min(count() - 1, state.at + delta));
    if (to !== state.at) {
      state.at = to;
      draw();
    }
  };
  prev.addEventListener("click", () => go(-1));
  next.addEventListener("click", () => go(1));

  const show = async () => {
    const picked = [Number(left.value), Number(right.value)];
    status.textContent = t("review.loading");
    let answers;
    try {
      answers = await Promise.all(
        picked.map((i) => api("GET", `/api/rooms/${encodeURIComponent(tables[i].room)}/hands/${tables[i].hand}`)),
      );
    } catch {
      answers = [];
    }
    if (answers.length !== 2 || answers.some((a) => a.status !== 200 || !a.data)) {
      status.textContent = t("err.network");
      return;
    }
    state.shown = picked.map((i, k) => ({ table: tables[i], i, record: answers[k].data }));
    state.at = 0;
    draw();
  };

  return h(
    "div",
    {
      class: "tables-steps-box",
      onkeydown: (ev) => {
        if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.target.matches("select")) return;
        if (ev.key === "ArrowLeft" || ev.key === "ArrowRight") {
          ev.preventDefault();
          go(ev.key === "ArrowLeft" ? -1 : 1);
        }
      },
    },
    h("h4", {}, t("tables.steps_title")),
    h(
      "div",
      { class: "row tables-pick" },
      h("label", { for: left.id }, t("tables.left")),
      left,
      h("label", { for: right.id }, t("tables.right")),
      right,
      h("button", { type: "button", dataset: { tables: "show" }, onclick: show }, t("tables.show")),
    ),
    h("div", { class: "review-nav", role: "toolbar", "aria-label": t("tables.steps_title") }, prev, status, next),
    stage,
  );
}
