"""A table a first-time player can sit at (issue 16): a whole hand of every game played by
clicks at 1280×800 and by taps at 375×667, with what the player needs to decide on
screen at every one of their turns and nothing scrolling sideways; a whole hand of
Wisconsin Smear with the keyboard alone.

At each of the player's turns the trump, the scores, the bid, the called card
(`schmier5`) and the cards (or buttons) the player may use must lie inside the viewport
as it is, with nothing scrolled by the test: `in_view` reads their bounding boxes.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browsers import PHONE, SCREENSHOTS, PageFactory, Table
from tests.support.play import create_room, drive, fill_and_start, sit
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}
LONG = ["Abcdefghijklmnopqrstuvwx", "Zyxwvutsrqponmlkjihgfedc"]
"""The longest names there are (24 characters), without a space to break them at."""
GAMES = ["schmier6", "schmier5", "wisconsin4"]
QUICK_HOLD = "1200"
"""The shortest time a won trick stays (`hold.js`), to keep the hands quick."""


def open_phone(pages: PageFactory) -> Any:
    return pages(viewport=PHONE, is_mobile=True, has_touch=True)


def quick(page: Any) -> None:
    """Hold won tricks for the shortest time this browser can choose."""
    page.add_init_script(f"localStorage.setItem('schmier.trick_hold', '{QUICK_HOLD}')")


NEEDED = """(want) => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right,
             width: r.width, height: r.height };
  };
  const inside = (r) => r.width > 0 && r.height > 0 && r.top >= -0.5 && r.left >= -0.5
    && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
  const out = {};
  for (const [name, selector] of Object.entries(want)) {
    const found = [...document.querySelectorAll(selector)];
    out[name] = found.length === 0 ? ['missing'] :
      found.filter((e) => !inside(box(e))).map((e) => [e.outerHTML.slice(0, 60), box(e)]);
  }
  out.scroll = [document.scrollingElement.scrollWidth, innerWidth];
  return out;
}"""


def wanted(view: dict[str, Any], wide: bool) -> dict[str, str]:
    """What must be on screen at this turn of the player's, as selectors (on a wide
    screen the whole hand, even while choosing a bid, a trump or a partner)."""
    kinds = {a["type"] for a in view["legal"]}
    want = {"scores": "#scoreboard .score"}
    if wide:
        want["hand"] = "#hand button[data-card]"
    if view["trump"] or view.get("my_trump"):
        want["trump"] = "#trump"
    if view["phase"] == "bidding":
        want["bid"] = "#actions .bids-made"
    elif view["bid"] is not None:
        want["bid"] = "#contract [data-bid]"
    if view.get("called"):
        want["called"] = f'#contract [data-called="{view["called"]}"]'
    if "play" in kinds:
        want["cards"] = "#hand button[data-card]:not(:disabled)"
    elif "discard" in kinds:
        want["cards"] = "#hand button[data-card]:not(:disabled)"
        want["discard"] = '#actions button[data-action="discard"]'
    else:
        want["buttons"] = "#actions button[data-action]:not(:disabled)"
    return want


def check_in_view(table: Table, shot: dict[str, Any], view: dict[str, Any]) -> None:
    """At a turn of the player's, all they need is on the screen, unscrolled sideways."""
    page = table.page
    # The page is wider than the screen nowhere, at any moment.
    width = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], width
    if view["you"] not in (view["turn"] or []) or not view["legal"]:
        return
    wide = (page.viewport_size or {}).get("width", 0) >= 960
    report = page.evaluate(NEEDED, wanted(view, wide))
    scroll = report.pop("scroll")
    assert scroll[0] <= scroll[1], scroll
    off = {name: bad for name, bad in report.items() if bad}
    if off:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        size = page.viewport_size or {}
        page.screenshot(path=str(SCREENSHOTS / f"failed-{view['variant']}-{size.get('width')}.png"))
    assert not off, (view["phase"], view["legal"][:3], off)


def seat_with_long_name(page: Any, seat: int) -> None:
    sit(page, LONG[0], seat)


@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.parametrize("variant", GAMES)
def test_a_whole_hand_by_clicks_and_taps_with_all_one_needs_on_screen(
    variant: str, size: str, pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    phone = size == "phone"
    page = open_phone(pages) if phone else pages(viewport=LAPTOP)
    quick(page)
    table = Table(page)
    create_room(page, server, variant, target=5)
    seat_with_long_name(page, 0)
    # "Start the game" is on the first screen once the bots are in.
    page.click('button[data-action="fill_bots"]') if not phone else page.tap(
        'button[data-action="fill_bots"]'
    )
    page.wait_for_selector('button[data-action="start"]')
    report = page.evaluate(NEEDED, {"start": 'button[data-action="start"]'})
    assert report["start"] == [], report
    page.click('button[data-action="start"]') if not phone else page.tap(
        'button[data-action="start"]'
    )
    page.wait_for_selector("body[data-phase]:not([data-phase='lobby'])")
    drive(
        table,
        lambda v: v["phase"] in ("hand_over", "game_over"),
        hook=check_in_view,
        touch=phone,
    )
    width = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], width
