// The coach in the review of a hand: each decision of the chosen player weighed by the
// server's search (GET /api/rooms/{code}/hands/{n}/analysis, docs/protocol.md), with
// what the player knew and with all cards shown; its mark, the options with their
// values ("10♦ would have been better: +0.33"), a strip of the hand's biggest swings to
// jump to, and each player's accuracy. The analysis starts when asked for (it costs the
// server a few seconds of a worker) and shows its progress while computed.

import { t } from "./i18n.js";
import { fill, h } from "./dom.js";
import { api } from "./net.js";
import { optionText, points, sameAction, stepName, stepOfAction } from "./coachwords.js";

/** Swings in the strip: the hand's biggest losses, at most this many. */
const SWINGS = 5;

function markText(mark) {
  return t(`coach.mark.${mark}`);
}

/**
 * The coach's panel for the review of `record` (room `code`; `steps` the review's
 * steps, `goTo(i)` shows step i). Returns `{el, show(at), open()}`: `show` follows the
 * review, `open` asks at once and takes the focus.
 */
export function coachPanel(record, steps, code, goTo) {
  const names = (record.seats || []).map((s, k) => s.name || t("seat.n", { n: k + 1 }));
  const state = { at: 0, seat: null, analysis: null, pending: null, asked: false, timer: null };
  const status = h("p", { class: "coach-status", role: "status", "aria-live": "polite" });
  const progress = h("progress", { class: "coach-progress", max: "1", value: "0", hidden: true, "aria-label": t("coach.progress_label") });
  const start = h("button", { type: "button", class: "secondary", dataset: { coach: "start" } }, t("coach.start"));
  const seatPick = h("select", { dataset: { coach: "seat" }, "aria-label": t("coach.seat") });
  names.forEach((name, k) => seatPick.append(h("option", { value: String(k) }, name)));
  const players = h("ul", { class: "coach-players", "aria-label": t("coach.accuracy_title") });
  const swings = h("div", { class: "coach-swings", role: "group", "aria-label": t("coach.swings") });
  const detail = h("div", { class: "coach-step", "aria-live": "polite" });
  const body = h("div", { class: "coach-body", hidden: true }, h("label", { class: "coach-seat" }, `${t("coach.seat")} `, seatPick), players, swings, detail);
  const el = h(
    "section",
    { class: "coach card-panel", tabindex: "-1", "aria-label": t("coach.title"), dataset: { coach: "panel" } },
    h("h3", {}, t("coach.title")),
    h("p", { class: "muted small" }, t("coach.explain")),
    h("div", { class: "row coach-ask" }, start, progress),
    status,
    body,
  );

  const decisions = () => (state.analysis ? state.analysis.decisions : state.pending ? state.pending.decisions || [] : []);

  const drawSwings = () => {
    const top = [...decisions()].filter((d) => d.loss > 0).sort((a, b) => b.loss - a.loss).slice(0, SWINGS);
    fill(
      swings,
      top.length ? h("span", { class: "muted small" }, `${t("coach.swings")}: `) : null,
      top.map((d) => {
        const at = stepOfAction(record, steps, d.i);
        const label = t("coach.swing", { name: names[d.seat], step: stepName(steps[at]), mark: markText(d.mark), loss: points(-d.loss) });
        return h(
          "button",
          {
            type: "button",
            class: `quiet coach-swing mark-${d.mark}`,
            dataset: { coach: "swing", step: String(at), seat: String(d.seat) },
            onclick: () => {
              choose(d.seat);
              goTo(at);
              show(at);
            },
          },
          label,
        );
      }),
    );
  };

  const drawPlayers = () => {
    if (!state.analysis) {
      fill(players);
      return;
    }
    fill(
      players,
      state.analysis.players.map((p) =>
        h("li", { dataset: { seat: String(p.seat) } }, t("coach.accuracy", { name: names[p.seat], accuracy: Math.round(p.accuracy), loss: Math.round(p.loss * 100) / 100 })),
      ),
    );
  };

  const optionRow = (d, o) => {
    const played = sameAction(o.action, d.played);
    const best = sameAction(o.action, d.best);
    const tags = [played ? t("coach.tag_played") : null, best ? t("coach.tag_best") : null].filter(Boolean);
    return h(
      "tr",
      { class: [played ? "coach-played" : "", best ? "coach-best" : ""].join(" ").trim() || null },
      h("th", { scope: "row" }, optionText(o.action), tags.length ? h("span", { class: "muted small" }, ` (${tags.join(", ")})`) : null),
      h("td", {}, points(o.value)),
      h("td", {}, points(o.value_all_cards)),
    );
  };

  const decisionPart = (d) => {
    const verdict =
      d.loss > 0
        ? t("coach.better", { option: optionText(d.best), gain: points(d.loss) })
        : t("coach.was_best", { option: optionText(d.played) });
    return h(
      "div",
      { class: `coach-decision mark-${d.mark}`, dataset: { coach: "decision", mark: d.mark, i: String(d.i) } },
      h("p", { class: "coach-mark" }, h("strong", {}, markText(d.mark)), " · ", t("coach.played", { option: optionText(d.played) })),
      h("p", { class: "coach-verdict" }, verdict),
      h(
        "table",
        { class: "coach-options" },
        h("caption", { class: "muted small" }, t("coach.options_caption")),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("coach.option")), h("th", { scope: "col" }, t("coach.knew")), h("th", { scope: "col" }, t("coach.all_cards")))),
        h("tbody", {}, d.options.map((o) => optionRow(d, o))),
      ),
    );
  };

  const show = (at) => {
    state.at = at;
    if (state.seat === null) return;
    const mine = decisions().filter((d) => d.seat === state.seat && stepOfAction(record, steps, d.i) === at);
    if (!state.analysis && !state.pending) return;
    fill(detail, mine.length ? mine.map(decisionPart) : h("p", { class: "muted" }, t("coach.no_decision", { name: names[state.seat] })));
  };

  const choose = (seat) => {
    state.seat = seat;
    seatPick.value = String(seat);
  };
  seatPick.addEventListener("change", () => {
    choose(Number(seatPick.value));
    show(state.at);
  });

  const draw = () => {
    body.hidden = !state.analysis && !(state.pending && decisions().length);
    if (state.seat === null && decisions().length) {
      const worst = [...decisions()].sort((a, b) => b.loss - a.loss)[0];
      choose(worst.seat);
    }
    drawPlayers();
    drawSwings();
    show(state.at);
  };

  const ask = async () => {
    clearTimeout(state.timer);
    if (!el.isConnected && state.asked) return; // the review was closed
    state.asked = true;
    start.disabled = true;
    let res;
    try {
      res = await api("GET", `/api/rooms/${encodeURIComponent(code)}/hands/${record.n}/analysis`);
    } catch {
      res = { status: 0, data: null };
    }
    // The hand summary (handcoach.js) shows what the coach answered here too.
    if (res.status === 200 || res.status === 202) {
      const detail = { code, n: record.n, status: res.status, data: res.data };
      document.dispatchEvent(new CustomEvent("schmier:analysis", { detail }));
    }
    if (res.status === 200 && res.data) {
      state.analysis = res.data;
      state.pending = null;
      progress.hidden = true;
      start.hidden = true;
      status.textContent = t("coach.done", { n: res.data.decisions.length });
      el.dataset.state = "done";
      draw();
      return;
    }
    if (res.status === 202 && res.data) {
      state.pending = res.data;
      progress.hidden = false;
      progress.max = Math.max(1, res.data.total);
      progress.value = res.data.done;
      status.textContent = t("coach.progress", { done: res.data.done, total: res.data.total });
      el.dataset.state = "pending";
      draw();
      state.timer = setTimeout(ask, 1000);
      return;
    }
    start.disabled = false;
    el.dataset.state = "refused";
    if (res.status === 429) status.textContent = t("coach.busy", { seconds: Number(res.data?.retry_after) || 60 });
    else if (res.status === 404) status.textContent = t("coach.none");
    else status.textContent = t("coach.failed");
  };
  start.addEventListener("click", ask);
  // Opened at the coach (from the hand summary): asked at once, the focus on it.
  const open = () => {
    if (!state.asked) ask();
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: "start" });
  };
  return { el, show, open };
}
