"""A paused table in a real Chromium: the server's Redis (a process of the test's own) is
killed while a person sits at the table with their turn to play, then started again.

Checked: the page shows the pause banner ("the server cannot reach its storage…") while
its socket stays open (no "connection lost"), every action button and card is disabled;
an action that gets through anyway (sent as the store went) is answered
`store_unavailable` and shows that same message; once Redis is back the banner goes, the
controls are exactly the legal actions again and the game goes on by clicking.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from tests.support.browsers import PageFactory, Table, screenshot
from tests.support.play import act, answered, check_contract, create_room, fill_and_start, sit
from tests.support.redis_procs import RedisProcess
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.browser

MESSAGE = "The server cannot reach its storage; the game is paused and resumes by itself."


def my_turn(view: dict[str, Any]) -> bool:
    return view["phase"] not in ("lobby", "game_over") and bool(view["legal"])


def wait_view(
    table: Table, check: Any, timeout: float = 30
) -> tuple[dict[str, Any], dict[str, Any]]:
    for _ in range(int(timeout * 1000 / 50)):
        shot, view = table.synced()
        if check(view):
            return shot, view
        table.page.wait_for_timeout(50)
    raise AssertionError("the page never showed the awaited view")


def controls(table: Table) -> list[bool]:
    """Whether each action button and card on the page is disabled."""
    found: list[bool] = table.page.evaluate(
        "() => [...document.querySelectorAll('#actions button, #hand button')]"
        ".map((b) => b.disabled)"
    )
    return found


def test_the_table_shows_the_pause_and_plays_on_after_it(
    pages: PageFactory, server_factory: ServerFactory, tmp_path: Path
) -> None:
    redis = RedisProcess(tmp_path / "redis", "--appendonly", "yes", "--appendfsync", "always")
    redis.start()
    # A look-up the page made as the game started (its hands, for the deals' checks)
    # and answered once the store had gone is refused with 503, and the browser says
    # so: on a loaded machine it was still on its way at the kill. The page checks the
    # deals again at the next hand's score.
    pages.allow_console(r"status of 503 \(Service Unavailable\)")
    try:
        server = server_factory(redis_url=redis.url, redis_prefix="bout:", lease_ms=2000)
        page = pages()
        table = Table(page)
        create_room(page, server, "schmier6")
        sit(page, "Ann", 0)
        fill_and_start(page)
        shot, view = wait_view(table, my_turn)
        check_contract(shot, view)
        assert page.locator("#paused-banner").is_hidden()

        redis.kill(signal.SIGKILL)
        page.wait_for_selector("#paused-banner:not([hidden])", timeout=20_000)
        assert page.inner_text("#paused-banner") == MESSAGE
        assert page.evaluate("document.body.dataset.connection") == "open"
        assert page.locator("#banner").is_hidden()
        shown = controls(table)
        assert shown and all(shown), "a control stayed enabled while paused"
        screenshot(page, "desktop-paused")
        # An action sent just as the store went (the controls made clickable again to
        # send one): refused with `store_unavailable`, shown as the same message.
        page.evaluate(
            "() => document.querySelectorAll('#actions button, #hand button')"
            ".forEach((b) => { b.disabled = false; b.removeAttribute('aria-disabled'); })"
        )
        assert act(table, view)
        page.wait_for_selector("#toast:not([hidden])")
        assert page.inner_text("#toast") == MESSAGE
        assert page.inner_text("#paused-banner") == MESSAGE
        page.wait_for_timeout(1000)

        redis.start()
        page.wait_for_selector("#paused-banner", state="hidden", timeout=30_000)
        assert page.evaluate("document.body.classList.contains('paused')") is False
        # The refused action changed nothing: the same turn, its controls as legal.
        shot, again = wait_view(table, my_turn)
        check_contract(shot, again)
        assert again["legal"] == view["legal"]
        assert not all(controls(table))
        # Play goes on by clicking.
        for _ in range(3):
            shot, view = wait_view(table, my_turn, timeout=60)
            check_contract(shot, view)
            assert act(table, view)
            answered(table, shot["seq"], view)
        assert page.locator("#paused-banner").is_hidden()
    finally:
        redis.kill(signal.SIGTERM)
