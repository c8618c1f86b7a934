"""The host, the seats and the first table, in a real Chromium (issue: what a first-time
table trips over).

- A seat's own link carries the seat to a fresh browser (its token never in an address
  a server sees, the fragment gone from the address bar at once); the host frees the
  seat of a player whose browser is gone, who takes it back by name from another one.
- One name per table, said next to the name field.
- The creator sits down at once from the home page; the invite link is in sight at
  1280×800; "Play now" is one click to a started table with bots.
- "Leave the game" asks first.
- The lobby says what it waits for: players, then the host's start.
- The host pauses and resumes; the others see it and cannot play meanwhile.
- The rematch waits for every person, and the host may change the rules before it.
- A timer left alone: a countdown by the action panel, a tick in the last seconds when
  sounds are on, and "Time ran out: the bot played … for you".
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
from typing import Any

import pytest

from tests.support import loopback
from tests.support.browsers import PageFactory, Table, screenshot
from tests.support.play import check_contract, drive, fill_and_start, sit
from tests.support.servers import Client, Player, RunningServer, ServerFactory

pytestmark = pytest.mark.browser


def create_from_home(page: Any, server: RunningServer, variant: str, name: str = "") -> str:
    """Create a room from the home page (with `name`, sitting down at once); its code."""
    page.goto(server.base_url + "/")
    page.check(f'input[name="variant"][value="{variant}"]')
    page.fill("#target", "5")
    if name:
        page.fill("#home-name", name)
    page.click('button[data-action="create"]')
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    page.wait_for_selector("body[data-seq]")
    return str(page.url.rsplit("/r/", 1)[1])


def seat_link(page: Any) -> str:
    """The seat's own link, as the page offers it to copy."""
    page.click("#seat-link-box summary")
    link = page.input_value("#seat-link-input")
    assert "#seat=" in link
    return str(link)


def test_the_seat_follows_the_player_and_the_host_frees_an_absent_ones(
    pages: PageFactory, server: RunningServer
) -> None:
    ann = pages()
    code = create_from_home(ann, server, "wisconsin4")
    sit(ann, "Ann", 0)  # as anyone sits (the creator's own seat: a test of its own)
    ann.wait_for_selector('.seat.me[data-seat="0"]')
    # Ann's seat on another device: a fresh browser opens her seat link.
    link = seat_link(ann)
    token = link.split("#seat=", 1)[1]
    phone = pages()
    seen: list[str] = []
    phone.on("request", lambda r: seen.append(r.url + (r.post_data or "")))
    phone.goto(link)
    phone.wait_for_selector('.seat.me[data-seat="0"]')
    assert "#" not in phone.url and phone.url.endswith(f"/r/{code}")  # gone at once
    assert not [url for url in seen if token in url]  # never in an address or a body
    assert token in phone.evaluate("localStorage.getItem('schmier.tokens')")
    phone.close()

    # Bob sits, then his browser's storage is gone (another device, a private window).
    bob = pages()
    bob.goto(f"{server.base_url}/r/{code}")
    sit(bob, "Bob", 2)
    ann.wait_for_selector('.seat[data-seat="2"] .seat-name:text-is("Bob")')
    stored = bob.evaluate("localStorage.getItem('schmier.tokens')")
    bob.close()
    # Ann hosts: she sees Bob offline and frees his seat.
    free = ann.locator('button[data-action="free_seat"][data-seat="2"]')
    free.wait_for()
    assert "Bob" in free.inner_text()
    free.click()
    ann.wait_for_selector('.lobby-seat[data-seat="2"] .badge.bot')
    # Bob, on a fresh browser, takes his seat back by name ("Take over").
    again = pages()
    again.goto(f"{server.base_url}/r/{code}")
    again.fill("#name", "Bob")
    again.click('button[data-action="join"][data-seat="2"]')
    again.wait_for_selector('.seat.me[data-seat="2"]')
    ann.wait_for_selector('.seat[data-seat="2"] .seat-name:text-is("Bob")')
    # The freed seat's old token works no more: Bob's first browser, its storage back,
    # is a spectator (the seat is his from the new browser only).
    stale = pages()
    stale.add_init_script(f"localStorage.setItem('schmier.tokens', {json.dumps(stored)})")
    stale.goto(f"{server.base_url}/r/{code}")
    stale.wait_for_selector("#join:not([hidden])")
    assert stale.locator(".seat.me").count() == 0
    again.wait_for_timeout(300)
    assert again.locator('.seat.me[data-seat="2"]').count() == 1


