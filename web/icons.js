// Small drawn icons, for the symbols that only an emoji font has: on a plain Linux
// desktop (no emoji font) "⏮", "⏭" and "⏱" showed as empty boxes. Each is an inline
// SVG in the text's colour and size, hidden from screen readers (the control around it
// carries the name).

const SVG = "http://www.w3.org/2000/svg";

// Each drawn in a 16×16 box.
const SHAPES = {
  first: "M2 2h2v12H2zM14 2v12L5 8z", // a bar and a triangle pointing to it: to the start
  last: "M12 2h2v12h-2zM2 2v12l9-6z", // to the end
  // A stopwatch: its button, a ring and a hand.
  clock: "M6 0h4v2H6zM8 3a6.5 6.5 0 1 1 0 13A6.5 6.5 0 0 1 8 3zm0 2a4.5 4.5 0 1 0 0 9A4.5 4.5 0 0 0 8 5zM7.25 6h1.5v4h-1.5z",
};

/** The icon `name` ("first", "last", "clock") as an <svg class="icon">. */
export function icon(name) {
  const svg = document.createElementNS(SVG, "svg");
  const attrs = { viewBox: "0 0 16 16", class: `icon icon-${name}`, "aria-hidden": "true", focusable: "false" };
  for (const [k, v] of Object.entries(attrs)) svg.setAttribute(k, v);
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", SHAPES[name]);
  svg.append(path);
  return svg;
}
