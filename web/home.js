// The home page: the form that creates a room (the game list and its house rules, both
// built from the rule books' `rules`), and the form that opens a room by its code.

import { num, t } from "./i18n.js";
import { h } from "./dom.js";
import { shell } from "./page.js";
import { api } from "./net.js";
import { choiceLabel, gameAbout, gameLabel, games, ruleLabel } from "./games.js";
import { offRuleField } from "./timer.js";
import { newClubForm, yourClubs } from "./clubhome.js";

// An int rule with at most this many values is a drop-down, a wider one a number box.
const SELECT_UP_TO = 10;

export function showHome() {
  document.title = "Schmier";
  const books = games();
  shell(h("main", { class: "home" }, yourClubs(), createForm(books), openForm(), newClubForm()));
}

function createForm(books) {
  let book = books[0];
  // The value of each house rule, by name, as the player left it; kept across games.
  const values = {};
  const rules = h("fieldset", { class: "rules" });
  const choices = books.map((b, i) =>
    h(
      "label",
      { class: "variant" },
      h("input", {
        type: "radio",
        name: "variant",
        value: b.name,
        checked: i === 0,
        onchange: () => pick(b),
      }),
      h(
        "span",
        { class: "variant-body" },
        h("strong", {}, gameLabel(b.name)),
        h("span", { class: "muted" }, gameAbout(b.name)),
      ),
    ),
  );
  function pick(next) {
    book = next;
    for (const rule of book.rules) {
      // A rule whose default differs from game to game belongs to the game: picking the
      // game picks its default. The others keep what the player chose.
      if (!(rule.name in values) || !sameDefaultEverywhere(books, rule.name)) values[rule.name] = rule.default;
    }
    fillRules(rules, book.rules, values);
  }
  const status = h("p", { class: "form-status", role: "status" });
  const create = h("button", { type: "submit", class: "primary big", dataset: { action: "create" } }, t("create"));
  const form = h(
    "form",
    {
      class: "card-panel create",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const chosen = {};
        for (const rule of book.rules) chosen[rule.name] = values[rule.name];
        create.disabled = true;
        status.textContent = "";
        try {
          const res = await api("POST", "/api/rooms", { variant: book.name, rules: chosen });
          if (res.status === 201 || res.status === 200) {
            location.assign(`/r/${encodeURIComponent(res.data.code)}`);
            return;
          }
          status.textContent = res.status === 429 ? t("err.too_many_attempts") : t("err.bad_rules");
        } catch {
          status.textContent = t("err.network");
        }
        create.disabled = false;
      },
    },
    h("h1", {}, t("home.title")),
    h("fieldset", { class: "variants" }, h("legend", {}, t("home.game")), choices),
    // Each game's rules, a page of their own (help.js).
    h(
      "p",
      { class: "rules-links" },
      books.map((b) => h("a", { href: `/rules/${encodeURIComponent(b.name)}`, dataset: { rules: b.name } }, t("rules.link", { game: gameLabel(b.name) }))),
    ),
    rules,
    create,
    status,
  );
  if (book) pick(book);
  else create.disabled = true;
  return form;
}

function sameDefaultEverywhere(books, name) {
  const defaults = books.flatMap((b) => b.rules.filter((r) => r.name === name).map((r) => r.default));
  return defaults.every((d) => d === defaults[0]);
}

/** The house-rule fields of one game, holding `values` and writing changes back to it. */
function fillRules(fieldset, specs, values) {
  fieldset.replaceChildren(
    h("legend", {}, t("home.rules")),
    ...specs.map((spec) => ruleField(spec, values)),
  );
}

function ruleField(spec, values) {
  const name = spec.name;
  const value = values[name];
  if (spec.type === "bool") {
    const box = h("input", {
      id: name,
      name,
      type: "checkbox",
      checked: Boolean(value),
      onchange: () => {
        values[name] = box.checked;
      },
    });
    return h("label", { class: "check" }, box, h("span", {}, ruleLabel(name)));
  }
  if (spec.off !== undefined) return offRuleField(spec, values, ruleLabel(name));
  let control;
  if (spec.type === "choice") {
    control = h(
      "select",
      { id: name, name, onchange: () => (values[name] = control.value) },
      spec.choices.map((c) => h("option", { value: c, selected: c === value }, choiceLabel(name, c))),
    );
  } else if (spec.max - spec.min < SELECT_UP_TO) {
    const range = Array.from({ length: spec.max - spec.min + 1 }, (_, i) => spec.min + i);
    control = h(
      "select",
      { id: name, name, onchange: () => (values[name] = Number(control.value)) },
      range.map((k) => h("option", { value: String(k), selected: k === value }, num(k))),
    );
  } else {
    control = h("input", {
      id: name,
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

function openForm() {
  const code = h("input", {
    id: "room-code",
    name: "code",
    autocomplete: "off",
    autocapitalize: "off",
    spellcheck: "false",
    "aria-label": t("home.code"),
    placeholder: t("home.code"),
  });
  return h(
    "form",
    {
      class: "card-panel open-room",
      onsubmit: (ev) => {
        ev.preventDefault();
        const c = code.value.trim().replace(/^.*\/r\//, "").toLowerCase();
        if (c) location.assign(`/r/${encodeURIComponent(c)}`);
      },
    },
    h("h2", {}, t("home.have_code")),
    h(
      "div",
      { class: "row" },
      code,
      h("button", { type: "submit", dataset: { action: "open" } }, t("home.open")),
    ),
  );
}