def test_one_name_per_table_said_next_to_the_field(
    pages: PageFactory, server: RunningServer
) -> None:
    pages.allow_console(r"status of 409")  # the join refused: the browser says so too
    ann = pages()
    code = create_from_home(ann, server, "schmier6")
    sit(ann, "Sam", 0)  # as anyone sits (the creator's own seat: a test of its own)
    other = pages(viewport={"width": 375, "height": 667})
    other.goto(f"{server.base_url}/r/{code}")
    other.wait_for_selector("#join:not([hidden])")
    # No name: the error is right under the field, in sight.
    other.click('button[data-action="join"][data-seat="3"]')
    error = other.locator("#join-error")
    error.wait_for()
    assert "Enter a name" in error.inner_text()
    field = other.locator("#name").bounding_box()
    said = error.bounding_box()
    assert field is not None and said is not None
    assert 0 <= said["y"] - (field["y"] + field["height"]) < 40
    assert said["y"] + said["height"] <= 667 + other.evaluate("scrollY")
    # The same name at the same table, whatever its case: refused, said next to the field.
    other.fill("#name", " sam ")
    other.click('button[data-action="join"][data-seat="3"]')
    other.wait_for_selector('#join-error:has-text("already has that name")')
    assert other.locator(".seat.me").count() == 0
    other.fill("#name", "Sam B")
    other.click('button[data-action="join"][data-seat="3"]')
    other.wait_for_selector('.seat.me[data-seat="3"]')


def test_the_creator_sits_down_and_the_invite_is_in_sight(
    pages: PageFactory, server: RunningServer
) -> None:
    page = pages(viewport={"width": 1280, "height": 800})
    page.goto(server.base_url + "/")
    page.wait_for_selector("#home-name")
    code = create_from_home(page, server, "schmier6", "Ann")
    page.wait_for_selector('.seat.me[data-seat="0"]')
    invite = page.locator("#invite-link")
    invite.wait_for()
    box = invite.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800, box
    assert code in page.input_value("#invite-link")
    screenshot(page, "desktop-lobby-host")
    # A frame (here: a bot sits down) leaves the link's field as it is, with what was
    # selected in it: it is not drawn again under the person copying it.
    invite.evaluate("(e) => { e.dataset.before = 'yes'; e.select(); }")
    page.click('button[data-action="add_bot"][data-seat="1"]')
    page.wait_for_selector('.lobby-seat[data-seat="1"] .badge.bot')
    kept = invite.evaluate(
        "(e) => e.dataset.before === 'yes' && e.selectionEnd - e.selectionStart === e.value.length"
    )
    assert kept


def test_play_now_is_one_click_to_a_started_table(
    pages: PageFactory, server: RunningServer
) -> None:
    page = pages(viewport={"width": 375, "height": 667})
    table = Table(page)
    page.goto(server.base_url + "/")
    page.check('input[name="variant"][value="schmier5"]')
    page.click('button[data-action="play_now"]')
    page.wait_for_selector("body[data-phase]:not([data-phase='lobby'])")
    shot, view = table.synced()
    check_contract(shot, view)
    me = view["you"]
    assert me is not None and view["host"] == me
    assert [s["kind"] for s in view["seats"]] == ["human" if s == me else "bot" for s in range(5)]
    assert view["seats"][me]["name"] == "Player"
    assert page.locator("#toast:not([hidden])").count() == 0  # nothing was refused


