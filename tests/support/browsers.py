"""A real headless Chromium driven by Playwright, for the browser client's tests.

Fixtures:

- `browser`: one Chromium for the session (`SCHMIER_TEST_CHROMIUM`, default
  `/usr/bin/chromium`); skipped when Chromium or Playwright is missing, or failed when
  `SCHMIER_TEST_REQUIRE` names `browser`.
- `pages`: opens pages in fresh browser contexts (each context is one person: its own
  localStorage, so its own seat token). Every page is watched: console errors, uncaught
  exceptions and JavaScript dialogs (an `alert` from injected markup) are collected,
  and the test fails at the end when there was any.

`Table` wraps one page and records every `state` frame the page's WebSocket received,
so a test can hold what the page shows against what the server sent it.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support import netlock
from tests.support.requirements import missing
from tests.support.servers import RunningServer, start_thread_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, WebSocket

CHROMIUM = os.environ.get("SCHMIER_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 375, "height": 667}
REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / os.environ.get("SCHMIER_SCREENSHOTS", "test-results/screenshots")
"""Where the browser tests save their screenshots: `test-results/` (ignored by git), so a
test run leaves the work tree clean; `SCHMIER_SCREENSHOTS=docs/screenshots` refreshes the
documentation's pictures instead (README, "Screenshots")."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the browser tests of a module.

    Not for the whole session: Playwright's sync API keeps an event loop running in the
    main thread while it is started, and every asyncio test after it would then fail
    with "cannot be called from a running event loop".
    """
    if not Path(CHROMIUM).exists():
        missing("browser", f"no Chromium at {CHROMIUM}")
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError as exc:
        missing("browser", f"Playwright for Python is not installed: {exc}")
    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    except Error as exc:
        playwright.stop()
        missing("browser", f"Chromium does not start: {exc}")
    yield chromium
    chromium.close()
    playwright.stop()


@dataclass
class Problems:
    """Everything a page did that a correct client never does."""

    found: list[str] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def add(self, problem: str) -> None:
        """Record a problem unless the test declared it expected."""
        if not any(pattern.search(problem) for pattern in self.allowed):
            self.found.append(problem)

    def watch(self, page: Page, label: str) -> None:
        """Collect console errors, page errors and dialogs of `page`."""

        def on_console(message: Any) -> None:
            if message.type == "error":
                self.add(f"{label} console error: {message.text}")

        def on_dialog(dialog: Any) -> None:
            self.found.append(f"{label} opened a dialog: {dialog.type} {dialog.message!r}")
            dialog.dismiss()

        page.on("console", on_console)
        page.on("pageerror", lambda exc: self.found.append(f"{label} page error: {exc}"))
        page.on("dialog", on_dialog)


class PageFactory:
    """Opens watched pages, each in its own browser context (its own storage)."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.problems = Problems()
        self.contexts: list[Any] = []

    def __call__(self, viewport: dict[str, int] | None = None, **options: Any) -> Page:
        size: Any = viewport or DESKTOP  # a dict in the shape of Playwright's ViewportSize
        context = self.browser.new_context(viewport=size, **options)
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        self.problems.watch(page, f"page {len(self.contexts)}")
        return page

    def allow_console(self, pattern: str) -> None:
        """Expect console errors matching `pattern` (the browser's own, e.g. while a
        server is down); page errors and dialogs are never allowed."""
        self.problems.allowed.append(re.compile(pattern))

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Browser, server_factory: Any) -> Iterator[PageFactory]:
    """Open watched pages; the test fails on any console error, page error or dialog.

    It asks for `server_factory` so that the servers a test starts outlive its pages:
    a page closed after its server would log the refused reconnections as errors."""
    with netlock.browsing():  # no network namespace comes or goes meanwhile
        factory = PageFactory(browser)
        yield factory
        factory.close()
    assert not factory.problems.found, "\n".join(factory.problems.found)


class Table:
    """One person's page at a room, with the state frames its socket received."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.views: dict[int, dict[str, Any]] = {}
        self.latest: dict[str, Any] | None = None
        page.on("websocket", self._on_socket)

    def _on_socket(self, ws: WebSocket) -> None:
        def on_frame(payload: str | bytes) -> None:
            frame = json.loads(payload)
            if frame.get("type") == "state":
                self.views[int(frame["seq"])] = frame["view"]
                self.latest = frame["view"]

        ws.on("framereceived", on_frame)

    def snapshot(self) -> dict[str, Any]:
        """What the page shows now, read in one go so that it is consistent."""
        result: dict[str, Any] = self.page.evaluate(
            """() => {
              // The accessible name: aria-label, else the text that is not hidden
              // from screen readers (a card says its name; its face is a picture).
              const said = (e) => [...e.childNodes].map((n) =>
                n.nodeType === 3 ? n.textContent
                : n.nodeType === 1 && n.getAttribute('aria-hidden') !== 'true' ? said(n) : ''
              ).join('');
              const data = (b) => ({ ...b.dataset, disabled: b.disabled,
                label: b.getAttribute('aria-label') || said(b).trim() });
              return {
                seq: document.body.dataset.seq || null,
                phase: document.body.dataset.phase || null,
                hand: [...document.querySelectorAll('#hand button[data-card]')].map(data),
                actions: [...document.querySelectorAll('button[data-action]')]
                  .filter((b) => b.offsetParent !== null).map(data),
                played: [...document.querySelectorAll('[data-played]')].map(
                  (e) => ({ card: e.dataset.played, seat: Number(e.dataset.seat) })),
                // A finished trick still shown: no card is playable until it goes.
                held: document.querySelector('.trick-note') !== null,
                scrollWidth: document.documentElement.scrollWidth,
                innerWidth: window.innerWidth,
              };
            }"""
        )
        return result

    def synced(self, timeout: float = 15) -> tuple[dict[str, Any], dict[str, Any]]:
        """(snapshot, view): the page's rendering of the newest state it has received."""
        deadline = time.monotonic() + timeout
        while True:
            shot = self.snapshot()
            seq = shot["seq"]
            if seq is not None and int(seq) in self.views and int(seq) == max(self.views):
                return shot, self.views[int(seq)]
            if time.monotonic() > deadline:
                raise AssertionError(f"page never showed the newest state (shows {seq})")
            self.page.wait_for_timeout(30)

    def wait_change(self, seq: str | None, timeout: float = 15_000) -> None:
        """Wait until the page has rendered a state other than `seq`."""
        if seq is None:
            self.page.wait_for_selector("body[data-seq]", timeout=timeout)
        else:
            self.page.wait_for_selector(f'body:not([data-seq="{seq}"])', timeout=timeout)


def screenshot(page: Page, name: str, at: str | None = None) -> None:
    """Save a screenshot (`SCREENSHOTS/<name>.png`): the top of the page, or scrolled to
    the element `at`."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    if at is None:
        page.evaluate("window.scrollTo(0, 0)")
    else:
        # The panel may be redrawn (a new state) while it is scrolled to: try again.
        for attempt in range(3):
            try:
                page.locator(at).scroll_into_view_if_needed(timeout=5_000)
                break
            except Exception:
                if attempt == 2:
                    raise
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


def serve_on_port(settings: Any, port: int) -> RunningServer:
    """A thread server on a given port: a restart at the address the pages know."""
    return start_thread_server(settings, port)
