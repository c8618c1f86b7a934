"""The table's polish, in a real Chromium against a real server: the card faces (every
card of every game drawn as the project's SVG, named for screen readers, both jokers
told apart, the four-colour deck remembered, tap targets on a phone), the motion
(started after a play, never holding a state back, none under reduced motion), the
sounds (off by default, the switch remembered, the files served as audio) and the
installable app (a valid manifest, the service worker controlling the page and caching
the static client but never the API, a reload with the server gone showing the page's
own "reconnecting" state, and the room coming back with the server).
"""

from __future__ import annotations

import json
import re
import struct
from typing import Any

import pytest

from schmier import __version__
from schmier.config import Settings
from tests.support import loopback
from tests.support.browsers import PHONE, PageFactory, Table, serve_on_port
from tests.support.play import card_name, create_room, drive, fill_and_start, press_card, sit
from tests.support.servers import FAST, RunningServer, ServerFactory

pytestmark = pytest.mark.browser

WATCH = """
window.__motion = [];
window.__slid = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  window.__motion.push((options && options.id) || '');
  if (options && options.id === 'motion-play') window.__slid.push(this.dataset.played);
  return animate.call(this, keyframes, options);
};
window.__played = [];
HTMLMediaElement.prototype.play = function () {
  window.__played.push(this.src);
  return Promise.resolve();
};
window.__lastSeq = -1;
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
  constructor(...args) {
    super(...args);
    this.addEventListener('message', (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === 'state') window.__lastSeq = msg.seq;
    });
  }
};
window.__samples = 0;
window.__most = 0;
window.__behind = [];
const tick = () => {
  const running = document.getAnimations().length;
  window.__most = Math.max(window.__most, running);
  if (running > 0 && document.body) {
    window.__samples += 1;
    const shown = Number(document.body.dataset.seq || -1);
    if (shown < window.__lastSeq) window.__behind.push([shown, window.__lastSeq]);
  }
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
localStorage.setItem('schmier.trick_hold', '1200');
"""
"""Records every animation started (its id), every sound played, and, at every frame
while anything animates, whether the page shows the newest state its socket received."""


def watched(pages: PageFactory, **options: Any) -> Any:
    page = pages(**options)
    page.add_init_script(WATCH)
    return page


def books(server: RunningServer) -> list[dict[str, Any]]:
    answer = loopback.get(server.base_url + "/api/variants", timeout=10)
    assert answer.status_code == 200
    result: list[dict[str, Any]] = answer.json()
    return result


def start_game(page: Any, server: RunningServer, variant: str) -> Table:
    table = Table(page)
    create_room(page, server, variant)
    sit(page, "Ann", 0)
    fill_and_start(page)
    page.wait_for_selector("#hand button[data-card]")
    return table


def two_tricks_or_over(v: dict[str, Any]) -> bool:
    return len(v["tricks"]) >= 2 or v["phase"] in ("hand_over", "game_over")


# ------------------------------------------------------------------ card faces

FACES = """async ([book]) => {
  const cards = await import('/static/cards.js');
  cards.useDeck(book);
  return book.deck.map((card) => {
    const svg = cards.cardFace(card);
    document.body.append(svg);
    const ink = [...svg.querySelectorAll('.ink')];
    const result = {
      card,
      name: cards.cardName(card),
      svg: svg instanceof SVGSVGElement && svg.getAttribute('aria-hidden') === 'true',
      shapes: [...svg.querySelectorAll('path.pip-shape')].map((p) => p.getAttribute('d')),
      fill: ink.length ? getComputedStyle(ink[ink.length - 1]).fill : null,
      texts: [...svg.querySelectorAll('text')].map((t) => t.textContent),
      cls: svg.getAttribute('class'),
    };
    svg.remove();
    return result;
  });
}"""


