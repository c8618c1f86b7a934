"""A player that picks at random from `view.legal`, for tests and tools that play games.

`concrete` turns a `legal` entry into the frame that is sent (the discard template gets
random cards); `Player` plays one seat of a `Client` until a condition holds.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

from bench.kit.client import Client


def concrete(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A `legal` entry as it is sent (the discard template gets random cards)."""
    if action["type"] != "discard":
        return dict(action)
    count = rng.randint(int(action["min"]), int(action["max"]))
    return {"type": "discard", "cards": rng.sample(list(action["from"]), count)}


class Player:
    """A test client that plays a seat by picking at random from `view.legal`.

    After sending an action it waits for a state whose `legal` differs (or an error),
    so it never answers twice to the same turn; an error frame fails the game unless
    `errors_ok`. While the table is paused (the store is unreachable) it tries again
    on `resumed`, or every `PAUSED_RETRY` seconds after a `store_unavailable` error,
    as a patient person would, instead of hammering the server.
    """

    PAUSED_RETRY = 0.5

    def __init__(
        self,
        client: Client,
        rng: random.Random,
        errors_ok: bool = False,
        before_act: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
    ) -> None:
        self.client = client
        self.rng = rng
        self.errors: list[dict[str, Any]] = []
        self.errors_ok = errors_ok
        self.actions = 0
        self.before_act = before_act
        """Called with the view before each action (the game waits for this seat then)."""

    def choose(self, legal: list[dict[str, Any]]) -> dict[str, Any]:
        """Any legal action, but in the bidding only a pass or the lowest bid.

        Random high bids would set the bidder's side back hand after hand, and a game
        to a target might then never end; a low bid now and then still makes the test
        player the bidder (naming trump, discarding last, calling a partner).
        """
        bids = [a for a in legal if a["type"] == "bid"]
        if bids:
            if {"type": "pass"} in legal and self.rng.random() > 0.35:
                return {"type": "pass"}
            return min(bids, key=lambda a: int(a["amount"]))
        return concrete(self.rng.choice(legal), self.rng)

    async def play_until(
        self, done: Callable[[dict[str, Any]], bool], timeout: float = 60
    ) -> dict[str, Any]:
        """Play until `done(view)`; the state frame where it holds."""
        client = self.client
        deadline = asyncio.get_running_loop().time() + timeout
        assert client.state is not None
        current = client.state
        acted_on: list[dict[str, Any]] | None = None
        loop = asyncio.get_running_loop()
        retry_at: float | None = None
        while True:
            view = current["view"]
            if done(view):
                return current
            legal = view["legal"]
            if legal and legal != acted_on and view["phase"] not in ("lobby", "game_over"):
                if self.before_act is not None:
                    await self.before_act(view)
                await client.send(self.choose(legal))
                self.actions += 1
                acted_on = legal
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"game did not finish in time; last view {view}")
            try:
                wait = left if retry_at is None else max(0.0, min(left, retry_at - loop.time()))
                frame = await client.recv(wait)
            except TimeoutError:
                if retry_at is None:
                    raise
                retry_at = acted_on = None  # paused: try again now
                continue
            if frame["type"] == "resumed":
                if retry_at is not None:  # refused while paused: try again now
                    retry_at = acted_on = None
            elif frame["type"] == "error" and frame["code"] == "store_unavailable":
                self.errors.append(frame)
                if not self.errors_ok:
                    raise AssertionError(f"unexpected error {frame}")
                retry_at = loop.time() + self.PAUSED_RETRY
            elif frame["type"] == "error":
                self.errors.append(frame)
                if not self.errors_ok:
                    raise AssertionError(f"unexpected error {frame}")
                acted_on = None
            elif frame["type"] == "state":
                if frame["seq"] <= current["seq"]:
                    continue  # queued before `current` (which the reader already saw)
                current = frame
                if current["view"]["legal"] != acted_on:
                    # A new turn; a refusal of the old one no longer needs a retry.
                    retry_at = acted_on = None
