"""The bots' budget under load (`schmier/rooms/budget.py`): when moves queue for the
workers, each decision gets a smaller search budget, down to the `normal` policy, and
full strength again once the queue is gone; the metrics and the log say so. Hints give
way to the bots. No test here measures a time: the queue is made by holding the worker
with a job of the test's own until the moves behind it have waited past the slack."""

from __future__ import annotations

import asyncio
import logging
import random
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

from schmier import engine
from schmier.engine import bots
from schmier.logs import LOGGER
from schmier.rooms import budget
from schmier.rooms.clock import BOT_DELAY_SPREAD, spread
from schmier.rooms.pool import Pool, Priority
from tests.support import loopback
from tests.support.engine_helpers import concrete
from tests.support.servers import Client, RunningServer, ServerFactory, eventually, seat_table
from tests.test_bots_room import gate_job

SLACK = 3.0
"""The test server's `bot_slack`: generous, so that an idle worker gives full strength
even on a slow machine, and a move held past it cannot be given any search."""


class Events(logging.Handler):
    """The names of the server's log events, as they are logged."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.names: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.names.append(record.getMessage())


@pytest.fixture
def events() -> Any:
    """The events logged from now on (a server started in the test first: its start
    sets the logger's handlers)."""
    handler = Events()
    LOGGER.addHandler(handler)
    yield handler
    LOGGER.removeHandler(handler)


async def metrics(server: RunningServer) -> dict[str, float]:
    """Every sample of the server's `/metrics` by its name with labels."""
    async with loopback.async_client(base_url=server.base_url) as http:
        text = (await http.get("/metrics")).text
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def decided(samples: dict[str, float], step: str) -> float:
    return samples.get(f'schmier_bot_decisions_total{{budget="{step}"}}', 0.0)


async def play_own_turns(client: Client, rng: random.Random, seconds: float) -> None:
    """Play the client's turns (a concrete legal action) for about `seconds`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        try:
            frame = await client.recv(timeout=0.2)
        except TimeoutError:
            continue
        if frame["type"] != "state":
            continue
        view = frame["view"]
        if view["you"] in view["turn"] and view["legal"]:
            await client.send(concrete(rng.choice(view["legal"]), rng))


async def test_queued_moves_get_smaller_budgets_and_full_strength_comes_back(
    server_factory: ServerFactory, request: pytest.FixtureRequest
) -> None:
    """Three tables of one person and three `strong` bots, the one worker held: the
    bots' moves queue. Held past the slack, they are decided by the `normal` policy
    (the budget shrank to its floor), the bots count as degraded and the log says so
    once; played on with the worker free, the moves get the full budget again and the
    log says once that full strength is back."""
    server = server_factory(bot_workers=1, default_bot="strong", bot_slack=SLACK, log_level="INFO")
    events: Events = request.getfixturevalue("events")
    pool = server.app.state.rooms.pool
    before = await metrics(server)
    assert before["schmier_bot_budget_ratio"] == 1.0
    assert before["schmier_bot_degraded"] == 0.0
    assert decided(before, "normal") == 0.0
    with tempfile.TemporaryDirectory() as folder:
        gate = Path(folder) / "open"
        held = pool.call(subprocess.run, (gate_job(gate),), Priority.MOVE)
        tables = [
            await seat_table(server, "wisconsin4", [0], rules={"target": 99}) for _ in range(3)
        ]
        people = [clients[0] for _, clients, _, _ in tables]
        rng = random.Random(7)

        async def queued() -> bool:
            # The person plays whenever it is their turn, until every table waits for a bot.
            for person in people:
                with_turn = person.state["view"] if person.state else None
                if with_turn and with_turn["you"] in with_turn["turn"] and with_turn["legal"]:
                    legal = with_turn["legal"]
                    await person.send(concrete(rng.choice(legal), rng))
                    await person.recv(timeout=10)
            return pool.waiting_by_kind()[0] >= 3

        await eventually(queued, timeout=60)
        waiting = await metrics(server)
        assert waiting['schmier_bot_queue_depth{kind="move"}'] >= 3
        # Held past the whole slack: no search can bring these moves in on time.
        await asyncio.sleep(SLACK)
        gate.touch()
        assert held.result(timeout=30).returncode == 0

        async def floored() -> bool:
            return decided(await metrics(server), "normal") >= 3

        await eventually(floored, timeout=60)
        degraded = await metrics(server)
        assert degraded["schmier_bot_degraded"] == 1.0
        assert degraded["schmier_bot_degradations_total"] == 1.0
        assert degraded["schmier_bot_degraded_seconds_total"] > 0
        assert events.names.count("bots.degraded") == 1
        assert "bots.full_strength" not in events.names

        # One table plays on, the worker free: its moves get the whole budget again.
        for person in people[1:]:
            await person.close()
        for _ in range(60):
            if (await metrics(server))["schmier_bot_degraded"] == 0.0:
                break
            await play_own_turns(people[0], rng, 2.0)
        recovered = await metrics(server)
        assert decided(recovered, "full") >= budget.RECOVERED_AFTER
        assert recovered["schmier_bot_budget_ratio"] == 1.0
        assert recovered["schmier_bot_degradations_total"] == 1.0
        assert events.names.count("bots.degraded") == 1
        assert events.names.count("bots.full_strength") == 1
        assert recovered["schmier_bot_busy_seconds_total"] > 0
        await people[0].close()


# ------------------------------------------------------------------ the choice itself


def queue(late: float, behind: int = 0, oldest: float = 0.0) -> budget.Queue:
    """The queue of a decision `late` seconds past its due time, `behind` moves behind
    it of which the soonest due is `oldest` seconds past its own."""
    return budget.Queue(late=late, behind=behind, late_behind=oldest, workers=1)


def test_the_budget_shrinks_with_the_wait_and_the_moves_behind() -> None:
    """With a full decision known to cost a tenth of the slack: full strength when
    nothing waits; a smaller step the longer this move waited or the more moves wait
    behind it; the floor past the slack. Costs are learnt from the decisions made."""
    budgets = budget.Budgets(slack=1.0)
    budgets.done(budget.FULL, 0.1)
    budgets.done(budget.FLOOR, 0.001)
    assert budgets.choose(True, queue(0.0)) is budget.FULL
    assert budgets.choose(True, queue(0.53)).name == "half"
    assert budgets.choose(True, queue(0.0, behind=5, oldest=0.1)).name == "half"
    assert budgets.choose(True, queue(0.0, behind=30, oldest=0.1)).name == "eighth"
    assert budgets.choose(True, queue(1.0)) is budget.FLOOR
    assert budgets.decisions == {"full": 1, "half": 2, "quarter": 0, "eighth": 1, "normal": 1}
    # Searches timed slower (half budgets of half a second: a full one costs a second
    # now, though none was timed lately): smaller budgets are given out.
    for _ in range(100):
        budgets.done(budget.STEPS[1], 0.5)
    assert budgets.choose(True, queue(0.0)).name == "half"
    assert budgets.choose(True, queue(0.0, behind=5, oldest=0.1)) is budget.FLOOR


def _wait_for(gate: threading.Event) -> dict[str, Any]:
    """A job that holds its worker until `gate` is set (at most a minute)."""
    gate.wait(60)
    return {}


def _a_choice() -> dict[str, Any]:
    """A `wisconsin4` view with more than one legal action (a search decides it)."""
    state = engine.new_game("wisconsin4", engine.default_rules("wisconsin4"), 0)
    deck = engine.full_deck("wisconsin4")
    random.Random(5).shuffle(deck)
    state = engine.deal(state, deck)
    view = engine.view(state, engine.turn(state)[0])
    assert len(view["legal"]) > 1
    return view


async def test_moves_asked_ahead_are_taken_soonest_due_first_and_keep_full_strength() -> None:
    """A bot's move asked as its turn begins is due when its delay is over: while the
    worker is held, a move due now goes first and, held past the slack, gets the floor;
    the move asked first but due later still gets the full budget after it."""
    pool = Pool(0, slack=0.5)
    pool.budgets.done(budget.FULL, 0.05)
    pool.budgets.done(budget.FLOOR, 0.001)
    gate = threading.Event()
    try:
        held = pool.call(_wait_for, (gate,), Priority.MOVE)
        view = _a_choice()
        order: list[str] = []
        ahead = pool.submit("strong", view, 1, Priority.MOVE, lead=60.0)
        ahead.add_done_callback(lambda _f: order.append("ahead"))
        due = pool.submit("strong", view, 2, Priority.MOVE)
        due.add_done_callback(lambda _f: order.append("due"))
        await asyncio.sleep(0.5)  # past the aimed share of the slack (0.3 s)
        gate.set()
        for future in (held, ahead, due):
            await asyncio.wrap_future(future)
        assert order == ["due", "ahead"]
        assert pool.budgets.decisions == {
            "full": 1,
            "half": 0,
            "quarter": 0,
            "eighth": 0,
            "normal": 1,
        }
    finally:
        gate.set()
        await pool.close()


def test_degradation_starts_once_and_ends_after_full_moves_in_a_row(events: Events) -> None:
    budgets = budget.Budgets(slack=1.0)
    budgets.done(budget.FULL, 0.1)
    assert not budgets.degraded
    for _ in range(3):
        budgets.choose(True, queue(2.0))
    assert budgets.degraded and budgets.degradations == 1
    for _ in range(budget.RECOVERED_AFTER - 1):
        budgets.choose(True, queue(0.0))
    assert budgets.degraded
    budgets.choose(True, queue(2.0))  # a relapse starts the count again
    for _ in range(budget.RECOVERED_AFTER):
        budgets.choose(True, queue(0.0))
    assert not budgets.degraded and budgets.degradations == 1
    assert events.names.count("bots.degraded") == 1
    assert events.names.count("bots.full_strength") == 1


def test_hints_get_no_more_than_the_bots_while_they_are_held_back() -> None:
    budgets = budget.Budgets(slack=1.0)
    budgets.done(budget.FULL, 0.1)
    assert budgets.choose(False, queue(0.0)) is budget.FULL
    budgets.choose(True, queue(0.53))  # a move at half strength
    assert budgets.choose(False, queue(0.0)).name == "half"
    assert budgets.decisions["half"] == 1  # hints are not counted as the bots' moves


def test_a_smaller_budget_still_answers_legally_and_the_floor_is_the_normal_bot() -> None:
    """Every step answers a legal action; the floor answers as `normal` does, and the
    full step as `strong` does (the same view and seed give the same answer)."""
    rng = random.Random(3)
    state = engine.new_game("schmier6", engine.default_rules("schmier6"), 0)
    views = 0
    while views < 12:
        if engine.needs_deal(state):
            deck = engine.full_deck("schmier6")
            rng.shuffle(deck)
            state = engine.deal(state, deck)
            continue
        seat = engine.turn(state)[0]
        view = engine.view(state, seat)
        legal = view["legal"]
        if len(legal) > 1:
            views += 1
            for step in budget.STEPS:
                answer = budget.decide("strong", view, random.Random(9), step.ratio)
                assert any(answer.items() <= entry.items() for entry in legal) or (
                    answer["type"] == "discard"
                )
            assert budget.decide("strong", view, random.Random(9), 0.0) == bots.choose(
                "heuristic", view, random.Random(9)
            )
            assert budget.decide("strong", view, random.Random(9), 1.0) == bots.choose(
                "strong", view, random.Random(9)
            )
        action = concrete(rng.choice(legal), rng)
        state = engine.apply(state, seat, action)


def test_a_bots_delay_varies_by_turn_within_its_spread() -> None:
    """Tables started together do not keep their bots in step: the bot delay's factor
    differs from turn to turn, stays within its spread and never lengthens the delay,
    and is the same each time one turn's due time is asked for."""
    factors = [spread(seat, 1000.0 + k * 0.8) for seat in range(6) for k in range(50)]
    assert all(1 - BOT_DELAY_SPREAD <= f <= 1 for f in factors)
    assert len({round(f, 6) for f in factors}) > 250
    assert min(factors) < 0.85 and max(factors) > 0.95
    assert spread(3, 1234.5) == spread(3, 1234.5)


def test_decisions_that_vary_are_given_less_than_steady_ones_of_the_same_mean() -> None:
    """A move that waits behind a slow decision is late too: the expected cost counts
    the decisions' spread, so searches of 20 and 180 ms (a mean of 100) leave less room
    for a full budget than searches of 100 ms each."""
    steady, varying = budget.Budgets(slack=1.0), budget.Budgets(slack=1.0)
    for k in range(60):
        steady.done(budget.FULL, 0.1)
        varying.done(budget.FULL, 0.02 if k % 2 else 0.18)
    assert steady.choose(True, queue(0.4)) is budget.FULL
    assert varying.choose(True, queue(0.4)).name == "half"