def test_leaving_asks_first(pages: PageFactory, server: RunningServer) -> None:
    page = pages()
    create_from_home(page, server, "wisconsin4")
    sit(page, "Ann", 0)  # as anyone sits (the creator's own seat: a test of its own)
    page.wait_for_selector('.seat.me[data-seat="0"]')
    page.click('button[data-action="leave"]')
    page.wait_for_selector('button[data-action="leave-confirm"]')
    assert page.locator(".seat.me").count() == 1  # nothing happened yet
    assert page.evaluate("document.activeElement.dataset.action") == "leave-confirm"
    page.keyboard.press("Escape")
    page.wait_for_selector('button[data-action="leave"]')
    page.click('button[data-action="leave"]')
    page.click('button[data-action="leave-cancel"]')
    page.wait_for_timeout(200)
    assert page.locator(".seat.me").count() == 1
    page.click('button[data-action="leave"]')
    page.click('button[data-action="leave-confirm"]')
    page.wait_for_selector("#join:not([hidden])")
    assert page.locator(".seat.me").count() == 0


def test_the_host_pauses_and_the_others_wait(pages: PageFactory, server: RunningServer) -> None:
    ann = pages()
    code = create_from_home(ann, server, "wisconsin4")
    sit(ann, "Ann", 0)  # as anyone sits (the creator's own seat: a test of its own)
    bob = pages()
    bob_table = Table(bob)
    bob.goto(f"{server.base_url}/r/{code}")
    sit(bob, "Bob", 2)
    # Only the host has the host's tools.
    ann.wait_for_selector("#host-tools:not([hidden])")
    assert bob.locator("#host-tools:not([hidden])").count() == 0
    # The host swaps Bob into seat 1 and sets the target, in the lobby.
    ann.select_option("#swap-a", "2")
    ann.select_option("#swap-b", "1")
    ann.click('button[data-action="swap_seats"]')
    bob.wait_for_selector('.seat.me[data-seat="1"]')
    ann.fill("#rule-target", "11")
    ann.click('button[data-action="set_rules"]')
    bob.wait_for_selector('.scoreboard .target:has-text("11")')
    # The lobby says what it waits for: players, then (once full) the host's start.
    for page in (ann, bob):
        assert page.locator("#table .centre-note").inner_text() == "Waiting for players"
    ann.click('button[data-action="fill_bots"]')
    bob.wait_for_selector('#table .centre-note:has-text("Waiting for Ann to start the game")')
    assert bob.locator(".lobby-wait").inner_text() == "Waiting for Ann to start the game"
    ann.wait_for_selector('#table .centre-note:has-text("Everyone is seated")')
    assert ann.locator(".lobby-wait").inner_text() == "Everyone is seated"
    ann.click('button[data-action="start"]')
    ann.wait_for_selector('button[data-action="pause"]')
    ann.click('button[data-action="pause"]')
    bob.wait_for_selector('#pause-notice:has-text("Ann, the host, has paused the game.")')
    shot, view = bob_table.synced()
    assert view["paused"] and view["legal"] == []
    check_contract(shot, view)  # nothing offered to play
    assert bob.locator('#pause-notice button[data-action="resume"]').count() == 0
    screenshot(ann, "desktop-paused-by-host")
    ann.click('#pause-notice button[data-action="resume"]')
    bob.wait_for_selector("#pause-notice", state="hidden")
    shot, view = bob_table.synced()
    assert not view["paused"]
    check_contract(shot, view)


