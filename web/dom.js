// DOM helpers: build elements and text nodes, never HTML.
//
// User-supplied text (names, chat) only ever reaches the page through textContent or
// text nodes: `h` and `fill` have no way to insert markup, and nothing in web/ parses
// a string as HTML (tests/test_browser_static.py checks the sources).

/**
 * `h("button", {class: "primary", dataset: {action: "start"}, onclick}, "Start")`.
 * Props: `class`, `text`, `dataset`, `on<event>` handlers, booleans as properties
 * (`disabled`, `checked`, …; false leaves them out), everything else as an attribute.
 * Children are nodes or strings (strings become text nodes); null/false are skipped.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (typeof v === "boolean") el[k] = v;
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function $(id) {
  return document.getElementById(id);
}

/** Replace the children of `el` (nodes or strings, as for `h`). */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

// What each panel was last drawn from (`alreadyShows`), kept on the element itself.
const drawings = new WeakMap();

/**
 * Whether `el` still shows what `key` (a string of what it is drawn from) describes;
 * if not, `key` is noted as what it is about to show, and the answer is false. Panels
 * are drawn again only when what they show changes: every move sends a state, and a
 * panel drawn anew at each would take the keyboard, a selection or a sideways scroll
 * from the player. The key lives on the element, so a panel made anew (a new frame of
 * the page) or emptied meanwhile is drawn afresh without anything to reset.
 */
export function alreadyShows(el, key) {
  if (drawings.get(el) === key && el.firstChild) return true;
  drawings.set(el, key);
  return false;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

const FOCUS_KEYS = ["card", "action", "amount", "suit", "seat"];

function focusKey(el) {
  return FOCUS_KEYS.map((k) => (el.dataset[k] === undefined ? "" : el.dataset[k])).join("|");
}

/**
 * Re-rendering replaces buttons; put the keyboard focus back on the button that
 * does the same thing, so keyboard players do not lose their place on every update.
 */
export function keepFocus(fn) {
  const active = document.activeElement;
  let key = null;
  let same = null;
  if (active && active !== document.body && active.dataset) {
    if (active.dataset.card || active.dataset.action) key = focusKey(active);
    else same = sameControl(active);
  }
  fn();
  if (document.activeElement === active) return;
  if (same !== null) {
    // Another control drawn anew (a list, a fold, a point's name): the one in its place.
    const again = active.isConnected ? null : same();
    if (again && !again.disabled) again.focus({ preventScroll: true });
    return;
  }
  if (key === null) return;
  for (const el of document.querySelectorAll("button[data-card], button[data-action]")) {
    if (focusKey(el) === key && !el.disabled) {
      el.focus({ preventScroll: true });
      return;
    }
  }
  // The button is gone (the card was played, the bid made): go on to the next thing
  // there is to do (keys.js tells which) rather than back to the top of the page.
  const next = nextFocus();
  if (next) next.focus({ preventScroll: true });
}

/**
 * How to find the control that takes `el`'s place when its panel is drawn anew: a
 * function returning it (or null), or null when nothing says which. By its id; else by
 * its tag and data attributes (the bot level of seat 3, the term "High"), or as the
 * toggle of its fold, inside the nearest enclosing element with an id (the tally, not
 * the summary above it), found again by that id when it too was drawn anew.
 */
function sameControl(el) {
  if (el.id) {
    const id = el.id;
    return () => document.getElementById(id);
  }
  const data = Object.entries(el.dataset).map(([k, v]) => `[data-${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${CSS.escape(v)}"]`);
  let selector = null;
  if (data.length) selector = el.tagName.toLowerCase() + data.join("");
  else if (el.tagName === "SUMMARY") selector = ":scope > summary";
  const scope = el.parentElement && el.parentElement.closest("[id]");
  if (selector === null || !scope) return null;
  const scopeId = scope.id;
  return () => {
    const within = scope.isConnected ? scope : document.getElementById(scopeId);
    return within ? within.querySelector(selector) : null;
  };
}

let nextFocus = () => null;

/** Tell `keepFocus` where the focus goes when its button is gone: `fn()` is an element or null. */
export function setNextFocus(fn) {
  nextFocus = fn;
}
