"""Analyses of finished hands: computed once, on demand, in the worker pool, kept with
the room in the store (docs/protocol.md, "Analysis of a finished hand").

Asking for hand `n`'s analysis (`Analyses.ask`) answers what the store holds: the
analysis when it is done; its progress while some instance computes it (the store's
entry is then a progress marker, renewed at each decision, with the decisions weighed
so far). Otherwise this instance starts it, within two bounds: at most
`SCHMIER_ANALYSIS_MAX` analyses at once on this server, and each room a burst of
`SCHMIER_ANALYSIS_ROOM_BURST` starts, then `SCHMIER_ANALYSIS_ROOM_RATE` per minute;
past either the asker is refused (`Refused`, a 429 with `Retry-After`). Asking about
an analysis being computed or done costs nothing.

An analysis is a task on the event loop that only waits: each decision is one job in
the server's worker pool (`coach.analysis.weigh_decision`) at priority `ANALYSIS`,
below every bot's move and every hint, one job at a time per analysis, so that the
tables never wait behind a review. A marker nobody has renewed for `STALE_MS` (the
instance computing it died, or the server restarted) is taken over where it stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from schmier.coach import marks
from schmier.coach.analysis import assemble, weigh_decision
from schmier.coach.decisions import choices
from schmier.coach.options import budget_for
from schmier.config import Settings
from schmier.limits import TokenBucket
from schmier.logs import event, failure
from schmier.rooms.pool import Busy, Pool, Priority
from schmier.store import RoomStore

#: A progress marker not renewed for this long is taken to be abandoned.
STALE_MS = 90_000
#: The Retry-After of a 202 (seconds): how often a client polls.
POLL_SECONDS = 1
#: The Retry-After of a refusal because the server has `analysis_max` in flight.
BUSY_SECONDS = 10
#: How long an analysis waits before asking the pool again when its queue is full.
QUEUE_FULL_WAIT = 0.5


class Refused(Exception):
    """An analysis that may not start now: why, and in how many seconds to ask again."""

    def __init__(self, why: str, retry_after: int) -> None:
        super().__init__(why)
        self.why = why
        self.retry_after = max(1, retry_after)


@dataclass
class _Running:
    """An analysis this instance computes."""

    record: Mapping[str, Any]
    todo: list[int]
    decisions: list[dict[str, Any]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None

    def progress(self) -> dict[str, Any]:
        return {
            "status": "pending",
            "done": len(self.decisions),
            "total": len(self.todo),
            "decisions": self.decisions,
        }


def _key(code: str, record: Mapping[str, Any]) -> tuple[str, int, str]:
    """An analysis by room, hand and deck (a room made anew under the code is another)."""
    return code, int(record["n"]), ",".join(record["deal"]["deck"])


def _now_ms() -> int:
    return int(time.time() * 1000)


class Analyses:
    """This server's analyses: those it computes, and the bounds on starting one."""

    def __init__(self, store: RoomStore, pool: Pool, settings: Settings) -> None:
        self._store = store
        self._pool = pool
        self._max = settings.analysis_max
        self._burst = settings.analysis_room_burst
        self._rate = settings.analysis_room_rate / 60.0
        self._budget = budget_for(settings.analysis_effort)
        self._rooms: dict[str, TokenBucket] = {}
        self._running: dict[tuple[str, int, str], _Running] = {}
        self.started = 0
        """Analyses started by this server (its tests and metrics read it)."""

    @property
    def in_flight(self) -> int:
        return len(self._running)

    async def ask(
        self, code: str, record: Mapping[str, Any], start: bool = True
    ) -> tuple[int, dict[str, Any]]:
        """`(200, analysis)` when done, `(202, progress)` while computed (started now if
        nobody computes it). Raises `Refused` past a bound, `StoreError` from the store.

        `start` False only looks (a page showing a hand's summary asks whether anybody
        had it weighed, without costing the server an analysis): `(204, {})` when nobody
        computes it (never asked, or its marker abandoned)."""
        key = _key(code, record)
        running = self._running.get(key)
        if running is not None:
            return 202, running.progress()
        kept = await self._store.analysis_get(code, int(record["n"]))
        found = None if kept is None else orjson.loads(kept)
        if found is not None and found.get("status") == "done":
            return 200, dict(found["analysis"])
        running = self._running.get(key)
        if running is not None:  # started by another request while the store answered
            return 202, running.progress()
        resumed: list[dict[str, Any]] = []
        if found is not None:
            if _now_ms() - int(found.get("at", 0)) < STALE_MS:
                found.pop("at", None)
                return 202, found  # another instance computes it
            resumed = list(found.get("decisions") or ())
        if not start:
            return 204, {}
        self._admit(code, charge=found is None)
        todo = choices(record)
        running = _Running(record, todo, [d for d in resumed if d.get("i") in set(todo)])
        self._running[key] = running
        self.started += 1
        await self._mark(code, running)
        running.task = asyncio.create_task(self._run(key, code, running))
        return 202, running.progress()

    def _admit(self, code: str, charge: bool) -> None:
        """Refuse a start past the server's bound, or (`charge`: a new analysis, not one
        taken over) past the room's quota."""
        if len(self._running) >= self._max:
            raise Refused("the server is analysing as many hands as it may", BUSY_SECONDS)
        if not charge:
            return
        bucket = self._rooms.get(code)
        if bucket is None:
            if len(self._rooms) > 10_000:
                self._rooms = {c: b for c, b in self._rooms.items() if not b.full()}
            bucket = self._rooms[code] = TokenBucket(self._burst, self._rate)
        if not bucket.take():
            raise Refused("this room has asked for many analyses", math.ceil(bucket.wait()))

    async def _mark(self, code: str, running: _Running) -> bool:
        """Renew the progress marker in the store; False when the room is gone."""
        marker = dict(running.progress(), at=_now_ms())
        return await self._store.analysis_put(code, int(running.record["n"]), orjson.dumps(marker))

    async def _run(self, key: tuple[str, int, str], code: str, running: _Running) -> None:
        n = int(running.record["n"])
        try:
            weighed = {int(d["i"]) for d in running.decisions}
            for i in running.todo:
                if i in weighed:
                    continue
                running.decisions.append(await self._weigh(running.record, i))
                if not await self._mark(code, running):
                    return  # the room is gone
            analysis = assemble(running.record, running.decisions)
            done = orjson.dumps({"status": "done", "analysis": analysis})
            await self._store.analysis_put(code, n, done)
            event("analysis.done", room=code, hand=n, decisions=len(running.decisions))
        except asyncio.CancelledError:
            raise
        except Exception:
            failure("analysis.failed", room=code, hand=n)
        finally:
            self._running.pop(key, None)

    async def _weigh(self, record: Mapping[str, Any], i: int) -> dict[str, Any]:
        """One decision, in a worker, below the bots' moves and the hints."""
        while True:
            try:
                job = (dict(record), i, self._budget)
                future = self._pool.call(weigh_decision, job, Priority.ANALYSIS)
                break
            except Busy:
                await asyncio.sleep(QUEUE_FULL_WAIT)
        return await asyncio.wrap_future(future)

    async def close(self) -> None:
        """Stop every analysis (the server stops); their markers let another take over."""
        tasks = [r.task for r in self._running.values() if r.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def game_accuracy(store: RoomStore, code: str, history: dict[str, Any]) -> None:
    """Add to each game of the room's history (`rooms.history.room_history`) its seats'
    accuracy over the hands analysed so far (done analyses only; nothing is started)."""
    for game in history["games"]:
        per_seat: dict[int, list[float]] = {}
        hands = 0
        for hand in game["hands"]:
            kept = await store.analysis_get(code, int(hand["n"]))
            found = None if kept is None else orjson.loads(kept)
            if found is None or found.get("status") != "done":
                continue
            hands += 1
            for player in found["analysis"]["players"]:
                per_seat.setdefault(int(player["seat"]), [])
            for d in found["analysis"]["decisions"]:
                per_seat.setdefault(int(d["seat"]), []).append(float(d["loss"]))
        names = {int(s["seat"]): str(s["name"]) for s in game["seats"]}
        game["accuracy"] = [
            {
                "seat": seat,
                "name": names.get(seat, f"Seat {seat + 1}"),
                "accuracy": marks.mean_accuracy(losses),
                "loss": round(sum(losses), 3),
                "decisions": len(losses),
                "hands": hands,
            }
            for seat, losses in sorted(per_seat.items())
        ]
