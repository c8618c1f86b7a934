// The client's entry point: load the games' rule books, then show the screen the
// address asks for (the home page at `/`, a room at `/r/{code}`), and show it again in
// another language when the picker changes.
//
// Everything the player may do comes from the server's `view.legal`, and everything a
// game differs in comes from its rule book (GET /api/variants): the rules live in one
// place (the server), and a rule change never needs a client change. The modules:
//
//   app.js      this entry point               page.js     the shell, banner, toast
//   dom.js      h, $, fill, keepFocus          home.js     the home page
//   games.js    the rule books                 state.js    the room state, messages
//   render.js   redraws the room from state    table.js    top bar, scoreboard, seats
//   actions.js  the action panel, per phase    hand.js     the hand
//   summary.js  hand summary, score sheet      side.js     join, invite, chat, leave
//   net.js      HTTP, tokens, the socket       cards.js    naming, sorting, drawing cards
//   i18n.js     the message catalogues (web/i18n/*.json), plurals, numbers
//   lasttrick.js  the tricks of this hand       hold.js     how long a won trick stays
//   review.js   the review of a hand           replay.js   its page, /r/{code}/h/{n}
//   steps.js    a record as review steps       handparts.js  the review's pieces
//   transcript.js  a hand as plain text        reviewopen.js  the review over the room
//   history.js  the room's games and players   deals.js    entropy, the deals' checks
//   fairness.js the shuffle, a record checked  sha256.js   SHA-256 in plain JS
//   fairview.js how the checks show            cardface.js the card faces (inline SVG)
//   motion.js   the cards' motion              sound.js    the sounds (off by default)
//   settings.js sounds, the four-colour deck   install.js  the service worker (sw.js)
//   banner.js   the paused table's notice      bots.js     the bot levels' words, hints
//   keys.js     the keyboard and the focus     timer.js    the turn timer's countdown
//   help.js     the rules pages                terms.js    the point names' tooltips
//   tally.js    the points each side holds so far in the hand
//   club.js     a club's page, /c/{code}        clubkeys.js the clubs' keys, their API
//   clubstats.js  standings, partnerships       clubgames.js  the club's archive
//   clubwords.js  players' names, dates         ratingchart.js  the rating chart (SVG)
//   clubhome.js   "your clubs", a new club
//   seats.js    the seats in lobby, between games  rematch.js  game over, the vote
//   host.js     the host's tools, the pause    rulefields.js  house rules' controls
//   buttons.js  a button that sends a frame    playnow.js  "Play now" with bots
//   timeout.js  what the bot played for you   icons.js    drawn icons (⏮ ⏭ ⏱)
//   trickspots.js  where the trick's cards lie
//   joining.js  taking a seat (POST …/join)
//   room.js     the room object, subscribers   viewing.js  questions asked of the view

import { loadLanguages, t } from "./i18n.js";
import { loadGames } from "./games.js";
import { LANGUAGE_EVENT, messagePage, shell, showBanner } from "./page.js";
import { $ } from "./dom.js";
import { registerWorker } from "./install.js";
import { takeSeatFromLink } from "./net.js";
import { followPlayNow } from "./playnow.js";
import { showHome } from "./home.js";
import { openRoom, room } from "./state.js";
import { showRoom } from "./render.js";
import { showReplay } from "./replay.js";
import { showRulesPage } from "./help.js";
import { showClub } from "./club.js";

let languagesLoaded = null;

async function start() {
  try {
    languagesLoaded = languagesLoaded || loadLanguages();
    await Promise.all([languagesLoaded, loadGames(waiting)]);
  } catch {
    languagesLoaded = null;
    messagePage(t("err.network"));
    return;
  }
  // The rules of a game (help.js).
  const rules = location.pathname.match(/^\/rules\/([^/]+)\/?$/);
  if (rules) {
    try {
      await showRulesPage(safeDecode(rules[1]) || "");
    } catch {
      messagePage(t("err.network"));
    }
    return;
  }
  // The review of a finished hand, read-only: no socket, no seat.
  const hand = location.pathname.match(/^\/r\/([^/]+)\/h\/([1-9][0-9]*)\/?$/);
  if (hand) {
    showReplay(decodeURIComponent(hand[1]), Number(hand[2]));
    return;
  }
  // A club's page (the club's code is its invite).
  const club = location.pathname.match(/^\/c\/([a-z2-7]{16})\/?$/i);
  if (club) {
    showClub(club[1].toLowerCase());
    return;
  }
  if (location.pathname.startsWith("/c/")) {
    messagePage(t("club.err.unknown"));
    return;
  }
  const m = location.pathname.match(/^\/r\/([^/]+)\/?$/);
  if (!m && !location.pathname.startsWith("/r/")) {
    showHome();
    return;
  }
  // A room's address that cannot be one (more parts, an encoded "/"): no such room.
  const code = m ? safeDecode(m[1]) : null;
  if (code === null || code.includes("/")) {
    messagePage(t("err.no_room"));
    return;
  }
  // Once open, the room keeps its live connection across a change of language.
  if (!room.conn && !room.fatal) openRoom(code);
  showRoom();
}

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** The server does not answer yet: the page's frame, saying that it is reconnecting. */
function waiting() {
  languagesLoaded.then(
    () => {
      if (!$("banner")) shell();
      showBanner("reconnecting");
    },
    () => {},
  );
}

// A seat's own link: its token is taken from the address before anything else runs.
takeSeatFromLink();
window.addEventListener(LANGUAGE_EVENT, start);
registerWorker();
followPlayNow();
start();
