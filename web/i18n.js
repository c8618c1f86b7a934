// Every word the client shows comes from a message catalogue: one JSON file per
// language in web/i18n/ (en.json, ms.json, bg.json, ja.json, ko.json), listed with the
// name each language gives itself in web/i18n/languages.json.
//
// The catalogues are i18next JSON v4, the format translators' tools (Weblate, Crowdin,
// Lokalise, Poedit) read: flat keys ("home.title"; the key separator is off, so the
// dots are part of the name), `{{name}}` placeholders, and a plural as one key per
// CLDR category, `key_one`, `key_few`, `key_other`…, picked with `Intl.PluralRules` for
// the language by the `count` parameter. Numbers are written with `Intl.NumberFormat`,
// a negative one with a real minus (U+2212) in every language.
//
// The language is the one chosen with the picker (kept in localStorage), else the
// first of the browser's languages that has a catalogue, else English. English is
// always loaded too: a key missing from a catalogue falls back to it, never to the raw
// key (tests/test_browser_static.py checks that none is missing anyway).

const STORE_KEY = "schmier.lang";
const BASE = "/static/i18n";
const FALLBACK = "en";

let names = { [FALLBACK]: "English" }; // code -> the language's own name
const catalogues = {}; // code -> {key: text}
let lang = FALLBACK;
let plurals = new Intl.PluralRules(FALLBACK);
let numbers = new Intl.NumberFormat(FALLBACK);
let signedNumbers = new Intl.NumberFormat(FALLBACK, { signDisplay: "exceptZero" });

async function fetchJson(path) {
  const res = await fetch(path);
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

async function catalogue(code) {
  if (!catalogues[code]) catalogues[code] = await fetchJson(`${BASE}/${code}.json`);
  return catalogues[code];
}

function stored() {
  try {
    return localStorage.getItem(STORE_KEY);
  } catch {
    return null; // storage may be blocked; fall back to the browser's languages
  }
}

/** The language to use: the one chosen before, else the browser's, else English. */
function pickLanguage() {
  const saved = stored();
  if (saved && names[saved]) return saved;
  for (const tag of navigator.languages || [navigator.language || FALLBACK]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (names[base]) return base;
  }
  return FALLBACK;
}

function use(code) {
  lang = code;
  plurals = new Intl.PluralRules(code);
  numbers = new Intl.NumberFormat(code);
  signedNumbers = new Intl.NumberFormat(code, { signDisplay: "exceptZero" });
}

/** Load the list of languages, English and the language to show; call once at start. */
export async function loadLanguages() {
  names = await fetchJson(`${BASE}/languages.json`);
  const code = pickLanguage();
  await Promise.all([catalogue(FALLBACK), catalogue(code)]);
  use(code);
}

// The rules pages' words (`help.*`) live in catalogues of their own (web/i18n/help/),
// fetched only when a rules page is opened: a first visit does not download them.
const helpLoaded = new Set();

/** Load the rules pages' words in English and the current language (once each). */
export async function loadHelp() {
  for (const code of new Set([FALLBACK, lang])) {
    if (helpLoaded.has(code)) continue;
    const help = await fetchJson(`${BASE}/help/${code}.json`);
    Object.assign(await catalogue(code), help);
    helpLoaded.add(code);
  }
}

/** The languages there are catalogues for: `[[code, its own name], …]`. */
export function languages() {
  return Object.entries(names);
}

export function currentLanguage() {
  return lang;
}

/** Switch to `code` (loading its catalogue) and remember the choice in this browser. */
export async function setLanguage(code) {
  if (!names[code]) return;
  await catalogue(code);
  use(code);
  try {
    localStorage.setItem(STORE_KEY, code);
  } catch {
    /* not remembered, still applied */
  }
}

function lookup(key) {
  return catalogues[lang]?.[key] ?? catalogues[FALLBACK]?.[key];
}

/** Whether there is a text for `key` (plain or plural), e.g. for a server error code. */
export function has(key) {
  return lookup(key) !== undefined || lookup(`${key}_other`) !== undefined;
}

// The minus sign of every number shown: a real minus (U+2212), the same everywhere,
// rather than the hyphen some languages' formats give and others do not.
const MINUS = "\u2212";

function written(format, n) {
  return format
    .formatToParts(n)
    .map((part) => (part.type === "minusSign" ? MINUS : part.value))
    .join("");
}

/** A bot's name in the page's language: the server names its bots "Bot 3". */
export function botName(name) {
  const m = /^Bot (\d+)$/.exec(name);
  return m ? t("seat.bot_name", { n: Number(m[1]) }) : name;
}

/** A number as the language writes it (a negative one with a real minus, "−3"). */
export function num(n) {
  return written(numbers, n);
}

/** A change of score: "+3", "−2", "0", with the language's plus and a real minus. */
export function signed(n) {
  return written(signedNumbers, n);
}

/**
 * The text for `key` in the current language with its `{{name}}` placeholders filled
 * in (numbers written the language's way). With a numeric `count` the plural form for
 * that count is used (`key_one`, `key_other`, …), falling back to `key_other`.
 */
export function t(key, params = {}) {
  let text;
  if (typeof params.count === "number") {
    text = lookup(`${key}_${plurals.select(params.count)}`) ?? lookup(`${key}_other`);
  }
  text = text ?? lookup(key) ?? key;
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, name) => {
    if (!(name in params)) return m;
    const value = params[name];
    return typeof value === "number" ? num(value) : String(value);
  });
}
