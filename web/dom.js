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
    else if (k.startsWith("on") && typeof v === "function") listen(el, k.slice(2), v);
    else if (typeof v === "boolean") el[k] = v;
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

// The handlers `h` gave each element, so that `patch` can hand them to the node it keeps.
const handlers = new WeakMap();

function listen(el, type, fn) {
  el.addEventListener(type, fn);
  const own = handlers.get(el) || [];
  own.push([type, fn]);
  handlers.set(el, own);
}

export function $(id) {
  return document.getElementById(id);
}

/** Replace the children of `el` (nodes or strings, as for `h`). */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/**
 * Make the children of `el` what `children` (as for `fill`) describe, keeping the nodes
 * already there: a node stays where the new one has its tag and the same id or data
 * attributes (a card, an action, a bid), or, with neither, the same tag at the same
 * place; only its attributes, text, handlers and children change. The hand and the
 * action panel are drawn again at every state, and another player's move often comes
 * while a finger is on a card: a button replaced between the press and the release gets
 * no click at all, and the player's pick (a card for the discard, a bid) was lost.
 * Form fields are always drawn anew (their value lives in properties, not attributes).
 */
export function patch(el, ...children) {
  const next = document.createElement("div");
  append(next, children);
  morphChildren(el, next);
}

const FIELDS = new Set(["INPUT", "SELECT", "TEXTAREA", "OPTION"]);

function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE || FIELDS.has(node.tagName)) return null;
  if (node.id) return `${node.tagName}#${node.id}`;
  const data = node.dataset ? MATCH_KEYS.map((k) => node.dataset[k] ?? "").join("|") : "";
  return data.replaceAll("|", "") ? `${node.tagName}|${data}` : null;
}

function alike(old, node) {
  if (old.nodeType !== node.nodeType) return false;
  if (old.nodeType !== Node.ELEMENT_NODE) return old.nodeType === Node.TEXT_NODE;
  return old.tagName === node.tagName && !FIELDS.has(node.tagName) && keyOf(old) === null;
}

function morphChildren(into, from) {
  const keyed = new Map();
  for (const c of into.childNodes) {
    const k = keyOf(c);
    if (k !== null && !keyed.has(k)) keyed.set(k, c);
  }
  let at = into.firstChild;
  for (const node of [...from.childNodes]) {
    const k = keyOf(node);
    let keep = null;
    if (k !== null) {
      keep = keyed.get(k) || null;
      keyed.delete(k);
    } else if (at && alike(at, node)) keep = at;
    if (keep === null) {
      into.insertBefore(node, at);
      continue;
    }
    morph(keep, node);
    if (keep === at) at = at.nextSibling;
    else into.insertBefore(keep, at);
  }
  while (at) {
    const gone = at;
    at = at.nextSibling;
    gone.remove();
  }
}

// Nodes whose whole subtree a key determines (`seal`): patched, the old one is kept.
const sealed = new WeakMap();

/**
 * Mark `node` as wholly determined by `key` (a card's face by the card): `patch` keeps
 * an old node sealed with the same key as it is, without comparing what is inside.
 */
export function seal(node, key) {
  sealed.set(node, key);
  return node;
}

function morph(old, node) {
  if (old.nodeType === Node.TEXT_NODE) {
    if (old.data !== node.data) old.data = node.data;
    return;
  }
  const key = sealed.get(node);
  if (key !== undefined && sealed.get(old) === key) return;
  // Made below into what `node` is: sealed as it is, or no longer.
  if (key === undefined) sealed.delete(old);
  else sealed.set(old, key);
  for (const a of [...old.attributes]) {
    if (a.name !== "style" && !node.hasAttributeNS(a.namespaceURI, a.localName)) old.removeAttributeNS(a.namespaceURI, a.localName);
  }
  for (const a of node.attributes) {
    if (a.name !== "style" && old.getAttributeNS(a.namespaceURI, a.localName) !== a.value) old.setAttributeNS(a.namespaceURI, a.name, a.value);
  }
  // Through the style object: the page's CSP refuses a style attribute set as such.
  if (old.style && old.style.cssText !== node.style.cssText) old.style.cssText = node.style.cssText;
  for (const [type, fn] of handlers.get(old) || []) old.removeEventListener(type, fn);
  handlers.delete(old);
  for (const [type, fn] of handlers.get(node) || []) listen(old, type, fn);
  morphChildren(old, node);
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
// What `patch` knows a node by: a card played to the trick (`played`) is not the chip
// of the seat that played it, though both carry the seat.
const MATCH_KEYS = [...FOCUS_KEYS, "played"];

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
