// The rating chart of a club's standings: each player's rating after each game, drawn
// by this client as an SVG (no library), with the numbers also in a table for screen
// readers and keyboards (the chart itself is one image with a summary as its name).

import { num, t } from "./i18n.js";
import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const H = 260;
const PAD = { left: 44, right: 12, top: 12, bottom: 26 };
const COLOURS = ["#0f5132", "#b02a37", "#1d4ed8", "#b45309", "#6d28d9", "#0e7490", "#be185d", "#4d7c0f", "#57534e"];
const START = 1500;

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** The chart of `history` (standings' `history`): a figure with the SVG, its legend,
 * and the same numbers as a table. */
export function ratingChart(history, nameOf) {
  // As wide in user units as on screen (about), so that its words stay readable on a
  // phone rather than shrinking with a wide drawing.
  const W = Math.round(Math.max(300, Math.min(640, window.innerWidth - 70)));
  const games = [...new Set(history.flatMap((p) => p.points.map((x) => `${x.at}|${x.game}`)))].sort();
  if (!games.length) return h("p", { class: "muted", dataset: { chart: "empty" } }, t("club.chart_empty"));
  const index = new Map(games.map((g, i) => [g, i + 1]));
  const ratings = history.flatMap((p) => p.points.map((x) => x.rating)).concat([START]);
  let low = Math.floor(Math.min(...ratings) / 25) * 25;
  let high = Math.ceil(Math.max(...ratings) / 25) * 25;
  if (high - low < 50) {
    low -= 25;
    high += 25;
  }
  const x = (i) => PAD.left + ((W - PAD.left - PAD.right) * i) / Math.max(1, games.length);
  const y = (r) => PAD.top + ((H - PAD.top - PAD.bottom) * (high - r)) / (high - low);
  const grid = [];
  const step = Math.max(25, Math.ceil((high - low) / 4 / 25) * 25);
  for (let r = low; r <= high; r += step) {
    grid.push(s("line", { x1: PAD.left, x2: W - PAD.right, y1: y(r), y2: y(r), class: "chart-grid" }));
    grid.push(s("text", { x: PAD.left - 6, y: y(r) + 4, "text-anchor": "end", class: "chart-label" }, num(r)));
  }
  grid.push(s("text", { x: W - PAD.right, y: H - 6, "text-anchor": "end", class: "chart-label" }, t("club.chart_games", { count: games.length })));
  const lines = history.map((player, k) => {
    const colour = COLOURS[k % COLOURS.length];
    const points = [[x(0), y(START)], ...player.points.map((p) => [x(index.get(`${p.at}|${p.game}`)), y(p.rating)])];
    const path = points.map(([px, py], i) => `${i ? "L" : "M"}${px.toFixed(1)},${py.toFixed(1)}`).join(" ");
    const dashed = player.bot ? "5 4" : "";
    return s(
      "g",
      { class: "chart-line", "data-player": player.member || `bot:${player.bot}` },
      s("path", { d: path, fill: "none", stroke: colour, "stroke-width": 2.5, "stroke-dasharray": dashed }),
      ...points.slice(1).map(([px, py]) => s("circle", { cx: px, cy: py, r: 3, fill: colour })),
    );
  });
  const summary = history
    .map((p) => `${nameOf(p)} ${num(p.points.length ? p.points[p.points.length - 1].rating : START)}`)
    .join(", ");
  const svg = s(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, class: "rating-chart", role: "img", "aria-label": `${t("club.chart")}: ${summary}`, focusable: "false" },
    s("title", {}, t("club.chart")),
    ...grid,
    ...lines,
  );
  const legend = h(
    "ul",
    { class: "chart-legend", "aria-hidden": "true" },
    history.map((p, k) => {
      // Through the CSSOM: the page's policy refuses style attributes.
      const swatch = h("span", { class: `swatch${p.bot ? " bot" : ""}` });
      swatch.style.setProperty("--swatch", COLOURS[k % COLOURS.length]);
      return h("li", {}, swatch, nameOf(p));
    }),
  );
  const table = h(
    "table",
    { class: "sr-only" },
    h("caption", {}, t("club.chart")),
    h("tr", {}, h("th", { scope: "col" }, t("club.player")), h("th", { scope: "col" }, t("club.games")), h("th", { scope: "col" }, t("club.rating"))),
    history.map((p) =>
      h("tr", {}, h("th", { scope: "row" }, nameOf(p)), h("td", {}, num(p.points.length)), h("td", {}, p.points.map((x) => num(x.rating)).join(" → "))),
    ),
  );
  return h("figure", { class: "chart", dataset: { chart: "ratings", games: String(games.length) } }, svg, legend, table);
}