def _bob_over_the_wire(server: RunningServer, code: str, token: str, done: threading.Event) -> Any:
    """Bob plays seat 2 over the protocol in a thread of his own until the game is over,
    then confirms the rematch once Ann has asked; returns the thread."""

    async def main() -> None:
        client = await Client.seated(server, code, token)
        player = Player(client, random.Random("bob"))
        # As long as Ann's `drive` may take (its `limit`): a game with a browser at the
        # table ran past 120 s on a loaded CI machine, and Bob gave up mid-game.
        await player.play_until(lambda v: v["phase"] == "game_over", timeout=300)
        await client.wait_state(lambda v: v["rematch"] == [0], timeout=120)
        await asyncio.sleep(1)  # Ann's page shows the table waiting for Bob meanwhile
        await client.send({"type": "rematch"})
        await client.wait_state(lambda v: v["phase"] != "game_over")
        await client.close()
        done.set()

    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    return thread


def test_the_rematch_waits_for_everyone_and_the_host_changes_the_target(
    pages: PageFactory, server: RunningServer
) -> None:
    ann = pages()
    table = Table(ann)
    code = create_from_home(ann, server, "wisconsin4")
    sit(ann, "Ann", 0)  # as anyone sits (the creator's own seat: a test of its own)
    with loopback.client(base_url=server.base_url) as http:
        token = http.post(f"/api/rooms/{code}/join", json={"name": "Bob", "seat": 2}).json()[
            "token"
        ]
    done = threading.Event()
    ann.wait_for_selector('.seat[data-seat="2"] .seat-name:text-is("Bob")')
    ann.click('button[data-action="fill_bots"]')
    ann.click('button[data-action="start"]')
    thread = _bob_over_the_wire(server, code, token, done)
    drive(table, lambda v: v["phase"] == "game_over")
    # Game over: the host sets the next game's target, then asks for the rematch.
    ann.fill("#rule-target", "7")
    ann.click('button[data-action="set_rules"]')
    ann.wait_for_selector('.scoreboard .target:has-text("7")')
    ann.click('button[data-action="rematch"]')
    ann.wait_for_selector('#rematch-status:has-text("You asked for the rematch.")')
    # Bob has not confirmed yet: the table waits for him (one click used to start it).
    assert "Waiting for Bob to confirm." in ann.inner_text("#rematch-status")
    shot, view = table.synced()
    check_contract(shot, view)
    assert view["phase"] == "game_over" and view["rematch"] == [0]
    ann.wait_for_selector("body:not([data-phase='game_over'])")
    thread.join(30)
    assert done.is_set()
    _, view = table.synced()
    assert view["rules"]["target"] == 7 and view["scores"] == [0, 0]
    ann.wait_for_selector('.scoreboard .target:has-text("7")')


def test_a_timer_left_alone(pages: PageFactory, server_factory: ServerFactory) -> None:
    """10 s turns run 2 s (`turn_timer_scale` 0.2): a countdown by the action panel as
    on the seat, a tick each second of the last five when sounds are on, and when the
    time is up "Time ran out: the bot played … for you" (in English and in Bulgarian)."""
    server = server_factory(turn_timer_scale=0.2)
    page = pages()
    ticks: list[str] = []
    page.on("request", lambda r: ticks.append(r.url) if r.url.endswith("/tick.wav") else None)
    page.goto(server.base_url + "/")
    page.check('input[name="variant"][value="wisconsin4"]')
    page.select_option("#turn_seconds", "10")
    page.fill("#target", "5")
    page.click('button[data-action="create"]')
    page.wait_for_url(re.compile(r"/r/[^/]+$"))
    page.wait_for_selector("body[data-seq]")
    sit(page, "Ann", 0)
    fill_and_start(page)
    page.check("#setting-sound")
    clock = page.locator("#turn-clock .turn-clock-text")
    clock.wait_for()
    assert re.fullmatch(r"[0-9]+ seconds? left to play", clock.inner_text())
    assert page.locator(".seat.me .turn-timer").count() == 1
    note = page.locator("#timeout-note")
    note.wait_for(timeout=15_000)
    assert re.fullmatch(r"Time ran out: the bot played .+ for you\.", note.inner_text())
    assert ticks, "no tick in the last seconds"
    page.select_option("#lang", "bg")
    page.wait_for_selector("#timeout-note:has-text('Времето изтече')", timeout=15_000)