def test_every_card_of_every_game_has_its_own_face_and_name(
    pages: PageFactory, server: RunningServer
) -> None:
    page = pages()
    page.goto(server.base_url + "/")
    page.wait_for_selector('input[name="variant"]')
    for book in books(server):
        faces = page.evaluate(FACES, [book])
        assert [f["card"] for f in faces] == book["deck"]
        two = len(book["jokers"]) > 1
        shape_of: dict[str, set[str]] = {}
        for face in faces:
            card = face["card"]
            assert face["svg"], card
            assert face["name"] == card_name(card, book["name"]), face
            assert face["shapes"], card  # a drawn pip, not a font glyph
            if card.startswith("X"):
                continue
            rank = "10" if card[0] == "T" else card[0]
            assert face["texts"].count(rank) >= 2, face  # both corners
            shape_of.setdefault(card[1], set()).update(face["shapes"])
        # Each suit is its own shape: colour-blind players tell them apart by it.
        assert len(shape_of) == 4
        assert all(len(shapes) == 1 for shapes in shape_of.values()), shape_of
        assert len(set.union(*shape_of.values())) == 4
        jokers = [f for f in faces if f["card"].startswith("X")]
        assert len(jokers) == len(book["jokers"])
        if two:
            x1, x2 = jokers
            assert (x1["name"], x2["name"]) == ("Joker 1", "Joker 2")
            # Different to the eye: colour, number of stars, the index.
            assert x1["fill"] != x2["fill"]
            assert len(x1["shapes"]) != len(x2["shapes"])
            assert "1" in x1["texts"] and "2" in x2["texts"]
        else:
            assert jokers[0]["name"] == "Joker"


def suit_colours(page: Any) -> dict[str, str]:
    result: dict[str, str] = page.evaluate(
        """async () => {
          const cards = await import('/static/cards.js');
          const out = {};
          for (const card of ['AS', 'AH', 'AD', 'AC']) {
            const svg = cards.cardFace(card);
            document.body.append(svg);
            out[card[1]] = getComputedStyle(svg.querySelector('path.pip-shape')).fill;
            svg.remove();
          }
          return out;
        }"""
    )
    return result


def test_the_four_colour_deck_is_a_setting_this_browser_keeps(
    pages: PageFactory, server: RunningServer
) -> None:
    page = watched(pages)
    table = start_game(page, server, "wisconsin4")
    two = suit_colours(page)
    assert two["D"] == two["H"] and two["C"] == two["S"] and two["H"] != two["S"]
    toggle = page.locator("#setting-four-colour")
    assert not toggle.is_checked()
    toggle.check()
    four = suit_colours(page)
    assert four["S"] == two["S"] and four["H"] == two["H"]
    assert four["D"] == "rgb(26, 86, 196)" and four["C"] == "rgb(24, 122, 58)"
    assert len(set(four.values())) == 4
    # The cards on the page follow at once, and the choice survives a reload.
    hand_fills = page.eval_on_selector_all(
        "#hand button[data-card] .face",
        "(fs) => fs.map((f) =>"
        " [f.dataset.suit, getComputedStyle(f.querySelector('.pip-shape')).fill])",
    )
    for suit, fill in hand_fills:
        if suit:
            assert fill == four[suit], (suit, fill)
    page.reload()
    page.wait_for_selector("#hand button[data-card]")
    assert page.locator("#setting-four-colour").is_checked()
    assert suit_colours(page) == four
    shot, _ = table.synced()
    assert shot["hand"]


AT_REST = """async () => {
  // The sizes the cards come to rest at, not the scale a motion gives them for a moment
  // (a card dealt grows from 0.6 of its size; a CI run on a loaded machine measured one
  // at 33 px): the running motions of these elements are waited out first (each lasts
  // well under a second).
  const found = () => [...document.querySelectorAll('#hand button[data-card], #settings .setting')];
  const running = (e) => e.getAnimations().some((a) => a.playState === 'running');
  for (let i = 0; i < 100 && found().some(running); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  return found().map((e) => {
    const r = e.getBoundingClientRect();
    return [e.dataset.card || e.textContent, r.width, r.height];
  });
}"""
"""Each hand card's and each setting's name and size on the screen, once at rest."""


def test_cards_are_large_enough_to_tap_on_a_phone(
    pages: PageFactory, server: RunningServer
) -> None:
    for variant in ("schmier6", "wisconsin4"):
        page = pages(viewport=PHONE, has_touch=True, is_mobile=True)
        start_game(page, server, variant)
        sizes = page.evaluate(AT_REST)
        cards = [s for s in sizes if re.fullmatch(r"[2-9TJQKAX][SHDC12]", s[0])]
        assert len(cards) >= 6, sizes
        for name, width, height in sizes:
            assert width >= 44 and height >= 44, (variant, name, width, height)
        # No card lies over another: a tap on its middle reaches it and no other.
        for name, _, _ in cards:
            assert tapped_alone(page, f'#hand button[data-card="{name}"]'), (variant, name)


def tapped_alone(page: Any, selector: str) -> bool:
    """Whether a tap on the middle of `selector` reaches it and nothing else. The bots
    play on meanwhile and each state redraws the hand, so a button may be replaced
    between the scroll and the look: look again at the new one."""
    for attempt in range(5):
        button = page.locator(selector)
        try:
            button.scroll_into_view_if_needed(timeout=5_000)
            return bool(
                button.evaluate(
                    "(e) => { const r = e.getBoundingClientRect();"
                    " const at = document.elementFromPoint(r.left + r.width / 2,"
                    " r.top + r.height / 2);"
                    " return at !== null && at.closest('button') === e; }"
                )
            )
        except Exception:
            if attempt == 4:
                raise
    return False


