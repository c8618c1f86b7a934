"""One player cannot spoil the server for everyone (issue 42), over the wire.

- The worker pool: bot moves go before hints, a hint that cannot be queued is refused
  at once (`rate_limited`), hints are a seat's (one computation however many of its
  sockets ask) and limited per seat and per room; meanwhile other rooms' hints and bot
  moves are served. The figures (a flood from 150 sockets, before and during) are
  measured by `python -m bench.abuse` (docs/security.md); here only refusals and
  service are asserted, never a time.
- Sockets per seat: a seat keeps `SCHMIER_SOCKETS_PER_SEAT`, a newer one closes the
  oldest with 4409; the seat's frames share one budget; a repeated `entropy` (a change
  equal to the record) is neither committed nor broadcast.
- Idle seats: a connected player who leaves an untimed turn alone for
  `SCHMIER_IDLE_TURN_SECONDS` has it played by the default bot, the countdown shown.

Every test that needs a store runs on the memory store and on the real Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from concurrent.futures import Future
from typing import Any

import pytest

from schmier.rooms.pool import Busy, Pool, Priority
from tests.support.servers import (
    Client,
    ClosedError,
    ServerFactory,
    concrete,
    seat_table,
)


@pytest.fixture(params=["memory", "redis"])
def stored(request: pytest.FixtureRequest) -> dict[str, Any]:
    if request.param == "memory":
        return {}
    return {
        "redis_url": request.getfixturevalue("redis_url"),
        "redis_prefix": request.getfixturevalue("redis_prefix"),
    }


# ------------------------------------------------------------------ the pool itself


def test_moves_go_before_hints_and_an_overflow_is_refused() -> None:
    """One worker, held by a gate: the jobs waiting behind it start most urgent first
    (moves, then hints, then analyses, each in order of arrival); past `queue_limit`
    waiting jobs below a move are refused at once, moves never; a cancelled job never
    runs."""
    pool = Pool(0, queue_limit=3)
    gate = threading.Event()
    order: list[str] = []

    def job(name: str) -> dict[str, Any]:
        if name == "gate":
            assert gate.wait(30)
        order.append(name)
        return {"name": name}

    held = pool.call(job, ("gate",), Priority.MOVE)
    hints = [pool.call(job, (f"hint{k}",), Priority.HINT) for k in range(2)]
    withdrawn = pool.call(job, ("withdrawn",), Priority.HINT)
    with pytest.raises(Busy):
        pool.call(job, ("overflow",), Priority.HINT)
    assert withdrawn.cancel()
    analysis = pool.call(job, ("analysis",), Priority.ANALYSIS)  # the cancelled one's place
    with pytest.raises(Busy):
        pool.call(job, ("overflow",), Priority.ANALYSIS)
    moves = [pool.call(job, (f"move{k}",), Priority.MOVE) for k in range(5)]  # never refused
    gate.set()
    for future in [held, *hints, analysis, *moves]:
        future.result(timeout=30)
    assert order == ["gate", *(f"move{k}" for k in range(5)), "hint0", "hint1", "analysis"]
    assert pool.refused == 2 and pool.waiting() == 0
    asyncio.run(pool.close())


# ------------------------------------------------------------------ hints over the wire


async def hint_or_error(client: Client) -> dict[str, Any]:
    """Ask for a hint; the `hint` or `error` frame answering it (states skipped)."""
    await client.send({"type": "hint"})
    while (frame := await client.recv())["type"] not in ("hint", "error"):
        pass
    return frame


async def after(client: Client, seq: int) -> dict[str, Any]:
    """The first state past `seq` that `client` sees."""
    while client.state is None or client.state["seq"] <= seq:
        await client.next_state()
    return client.state


async def seat_on_turn(clients: dict[int, Client]) -> int:
    view = (await next(iter(clients.values())).wait_state(lambda v: bool(v["turn"])))["view"]
    return int(view["turn"][0])


async def test_a_hint_flood_is_one_seats_and_other_rooms_are_served(
    server_factory: ServerFactory, stored: dict[str, Any]
) -> None:
    """Ten sockets of the seat on turn ask for hints again and again: the seat keeps
    four (the six oldest are closed 4409), all four get the one answer of the seat (the
    same action each time, never refused: nothing is computed again), while a victim
    room's bots play and its player's hint is answered. Then fresh questions, state
    after state, run into the seat's and the room's budgets: `rate_limited`."""
    server = server_factory(hint_burst=2, hint_rate=0.01, room_hint_rate=0.01, **stored)
    _, victims, _, _ = await seat_table(server, "wisconsin4", [0])
    code, clients, _, tokens = await seat_table(server, "wisconsin4", [0, 1, 2, 3])
    seat = await seat_on_turn(clients)
    flood = [await Client.seated(server, code, tokens[seat]) for _ in range(10)]
    closes = await asyncio.gather(clients[seat].closed(), *(s.closed() for s in flood[:6]))
    assert closes == [4409] * 7  # the seat's first socket and the six oldest of the ten
    flood = flood[6:]
    answers = [f for _ in range(3) for f in await asyncio.gather(*map(hint_or_error, flood))]
    assert {f["type"] for f in answers} == {"hint"}
    assert len({str(f["action"]) for f in answers}) == 1  # one answer: the seat's

    # Meanwhile the victim room plays: its bots move, its player's hint is answered.
    ann = victims[0]
    turns = 0
    while turns < 2:  # the seat's budget: two hints
        state = await ann.wait_state(lambda v: v["turn"] == [0] or v["phase"] == "hand_over")
        if state["view"]["phase"] == "hand_over":
            break
        assert (await hint_or_error(ann))["type"] == "hint"
        legal = state["view"]["legal"]
        await ann.send({"type": "pass"} if {"type": "pass"} in legal else legal[0])
        # Her move was taken (the turn may stay hers: a dealer stuck with the bid leads).
        await after(ann, state["seq"])
        turns += 1

    # Fresh questions in fresh states: the budgets run out (2 per seat, 4 per room).
    refusals = []
    player = flood[-1]
    rng = random.Random(42)
    for _ in range(8):
        state = await player.wait_state(lambda v: bool(v["turn"]) and v["phase"] != "hand_over")
        asker_seat = state["view"]["turn"][0]
        asker = player if asker_seat == seat else clients[asker_seat]
        mine = asker.state if asker.state is not None else state
        answer = await hint_or_error(asker)
        if answer["type"] == "error":
            assert answer["code"] == "rate_limited", answer
            refusals.append(answer["message"])
        await asker.send(concrete(mine["view"]["legal"][0], rng))
        await after(player, state["seq"])
    assert refusals and all("too many hints" in m for m in refusals)
    for client in [*flood, *clients.values(), *victims.values()]:
        await client.close()


async def test_a_full_queue_refuses_hints_at_once_and_bot_moves_still_come_first(
    server_factory: ServerFactory,
) -> None:
    """The worker is held (a job of the pool's own, as a long search would): a hint
    is refused `rate_limited` at once (the queue holds none here) instead of waiting,
    while the bot move another room is waiting for is queued, and played as soon as the
    worker is free."""
    server = server_factory(think_queue=0)
    pool = server.app.state.rooms.pool  # type: ignore[union-attr]
    gate = threading.Event()
    held: Future[Any] = pool.call(lambda: gate.wait(60) and {}, (), Priority.MOVE)
    try:
        _, clients, _, _ = await seat_table(server, "wisconsin4", [0, 1, 2, 3])
        seat = await seat_on_turn(clients)
        refused = await hint_or_error(clients[seat])
        assert refused["code"] == "rate_limited" and "busy" in refused["message"]
        _, victims, _, _ = await seat_table(server, "wisconsin4", [0])
        ann = victims[0]
        state = await ann.wait_state(lambda v: bool(v["turn"]))
        if state["view"]["turn"] == [0]:
            await ann.send({"type": "pass"})
        waiting = await ann.wait_state(lambda v: v["turn"] != [0])
        bids = len(waiting["view"]["bids"])
    finally:
        gate.set()
    held.result(timeout=30)
    moved = await ann.wait_state(lambda v: len(v["bids"]) > bids or v["phase"] != "bidding")
    assert moved["seq"] > waiting["seq"]
    for client in [*clients.values(), *victims.values()]:
        await client.close()


# ------------------------------------------------------------------ sockets per seat


async def test_ten_sockets_on_one_token_keep_four_and_one_frame_budget(
    server_factory: ServerFactory, stored: dict[str, Any]
) -> None:
    """Ten sockets with one token: the six oldest are closed 4409, the four newest
    are served and count as one seat (one `connected` seat; its frames share one budget
    of `SCHMIER_FRAME_BURST`, so four sockets send no more than one may); an `entropy`
    commit repeated changes nothing (no new `seq`, no broadcast), a new one does."""
    server = server_factory(frame_burst=12, frame_rate=0.01, **stored)
    code = await server.create_room("wisconsin4")
    _, token = await server.join(code, "Ann", 0)
    _, other = await server.join(code, "Bea", 1)
    bea = await Client.seated(server, code, other)
    sockets = []
    for _ in range(10):
        sockets.append(await Client.seated(server, code, token))
    assert [await s.closed() for s in sockets[:6]] == [4409] * 6
    kept = sockets[6:]
    watcher = await Client.seated(server, code, None)
    assert watcher.state is not None
    assert watcher.state["view"]["seats"][0]["connected"] is True

    commit = "ab" * 32
    await kept[0].send({"type": "entropy", "commit": commit})
    seq = (await watcher.next_state())["seq"]  # the first commit is a change
    # Each socket sends the same commit four times more (within its own budget of
    # twelve, its hello spent): sixteen frames of one seat, whose budget of twelve (one
    # spent) lets eleven through, which change nothing, and refuses five.
    errors: list[str] = []

    async def refused(count: int) -> None:
        """Read the kept sockets until `count` more refusals came, and nothing else."""

        async def read(client: Client, goal: int) -> None:
            while len(errors) < goal:
                frame = await client.recv()
                if frame["type"] == "state" and frame["seq"] == seq:
                    continue  # the first commit's
                assert frame["type"] == "error", frame  # nothing changed: no broadcast
                errors.append(frame["code"])

        goal = len(errors) + count
        reading = [asyncio.create_task(read(c, goal)) for c in kept]
        done, _ = await asyncio.wait(reading, return_when=asyncio.FIRST_COMPLETED, timeout=20)
        for task in reading:
            task.cancel()
        for task in done:
            task.result()  # a frame other than a refusal fails here

    other_room = await server.create_room("schmier6")
    _, cid = await server.join(other_room, "Cy", 0)
    cy = await Client.seated(server, other_room, cid)
    for client in kept:
        for _ in range(4):
            await client.send({"type": "entropy", "commit": commit})
    await cy.send({"type": "add_bot", "seat": 1})  # another room is served meanwhile
    await cy.wait_state(lambda v: v["seats"][1]["kind"] == "bot")
    await refused(5)
    for client in kept:
        await client.send({"type": "chat", "text": "hi"})  # the seat is out, any socket
    await refused(4)
    assert errors == ["rate_limited"] * 9
    # Another seat's chat line after all that: the watcher saw no state before it.
    await bea.send({"type": "chat", "text": "marker"})
    while (frame := await watcher.recv())["type"] != "chat":
        raise AssertionError(f"the watcher got {frame}")
    assert watcher.state["seq"] == seq  # the repeats committed nothing
    for client in [*kept, watcher, bea, cy]:
        await client.close()


# ------------------------------------------------------------------ idle seats


async def test_an_idle_connected_player_has_the_turn_played_by_the_bot(
    server_factory: ServerFactory, stored: dict[str, Any]
) -> None:
    """No turn timer, `SCHMIER_IDLE_TURN_SECONDS=2`: Ann is connected and never acts.
    Her turn's views show the countdown (`idle_ends_in`, to everybody), the default bot
    plays each of her turns once it runs out, and she keeps her seat, connected."""
    server = server_factory(idle_turn_seconds=2, **stored)
    code, clients, watchers, _ = await seat_table(server, "wisconsin4", [0], spectators=1)
    ann, watcher = clients[0], watchers[0]
    played = 0
    while played < 1:
        state = await watcher.wait_state(lambda v: v["turn"] == [0] or v["phase"] == "hand_over")
        view = state["view"]
        if view["phase"] == "hand_over":
            break
        assert view["turn_ends_in"] is None  # no timer in this room
        left = view["idle_ends_in"]
        assert isinstance(left, float) and 0 < left <= 2
        played_for = await watcher.wait_state(lambda v: v["turn"] != [0], timeout=15)
        assert played_for["view"]["seats"][0]["kind"] == "human"  # played for, not replaced
        assert played_for["view"]["seats"][0]["connected"] is True
        assert ann.state is not None and ann.state["view"]["you"] == 0
        played += 1
    assert played >= 1
    # A bot's turn carries no countdown.
    bots = await watcher.wait_state(lambda v: bool(v["turn"]) and v["turn"] != [0])
    assert bots["view"]["idle_ends_in"] is None
    for client in (ann, watcher):
        with contextlib.suppress(ClosedError):
            await client.close()
    assert code and ann.frames[-1]["type"] != "error"
