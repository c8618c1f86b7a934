// The clubs this browser belongs to, and the clubs' API.
//
// A club's keys (a member key, and the admin key for whoever created it) are kept in
// localStorage under "schmier.clubs": {code: {name, member, key, admin}}. They are sent
// only as `Authorization: Bearer …`, never in a URL; the links that carry a key to
// another device put it in the fragment (#key=…, #admin=…), which browsers never send.
// Rooms a club page listed or made are remembered ("schmier.clubrooms": {room: club}),
// so that taking a seat there sits the member down under the club's name.

import { t } from "./i18n.js";
import { fill, h } from "./dom.js";

const CLUBS_KEY = "schmier.clubs";
const ROOMS_KEY = "schmier.clubrooms";
const ROOMS_KEPT = 200;

function read(name) {
  try {
    return JSON.parse(localStorage.getItem(name) || "{}") || {};
  } catch {
    return {};
  }
}

function write(name, value) {
  try {
    localStorage.setItem(name, JSON.stringify(value));
  } catch {
    // storage may be full or blocked: the page still works until it is reloaded
  }
}

/** Every club this browser holds a key of: [[code, {name, member, key, admin}], …]. */
export function heldClubs() {
  return Object.entries(read(CLUBS_KEY)).filter(([, c]) => c && (c.key || c.admin));
}

/** What this browser holds for club `code` (or an empty entry). */
export function clubEntry(code) {
  return read(CLUBS_KEY)[code] || {};
}

/** Remember (merge) what this browser holds for club `code`. */
export function saveClub(code, fields) {
  const all = read(CLUBS_KEY);
  all[code] = { ...(all[code] || {}), ...fields };
  write(CLUBS_KEY, all);
}

/** Forget club `code` altogether (left, removed, or unknown to the server). */
export function forgetClub(code) {
  const all = read(CLUBS_KEY);
  delete all[code];
  write(CLUBS_KEY, all);
}

/** The key to read club `code` with: the member's, else the admin's. */
export function readKey(code) {
  const entry = clubEntry(code);
  return entry.key || entry.admin || null;
}

/** Note that room `room` belongs to club `club`. */
export function noteClubRoom(room, club) {
  const all = read(ROOMS_KEY);
  delete all[room];
  all[room] = club;
  const codes = Object.keys(all);
  for (const old of codes.slice(0, Math.max(0, codes.length - ROOMS_KEPT))) delete all[old];
  write(ROOMS_KEY, all);
}

/** The member key to join room `room` with, when this browser is a member of its club. */
export function memberKeyForRoom(room) {
  const club = read(ROOMS_KEY)[String(room).toLowerCase()];
  return club ? clubEntry(club).key || null : null;
}

/** Call the clubs' API with `key`; `{status, data}` (data: parsed JSON, or the text). */
export async function clubApi(method, path, key, body) {
  const init = { method, headers: {} };
  if (key) init.headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const type = res.headers.get("content-type") || "";
  let data = null;
  try {
    data = type.includes("json") ? await res.json() : await res.text();
  } catch {
    data = null;
  }
  return { status: res.status, data };
}

/** The request each panel made last: an answer to an older one (other filters, another
 * game) that arrives late is dropped rather than drawn over the newer one. */
const asked = new WeakMap();

/** GET `path` of club `code` with this browser's key and draw the answer into `panel`
 * with `draw(data)`, or a short message when it fails. The panel is `aria-busy` while
 * its newest request is out, so assistive technology (and the tests) know when what it
 * shows is settled. */
export async function loadInto(panel, code, path, draw) {
  const ask = {};
  asked.set(panel, ask);
  panel.setAttribute("aria-busy", "true");
  let res = null;
  try {
    res = await clubApi("GET", `/api/clubs/${encodeURIComponent(code)}${path}`, readKey(code));
  } catch {
    // drawn below as a network failure
  }
  if (asked.get(panel) !== ask) return;
  panel.removeAttribute("aria-busy");
  if (res?.status === 200) {
    fill(panel, draw(res.data));
    return;
  }
  fill(panel, h("p", { class: "form-status" }, t(res?.status === 503 ? "club.err.unavailable" : "err.network")));
}

/** Read the key a link carried in its fragment (#key=… or #admin=…), keep it, and take
 * it out of the address bar. */
export function takeKeyFromFragment(code) {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const key = params.get("key");
  const admin = params.get("admin");
  if (!key && !admin) return;
  if (key) saveClub(code, { key });
  if (admin) saveClub(code, { admin });
  history.replaceState(null, "", location.pathname);
}
