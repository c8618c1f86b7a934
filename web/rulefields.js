// The controls of a game's house rules, built from its rule book's `rules` (GET
// /api/variants): a check box for a bool, a drop-down for a choice or a short int range,
// a number box for a wide one, and for an int rule that a value outside its range turns
// off (the turn timer) a drop-down of "Off" and the usual lengths. The home page's form
// and the host's rules of the next game (host.js) both use them; each writes the values
// the player picks back into the object it was given.

import { num, t } from "./i18n.js";
import { h } from "./dom.js";
import { choiceLabel, ruleLabel } from "./games.js";

// An int rule with at most this many values is a drop-down, a wider one a number box.
const SELECT_UP_TO = 10;
// The timer lengths offered (the rule takes any whole number in its range).
const STEPS = [10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 300];

/** The control of rule `spec` holding `values[spec.name]`; element ids are `prefix` + name. */
export function ruleField(spec, values, prefix = "") {
  const name = spec.name;
  const id = `${prefix}${name}`;
  const value = values[name];
  if (spec.type === "bool") {
    const box = h("input", {
      id,
      name,
      type: "checkbox",
      checked: Boolean(value),
      onchange: () => {
        values[name] = box.checked;
      },
    });
    return h("label", { class: "check" }, box, h("span", {}, ruleLabel(name)));
  }
  if (spec.off !== undefined) return offRuleField(spec, values, ruleLabel(name), id);
  let control;
  if (spec.type === "choice") {
    control = h(
      "select",
      { id, name, onchange: () => (values[name] = control.value) },
      spec.choices.map((c) => h("option", { value: c, selected: c === value }, choiceLabel(name, c))),
    );
  } else if (spec.max - spec.min < SELECT_UP_TO) {
    const range = Array.from({ length: spec.max - spec.min + 1 }, (_, i) => spec.min + i);
    control = h(
      "select",
      { id, name, onchange: () => (values[name] = Number(control.value)) },
      range.map((k) => h("option", { value: String(k), selected: k === value }, num(k))),
    );
  } else {
    control = h("input", {
      id,
      name,
      type: "number",
      min: String(spec.min),
      max: String(spec.max),
      value: String(value),
      inputmode: "numeric",
      oninput: () => (values[name] = Number(control.value)),
    });
  }
  return h("label", { class: "field" }, h("span", {}, ruleLabel(name)), control);
}

/**
 * The control of an int rule that a value outside its range turns off
 * (`spec.off`, as 0 does `turn_seconds`): a drop-down of "Off" and the usual lengths,
 * holding `values[spec.name]` and writing changes back to it.
 */
function offRuleField(spec, values, label, id) {
  const name = spec.name;
  const value = values[name];
  const steps = STEPS.filter((s) => s >= spec.min && s <= spec.max);
  if (value !== spec.off && !steps.includes(value)) steps.push(value);
  steps.sort((a, b) => a - b);
  const options = [spec.off, ...steps].map((k) =>
    h("option", { value: String(k), selected: k === value }, k === spec.off ? t("timer.off") : t("timer.seconds", { n: k })),
  );
  const control = h("select", { id, name, onchange: () => (values[name] = Number(control.value)) }, options);
  return h("label", { class: "field" }, h("span", {}, label), control);
}
