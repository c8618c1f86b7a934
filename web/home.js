// The home page: the form that creates a room (the game list and its house rules, both
// built from the rule books' `rules`, and the player's name: with one, the creator sits
// down at once), "Play now" (the same room filled with bots and started, playnow.js),
// and the form that opens a room by its code.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { shell } from "./page.js";
import { api, joinError, savedName, saveName, setToken } from "./net.js";
import { markPlayNow } from "./playnow.js";
import { gameAbout, gameLabel, games } from "./games.js";
import { ruleField } from "./rulefields.js";
import { newClubForm, yourClubs } from "./clubhome.js";

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
  const nameError = h("p", { id: "home-name-error", class: "form-status field-error", role: "status" });
  const name = h("input", {
    id: "home-name",
    name: "name",
    maxlength: "24",
    autocomplete: "nickname",
    value: savedName(),
    placeholder: t("join.name"),
    "aria-describedby": "home-name-help home-name-error",
  });
  const create = h("button", { type: "submit", class: "primary big", dataset: { action: "create" } }, t("create"));
  const now = h(
    "button",
    { type: "button", class: "secondary big", dataset: { action: "play_now" }, onclick: () => go(true) },
    t("home.play_now"),
  );
  const buttons = [create, now];

  /** Create the room (and sit down in it, with a name; with bots and started, `quick`). */
  async function go(quick) {
    const chosen = {};
    for (const rule of book.rules) chosen[rule.name] = values[rule.name];
    // "Play now" needs a seat: a name typed, else the last one used, else a plain one.
    const who = name.value.trim() || (quick ? savedName() || t("home.default_name") : "");
    for (const b of buttons) b.disabled = true;
    status.textContent = nameError.textContent = "";
    try {
      const res = await api("POST", "/api/rooms", { variant: book.name, rules: chosen });
      if (res.status === 201 || res.status === 200) {
        const code = res.data.code;
        if (who) await sitDown(code, who, quick);
        location.assign(`/r/${encodeURIComponent(code)}`);
        return;
      }
      status.textContent = res.status === 429 ? t("err.too_many_attempts") : t("err.bad_rules");
    } catch {
      status.textContent = t("err.network");
    }
    for (const b of buttons) b.disabled = false;
  }

  /** Take the first seat of the new room; on a refusal the room's page offers the seats. */
  async function sitDown(code, who, quick) {
    const res = await api("POST", `/api/rooms/${encodeURIComponent(code)}/join`, { name: who });
    if (res.status === 200 && res.data && res.data.token) {
      setToken(code, res.data.token);
      saveName(who);
      if (quick) markPlayNow(code);
    } else {
      nameError.textContent = t(joinError(res));
    }
  }

  const form = h(
    "form",
    {
      class: "card-panel create",
      onsubmit: (ev) => {
        ev.preventDefault();
        go(false);
      },
    },
    h("h1", {}, t("home.title")),
    h("fieldset", { class: "variants" }, h("legend", {}, t("home.game")), choices),
    h(
      "label",
      { class: "field home-name" },
      h("span", {}, t("join.name")),
      name,
      h("small", { id: "home-name-help", class: "muted" }, t("home.name_help")),
    ),
    nameError,
    // Each game's rules, a page of their own (help.js).
    h(
      "p",
      { class: "rules-links" },
      books.map((b) => h("a", { href: `/rules/${encodeURIComponent(b.name)}`, dataset: { rules: b.name } }, t("rules.link", { game: gameLabel(b.name) }))),
    ),
    rules,
    h("div", { class: "button-row home-buttons" }, buttons),
    h("p", { class: "muted play-now-help" }, t("home.play_now_help")),
    status,
  );
  if (book) pick(book);
  else for (const b of buttons) b.disabled = true;
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
