"""The client's side of issue 42 in a real Chromium: a seat opened once too often.

With `SCHMIER_SOCKETS_PER_SEAT=1`, the same player opening the room in a second tab
pushes the first tab's socket out (4409): the first tab says so plainly and does not
reconnect by itself (which would push the second tab out in turn, for ever); the second
tab plays on. Reloading the first tab takes the seat back there.
"""

from __future__ import annotations

import re

import pytest

from tests.support.browsers import PageFactory
from tests.support.play import sit
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.browser


def test_a_seat_opened_in_another_tab_says_so_and_stays_put(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory(sockets_per_seat=1)
    first = pages()
    first.goto(server.base_url + "/")
    first.check('input[name="variant"][value="wisconsin4"]')
    first.click('button[data-action="create"]')
    first.wait_for_url(re.compile(r"/r/[^/]+$"))
    first.wait_for_selector("body[data-seq]")
    sit(first, "Ann", 0)
    second = first.context.new_page()  # the same person (the same storage), another tab
    second.goto(first.url)
    second.wait_for_selector('.seat.me[data-seat="0"]')
    first.wait_for_selector("text=This seat was opened in another tab or on another device")
    # It stays put: the second tab keeps the seat (no tab pushes the other out again).
    second.click('button[data-action="fill_bots"]')
    second.wait_for_selector('.seat[data-seat="3"] .badge.bot')
    assert second.locator('.seat.me[data-seat="0"]').count() == 1
    assert first.locator("text=This seat was opened in another tab").count() == 1
    # Reloading the first tab takes the seat back there.
    first.reload()
    first.wait_for_selector('.seat.me[data-seat="0"]')
    second.wait_for_selector("text=This seat was opened in another tab or on another device")
    second.close()
