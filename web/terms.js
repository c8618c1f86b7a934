// The point names with what each is (High, Low, the bauers, the jokers, Game): a
// tooltip shown on hover, on keyboard focus and on a tap (the term takes the focus),
// and the same words as the term's accessible description for screen readers.

import { has, t } from "./i18n.js";
import { h } from "./dom.js";

let made = 0;

/** The name of point `name` ("high", "joker1", …) with its explanation attached. */
export function pointTerm(name) {
  const label = t(`point.${name}`);
  const help = `point.${name}.help`;
  if (!has(help)) return label;
  made += 1;
  const id = `term-${made}`;
  return h(
    "span",
    { class: "term", tabindex: "0", "aria-describedby": id, dataset: { term: name } },
    label,
    h("span", { class: "tip", role: "tooltip", id }, t(help)),
  );
}
