"""Review together in a real Chromium against a real server: three players (one on a
phone, by touch) and a spectator, each in a context of their own, look at a finished
hand together. The leader steps (keyboard and mouse) and points at a card, and every
other screen shows the same step and pointer; one player wanders off and comes back to
the leader; the lead passes on, the new leader steps (by touch) and closes the review
for everyone. The bar says who leads, who follows and who looks on alone. And from the
middle of a hand the leader starts a practice room: a player opens it, plays on by touch
while bots play the rest, and sees the result beside the original's.

Screenshots (`desktop-together`, `phone-together`) go where `tests/support/browsers.py`
says.
"""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

import pytest

from tests.support.browsers import PHONE, PageFactory, Table, screenshot
from tests.support.play import check_fits, drive
from tests.support.servers import Client, Player, RunningServer, ServerFactory

pytestmark = pytest.mark.browser

SCORED = ("hand_over", "game_over")
NAMES = {0: "Ann", 1: "Bob", 2: "Cat"}


def in_thread(work: Any) -> Any:
    """Run the coroutine function `work` in a thread of its own (Playwright's sync API
    holds this thread's event loop); its result."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(work())
        except BaseException as exc:  # handed to the test's thread below
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="wire")
    thread.start()
    thread.join(240)
    if "error" in outcome:
        raise outcome["error"]
    assert "value" in outcome, "the work over the wire did not end"
    return outcome["value"]


def seated_room(server: RunningServer) -> tuple[str, dict[int, str]]:
    """A wisconsin4 room with Ann, Bob and Cat seated and a bot in seat 3: (code, tokens)."""

    async def main() -> tuple[str, dict[int, str]]:
        code = await server.create_room("wisconsin4", {"target": 11})
        tokens = {}
        for seat, name in NAMES.items():
            _, tokens[seat] = await server.join(code, name, seat)
        return code, tokens

    result: tuple[str, dict[int, str]] = in_thread(main)
    return result


def play_a_hand(server: RunningServer, code: str, tokens: dict[int, str]) -> None:
    """The people of `tokens` play the first hand over the wire (second sockets of their
    seats; a seated person without one is played for when away)."""

    async def main() -> None:
        clients = {s: await Client.seated(server, code, tok) for s, tok in tokens.items()}
        first = clients[0]
        await first.send({"type": "add_bot", "seat": 3})
        await first.wait_state(lambda v: {"type": "start"} in v["legal"])
        await first.send({"type": "start"})
        rng = random.Random(4)
        await asyncio.gather(
            *(Player(c, rng).play_until(lambda v: v["phase"] in SCORED) for c in clients.values())
        )
        for client in clients.values():
            await client.close()

    in_thread(main)


def step_of(page: Any) -> str:
    value: str = page.get_attribute("#together-dialog .review-stage", "data-step")
    return value


def same_step(page: Any, step: str) -> None:
    page.wait_for_selector(f'#together-dialog .review-stage[data-step="{step}"]')


def test_the_table_reviews_a_hand_together(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(hand_pause=600)
    code, tokens = seated_room(server)
    ann, bob = pages(), pages()
    cat = pages(viewport=PHONE, has_touch=True, is_mobile=True)
    watcher = pages()
    people = {0: ann, 1: bob, 2: cat}
    for seat, page in people.items():
        page.goto(f"{server.base_url}/r/{code}#seat={tokens[seat]}")
        page.wait_for_selector(f'.seat.me[data-seat="{seat}"]')
    watcher.goto(f"{server.base_url}/r/{code}")
    watcher.wait_for_selector("body[data-seq]")
    play_a_hand(server, code, tokens)
    everyone = [ann, bob, cat, watcher]
    for page in everyone:
        page.wait_for_selector("body[data-phase='hand_over']")
    # A seated player may open a shared review; the spectator is offered nothing yet.
    for page in (ann, bob, cat):
        page.wait_for_selector('#together button[data-together="open"]')
    assert watcher.locator("#together").is_hidden()

    # Ann opens it (the mouse) and leads; her review opens at once.
    ann.select_option("#together-hand", "1")
    ann.click('#together button[data-together="open"]')
    ann.wait_for_selector("#together-dialog .review-stage")
    # Bob joins by mouse, Cat by touch, the spectator by keyboard. The spectator's
    # keyboard is on "Join" before the others join: each join redraws the panel under
    # it, and the keyboard stays on the (new) button, so Enter still joins.
    watcher.focus('#together button[data-together="join"]')
    watcher.evaluate("document.activeElement.dataset.before = 'yes'")
    bob.click('#together button[data-together="join"]')
    cat.tap('#together button[data-together="join"]')
    ann.wait_for_selector('#together-bar [data-following="1,2"]')
    watcher.wait_for_function(
        "() => { const a = document.activeElement;"
        " return a.dataset.together === 'join' && a.dataset.before === undefined; }"
    )
    watcher.keyboard.press("Enter")
    for page in everyone:
        page.wait_for_selector("#together-dialog .review-stage")
        page.wait_for_selector('#together-bar [data-leader="0"]')

    # The leader steps by keyboard and by mouse; everyone is on her step.
    ann.focus("#together-dialog .review")
    ann.keyboard.press("ArrowRight")
    ann.keyboard.press("ArrowRight")
    ann.click('#together-dialog button[data-review="next"]')
    step = "3"  # once her page has handled the keys and the click (not read before)
    for page in everyone:
        same_step(page, step)
    # She points at a card (mouse), then at another (keyboard): everybody sees it.
    card = ann.get_attribute("#together-dialog .review-stage [data-rcard]", "data-rcard")
    ann.click(f'#together-dialog .review-stage [data-rcard="{card}"]')
    for page in everyone:
        page.wait_for_selector(f'#together-dialog .rcard.pointed[data-rcard="{card}"]')
        page.wait_for_selector(f'#together-bar [data-point="{card}"]')
    other = ann.eval_on_selector_all(
        "#together-dialog .review-stage [data-rcard]",
        f"(es) => es.map((e) => e.dataset.rcard).find((c) => c !== '{card}')",
    )
    ann.focus(f'#together-dialog .review-stage [data-rcard="{other}"]')
    ann.keyboard.press("Enter")
    for page in everyone:
        page.wait_for_selector(f'#together-dialog .rcard.pointed[data-rcard="{other}"]')
        assert page.locator(f'#together-dialog .rcard.pointed[data-rcard="{card}"]').count() == 0

    # Bob wanders off: the others see him on his own, and he no longer moves with her.
    bob.click('#together-dialog button[data-review="first"]')
    same_step(bob, "0")
    ann.wait_for_selector('#together-bar [data-wandering="1"]')
    ann.click('#together-dialog button[data-review="next"]')
    for page in (cat, watcher):
        same_step(page, "4")
    assert step_of(bob) == "0"
    # Meanwhile Ann picks Cat to hand the lead to; Bob comes back to the leader, which
    # redraws her bar, and her choice stays.
    ann.select_option("#together-lead", "2")
    bob.click('#together-bar button[data-together="back"]')
    same_step(bob, "4")
    ann.wait_for_selector('#together-bar [data-following="1,2"]')
    ann.wait_for_selector('#together-bar [data-wandering=""]')
    assert ann.input_value("#together-lead") == "2"
    screenshot(ann, "desktop-together")

    # The lead passes to Cat, who steps by touch; Ann now follows her.
    ann.click('#together-bar button[data-together="lead"]')
    for page in everyone:
        page.wait_for_selector('#together-bar [data-leader="2"]')
    cat.tap('#together-dialog button[data-review="prev"]')
    for page in everyone:
        same_step(page, "3")
    assert bob.locator('#together-bar button[data-together="close"]').count() == 0
    check_fits(cat)
    screenshot(cat, "phone-together")

    # Cat closes it for everyone: every dialog goes, the panels offer a new review.
    cat.tap('#together-bar button[data-together="close"]')
    for page in everyone:
        page.wait_for_selector("#together-dialog", state="detached")
    for page in (ann, bob, cat):
        page.wait_for_selector('#together button[data-together="open"]')
    watcher.wait_for_selector("#together", state="hidden")


def test_a_hand_played_again_from_the_review(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    # Ann and Bob look on; Cat is not there (a bot plays her seat in the practice room),
    # and Ann, who stays in the room, is played for once she is away there.
    server = server_factory(hand_pause=600, autoplay_after=0.2)
    code, tokens = seated_room(server)
    ann, bob = pages(), pages(viewport=PHONE, has_touch=True, is_mobile=True)
    for seat, page in ((0, ann), (1, bob)):
        page.goto(f"{server.base_url}/r/{code}#seat={tokens[seat]}")
        page.wait_for_selector(f'.seat.me[data-seat="{seat}"]')
    play_a_hand(server, code, {k: tokens[k] for k in (0, 1)})
    for page in (ann, bob):
        page.wait_for_selector("body[data-phase='hand_over']")
    ann.click('#together button[data-together="open"]')
    ann.wait_for_selector("#together-dialog .review-stage")
    bob.tap('#together button[data-together="join"]')
    bob.wait_for_selector("#together-dialog .review-stage")
    # Ann goes to the second trick and plays on from there.
    # (By the mouse, a step at a time: the keyboard's steps are the first test's.)
    for k in range(1, 4):
        ann.click('#together-dialog button[data-review="next"]')
        same_step(ann, str(k))
    same_step(bob, "3")
    ann.click('#together-bar button[data-together="practice_here"]')
    for page in (ann, bob):
        page.wait_for_selector('#together-bar a[data-together="practice"]')
    href = bob.get_attribute('#together-bar a[data-together="practice"]', "href")
    assert href is not None and href != f"/r/{code}"
    # Bob opens it in a tab of his own and plays on there by touch; bots play the
    # seats nobody took, and Ann's (she stays in the room) once she is away.
    tab = bob.context.new_page()
    pages.problems.watch(tab, "Bob's practice tab")
    table = Table(tab)
    tab.goto(server.base_url + href)
    tab.wait_for_selector('.seat.me[data-seat="1"]')
    shown = tab.get_attribute("#practice [data-practice-of]", "data-practice-of")
    assert shown is not None and shown.startswith(f"{code}:1:")
    # A spectator of the practice room has the keyboard on the way back to the room;
    # the hand's frames leave it there (checked once, while the hand is played).
    onlooker = pages()
    onlooker.goto(server.base_url + href)
    back = onlooker.locator('#practice a[data-practice="back"]')
    back.evaluate("(e) => { e.focus(); e.dataset.seq = document.body.dataset.seq; }")
    kept: list[bool] = []

    def stays(table: Table, shot: dict[str, Any], view: dict[str, Any]) -> None:
        newer = "(e) => document.body.dataset.seq !== e.dataset.seq"
        if not kept and view["phase"] == "play" and back.evaluate(newer):
            kept.append(back.evaluate("(e) => document.activeElement === e"))

    end = drive(table, lambda v: v["phase"] in SCORED, hook=stays, touch=True)
    assert kept == [True]
    assert end["original"] is not None and end["practice"]["room"] == code
    tab.wait_for_selector("#practice-compare")
    assert tab.locator("#practice-compare tbody tr").count() >= 3  # the contract, two sides
    check_fits(tab)
    screenshot(tab, "phone-practice", at="#practice")
    # The original room is still at its first hand's summary, the review open.
    assert ann.get_attribute("body", "data-phase") == "hand_over"
    ann.wait_for_selector("#together-dialog .review-stage")