# ------------------------------------------------------------------ motion


def test_plays_are_animated_and_no_state_waits_for_an_animation(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(bot_delay=0.25)
    page = watched(pages)
    table = start_game(page, server, "wisconsin4")
    page.wait_for_function("() => window.__motion.includes('motion-deal')")
    drive(table, two_tricks_or_over)
    page.wait_for_function("() => window.__motion.includes('motion-gather')")
    started = set(page.evaluate("window.__motion"))
    assert {"motion-deal", "motion-play", "motion-win", "motion-gather"} <= started, started
    # Animations ran while the page played on, and at no frame with an animation running
    # did the page show an older state than its socket had received.
    assert page.evaluate("window.__samples") > 0
    assert page.evaluate("window.__behind") == []
    # A card of the player's own slides in the moment it is played.
    _, view = table.synced()
    if view["phase"] == "play":
        drive(table, lambda v: any(a["type"] == "play" for a in v["legal"]), limit=60)
        _, view = table.synced()
        card = next(a["card"] for a in view["legal"] if a["type"] == "play")
        press_card(page, f'#hand button[data-card="{card}"]')
        # Noted as the slide starts: a running animation could be over (or the trick
        # gathered) before a poll of `getAnimations()` sees it on a loaded machine.
        page.wait_for_function(f"() => window.__slid.includes('{card}')")
    # No decoration is left in the way of the cards the tests read.
    page.wait_for_function("() => document.querySelectorAll('.gather-ghost').length === 0")


def test_reduced_motion_moves_nothing(pages: PageFactory, server_factory: ServerFactory) -> None:
    server = server_factory(bot_delay=0.25)
    page = watched(pages, reduced_motion="reduce")
    table = start_game(page, server, "wisconsin4")
    assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    view = drive(table, two_tricks_or_over)
    assert len(view["tricks"]) >= 2 or view["last_hand"]
    assert page.evaluate("window.__motion") == []
    assert page.evaluate("window.__most") == 0
    assert page.evaluate("document.getAnimations().length") == 0


# ------------------------------------------------------------------ sound


def test_sounds_are_off_until_turned_on_and_the_choice_is_kept(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(bot_delay=0.1)
    page = watched(pages)
    table = start_game(page, server, "wisconsin4")
    drive(table, lambda v: len(v["tricks"]) >= 1 or v["phase"] in ("hand_over", "game_over"))
    # Off by default: nothing played, nothing even fetched.
    assert page.evaluate("window.__played") == []
    fetched = page.evaluate(
        "performance.getEntriesByType('resource').map((e) => e.name)"
        ".filter((n) => n.includes('/sounds/'))"
    )
    assert fetched == []
    assert page.evaluate("localStorage.getItem('schmier.sound')") is None
    assert not page.locator("#setting-sound").is_checked()
    page.locator("#setting-sound").check()
    page.reload()
    page.wait_for_selector("#hand button[data-card], body[data-phase]")
    assert page.locator("#setting-sound").is_checked()
    assert page.evaluate("localStorage.getItem('schmier.sound')") == "on"
    drive(table, lambda v: v["phase"] in ("hand_over", "game_over") or len(v["tricks"]) >= 3)
    page.wait_for_function("() => window.__played.length > 0")
    played = {src.rsplit("/", 1)[1] for src in page.evaluate("window.__played")}
    assert played <= {"turn.wav", "card.wav", "trick.wav", "hand.wav"}
    assert played & {"card.wav", "trick.wav", "turn.wav"}, played
    # Off again: silence again.
    page.locator("#setting-sound").uncheck()
    page.evaluate("window.__played = []")
    drive(table, lambda v: v["phase"] in ("hand_over", "game_over") or len(v["tricks"]) >= 4)
    assert page.evaluate("window.__played") == []


def test_the_sounds_are_served_by_the_server_as_audio(server: RunningServer) -> None:
    for name in ("turn", "card", "trick", "hand"):
        answer = loopback.get(f"{server.base_url}/static/sounds/{name}.wav", timeout=10)
        assert answer.status_code == 200
        assert re.fullmatch(r"audio/(x-)?wav", answer.headers["content-type"]), answer.headers
        body = answer.content
        assert body[:4] == b"RIFF" and body[8:12] == b"WAVE"
        channels, rate = struct.unpack("<HI", body[22:28])
        frames = (len(body) - 44) // 2
        assert channels == 1 and 0 < frames / rate < 1.0, (name, channels, rate, frames)


# ------------------------------------------------------------------ installable


def test_the_manifest_is_valid_linked_and_its_icons_are_served(
    pages: PageFactory, server: RunningServer
) -> None:
    answer = loopback.get(server.base_url + "/manifest.webmanifest", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert manifest["name"] == "Schmier" and manifest["start_url"] == "/"
    assert manifest["display"] in ("fullscreen", "standalone")
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    sizes = set()
    for icon in manifest["icons"]:
        got = loopback.get(server.base_url + icon["src"], timeout=10)
        assert got.status_code == 200 and got.headers["content-type"] == icon["type"], icon
        if icon["type"] == "image/png":
            assert got.content[:8] == b"\x89PNG\r\n\x1a\n"
            width, height = struct.unpack(">II", got.content[16:24])
            assert f"{width}x{height}" == icon["sizes"]
            sizes.add(width)
        else:
            assert icon["type"] == "image/svg+xml" and b"<svg" in got.content
    assert {192, 512} <= sizes
    page = pages()
    page.goto(server.base_url + "/")
    page.wait_for_selector('input[name="variant"]')
    cdp = page.context.new_cdp_session(page)
    parsed = cdp.send("Page.getAppManifest")
    assert parsed["url"] == server.base_url + "/manifest.webmanifest"
    assert parsed["errors"] == [], parsed["errors"]
    assert json.loads(parsed["data"]) == manifest


def test_the_worker_is_served_at_the_root_with_its_build(server: RunningServer) -> None:
    answer = loopback.get(server.base_url + "/sw.js", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["cache-control"] == "no-cache"
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    build = re.search(r'^const BUILD = "([^"]+)";$', answer.text, re.MULTILINE)
    assert build and build.group(1).startswith(__version__ + "-"), answer.text[:400]
    files = re.search(r"^const FILES = (\[.*\]);$", answer.text, re.MULTILINE)
    assert files
    listed = json.loads(files.group(1))
    assert {"/", "/static/app.js", "/static/polish.css", "/static/sounds/card.wav"} <= set(listed)
    assert not [f for f in listed if f.startswith(("/api", "/ws"))]
    for path in listed:
        assert loopback.get(server.base_url + path, timeout=10).status_code == 200, path


CACHED = """async () => {
  const out = {};
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    out[name] = (await cache.keys()).map((r) => new URL(r.url).pathname);
  }
  return out;
}"""


def test_a_reload_with_the_server_gone_shows_the_table_reconnecting(
    pages: PageFactory, server_factory: ServerFactory, redis_url: str, redis_prefix: str
) -> None:
    first = server_factory(redis_url=redis_url, redis_prefix=redis_prefix)
    # While the server is down the browser itself logs each refused request.
    pages.allow_console(r"WebSocket connection to .* failed|Failed to load resource")
    page = pages()
    table = Table(page)
    create_room(page, first, "schmier6")
    sit(page, "Ann", 2)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_selector('.seat.me[data-seat="2"]')
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    worker = page.evaluate("navigator.serviceWorker.controller.scriptURL")
    assert worker == first.base_url + "/sw.js"
    # The page and its API calls went through the worker; only the static client is kept.
    caches = page.evaluate(CACHED)
    assert len(caches) == 1 and next(iter(caches)).startswith(f"schmier-static-{__version__}-")
    kept = next(iter(caches.values()))
    assert {"/", "/static/app.js", "/static/style.css", "/static/i18n/en.json"} <= set(kept)
    assert not [p for p in kept if p.startswith(("/api", "/ws"))], kept

    first.stop()
    page.reload()
    page.wait_for_selector("body[data-connection='reconnecting']")
    assert page.locator("#banner").is_visible()
    assert "reconnecting" in page.locator("#banner").text_content()
    assert page.locator(".topbar .brand").is_visible()
    kept_after = page.evaluate(CACHED)
    assert not [p for v in kept_after.values() for p in v if p.startswith(("/api", "/ws"))]

    settings = Settings(**{**FAST, "redis_url": redis_url, "redis_prefix": redis_prefix})
    second = serve_on_port(settings, first.port)
    try:
        page.wait_for_selector("body[data-connection='open']", timeout=30_000)
        page.wait_for_selector('.seat.me[data-seat="2"]')
        assert page.locator("#banner").is_hidden()
        _, view = table.synced()
        assert view["you"] == 2 and view["seats"][2]["name"] == "Ann"
    finally:
        second.stop()
