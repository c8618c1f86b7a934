// The games as data: the rule books the server publishes at GET /api/variants.
//
// The client never asks which game it is by name; it asks the game's rule book
// (seats, teams, the trump order of every suit, the points in report order, the house
// rules and their ranges: schmier/engine/description.py). The books are fetched once,
// before the first page is drawn, and never change afterwards.

import { has, t } from "./i18n.js";
import { api } from "./net.js";

const RETRY_MS = [500, 1000, 2000, 4000];

let books = null;

/**
 * Fetch the rule books (once; later calls answer from the cache). A failed fetch is
 * retried a few times, since the page itself came from the server a moment ago; after
 * that the error goes to the caller. With `onWait` it is retried until the server
 * answers (the page may come from the service worker's cache while the server is
 * away), and `onWait()` is called after each failure, so the page can say so.
 */
export async function loadGames(onWait) {
  if (books) return books;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const res = await api("GET", "/api/variants");
      if (res.status === 200 && Array.isArray(res.data)) {
        books = res.data;
        return books;
      }
    } catch {
      /* the network: try again below */
    }
    if (!onWait && attempt >= RETRY_MS.length) throw new Error("the rule books cannot be loaded");
    if (onWait) onWait();
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
  }
}

/** Every game's rule book, in the server's order. */
export function games() {
  return books || [];
}

/**
 * The rule book of the game called `name`. A name the server did not describe gets a
 * plain book (no trumps known, no teams, no special steps), so the page still draws.
 */
export function gameOf(name) {
  return games().find((b) => b.name === name) || plainBook(name);
}

function plainBook(name) {
  return {
    name,
    seats: 0,
    teams: [],
    fixed_teams: false,
    called_partner: false,
    deck: [],
    jokers: [],
    left_bauer: false,
    trump_order: {},
    plain_order: ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2"],
    points: [],
    discards: "all",
    kitty: false,
    secret_trump: false,
    first_lead_trump: false,
    rules: [],
  };
}

/** Whether the game scores by teams of several seats (letters A, B, …) rather than per player. */
export function scoresByTeam(book) {
  return book.teams.some((team) => team.length > 1);
}

/** The game's name for people ("Wisconsin Smear"), or its protocol name if untranslated. */
export function gameLabel(name) {
  return has(`variant.${name}`) ? t(`variant.${name}`) : name;
}

/** One line about the game for the home page, or nothing if untranslated. */
export function gameAbout(name) {
  return has(`variant.${name}.about`) ? t(`variant.${name}.about`) : "";
}

/** A house rule's label: `rule.<name>`, or the rule's own name if untranslated. */
export function ruleLabel(name) {
  return has(`rule.${name}`) ? t(`rule.${name}`) : name;
}

/** The label of one choice of a house rule: `rule.<name>.<choice>`, or the choice itself. */
export function choiceLabel(name, choice) {
  const key = `rule.${name}.${choice}`;
  return has(key) ? t(key) : choice;
}
