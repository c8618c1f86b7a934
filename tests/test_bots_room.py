"""Bots by name at the table, over a real socket: the levels a room can seat, `add_bot`
with a level, the level on a bot's seat, hints, and the worker pool the bots decide in
(a room whose bot is thinking answers its humans; a worker that dies costs one fallback
move and the pool is rebuilt). Every test runs with the memory store and with Redis."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from schmier import engine
from schmier.engine.bots import levels
from schmier.rooms import autoplay
from schmier.rooms.clock import BOT_DELAY_SPREAD
from schmier.rooms.frames import room_view
from schmier.rooms.record import SNAPSHOT_FORMAT, RoomRecord, bot_seat
from schmier.store import RedisStore
from tests.support import loopback
from tests.support.servers import (
    Client,
    ClosedError,
    RunningServer,
    ServerFactory,
    seat_table,
    start_subprocess_server,
)


@pytest.fixture(params=["memory", "redis"])
def stored(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The settings of the store a test runs on: the memory store, or the real Redis."""
    if request.param == "memory":
        return {}
    return {
        "redis_url": request.getfixturevalue("redis_url"),
        "redis_prefix": request.getfixturevalue("redis_prefix"),
    }


@pytest.fixture
def any_server(server_factory: ServerFactory, stored: dict[str, Any]) -> RunningServer:
    return server_factory(**stored)


def named(view: dict[str, Any]) -> list[str | None]:
    """The `bot` of every seat entry (None: the key is absent)."""
    return [entry.get("bot") for entry in view["seats"]]


async def test_the_bots_are_listed_strongest_first(server_factory: ServerFactory) -> None:
    """The default (the strongest unless the operator picks another) first, then the
    rest strongest first."""
    for default, order in [
        ("strong", ["strong", "normal", "easy", "random"]),
        ("normal", ["normal", "strong", "easy", "random"]),
    ]:
        server = server_factory(default_bot=default)
        async with loopback.async_client(base_url=server.base_url) as http:
            answer = await http.get("/api/bots")
        assert answer.status_code == 200
        assert [b["name"] for b in answer.json()] == order
        assert answer.json()[0] == {
            "name": default,
            "label": levels.BY_NAME[default].label,
            "description": levels.BY_NAME[default].description,
        }
    assert levels.DEFAULT == "strong" == levels.LEVELS[0].name


async def test_the_default_bot_is_strong_and_plays_for_a_seat_added_without_a_level(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(default_bot=levels.DEFAULT)
    _, clients, _, _ = await seat_table(server, "wisconsin4", [0])
    ann = clients[0]
    state = await ann.wait_state(lambda v: v["phase"] != "lobby")
    assert {s.get("bot") for s in state["view"]["seats"] if s["kind"] == "bot"} == {"strong"}
    # And it plays: two of the bots' bids come (searched, off the loop); Ann passes when
    # she is asked (the dealer is random: she may speak first or second).

    def bots_bid(v: dict[str, Any]) -> bool:
        return v["phase"] != "bidding" or sum(1 for b in v["bids"] if b["seat"] != 0) >= 2

    while True:
        state = await ann.wait_state(lambda v: bots_bid(v) or v["turn"] == [0])
        if bots_bid(state["view"]):
            break
        legal = state["view"]["legal"]
        await ann.send({"type": "pass"} if {"type": "pass"} in legal else legal[0])
        await ann.wait_state(lambda v: v["turn"] != [0] or bots_bid(v))
    await ann.close()


async def test_add_bot_seats_the_level_asked_for(any_server: RunningServer) -> None:
    weakest = levels.LEVELS[-1].name
    code = await any_server.create_room("wisconsin4")
    _, token = await any_server.join(code, "Ann", 0)
    ann = await Client.seated(any_server, code, token)
    assert ann.state is not None
    legal = ann.state["view"]["legal"]
    assert [a for a in legal if a["type"] == "add_bot"] == [
        {"type": "add_bot", "seat": k} for k in (1, 2, 3)
    ]

    await ann.send({"type": "add_bot", "seat": 1})
    await ann.send({"type": "add_bot", "seat": 2, "bot": weakest})
    state = await ann.wait_state(lambda v: v["seats"][2]["kind"] == "bot")
    assert named(state["view"]) == [None, levels.default(), weakest, None]
    # Still one add_bot per empty seat, without a level.
    assert [a for a in state["view"]["legal"] if a["type"] == "add_bot"] == [
        {"type": "add_bot", "seat": 3}
    ]
    info = await any_server.room(code)
    assert [s.get("bot") for s in info["seats"]] == [None, levels.default(), weakest, None]
    assert "bot" not in info["seats"][0] and "bot" not in info["seats"][3]

    # An unknown level: bad_message, and nothing changed.
    seq = state["seq"]
    for bad in ("grandmaster", "", 7, ["normal"]):
        await ann.send({"type": "add_bot", "seat": 3, "bot": bad})
        error = await ann.next_error()
        assert error["code"] == "bad_message", error
    await ann.send({"type": "chat", "text": "still here"})
    while (frame := await ann.recv())["type"] != "chat":
        assert frame["type"] != "state", frame
    assert (await any_server.room(code))["seats"][3]["kind"] == "empty"
    assert ann.state is not None and ann.state["seq"] == seq

    # Each bot plays at its own level; a started game shows the levels too.
    await ann.send({"type": "add_bot", "seat": 3, "bot": levels.default()})
    await ann.wait_state(lambda v: {"type": "start"} in v["legal"])
    await ann.send({"type": "start"})
    started = await ann.wait_state(lambda v: v["phase"] != "lobby")
    assert named(started["view"]) == [None, levels.default(), weakest, levels.default()]
    await ann.close()


async def test_a_player_who_leaves_is_played_by_the_default_bot(
    any_server: RunningServer,
) -> None:
    code, clients, _, _ = await seat_table(any_server, "wisconsin4", [0, 1])
    await clients[1].send({"type": "leave"})
    state = await clients[0].wait_state(lambda v: v["seats"][1]["kind"] == "bot")
    assert state["view"]["seats"][1]["bot"] == levels.default()
    assert (await any_server.room(code))["seats"][1]["bot"] == levels.default()
    for client in clients.values():
        await client.close()


async def after(client: Client, seq: int) -> dict[str, Any]:
    """The next state frame of `client` past `seq` (chat and hints skipped)."""
    while True:
        frame = await client.recv()
        assert frame["type"] != "error", frame
        if frame["type"] == "state" and frame["seq"] > seq:
            return frame


def hints_of(client: Client) -> list[dict[str, Any]]:
    return [f for f in client.frames if f["type"] == "hint"]


async def next_hint(client: Client) -> dict[str, Any]:
    """The next hint frame (state frames may come first; an error fails the test)."""
    while True:
        frame = await client.recv()
        assert frame["type"] != "error", frame
        if frame["type"] == "hint":
            return frame


async def test_hints_answer_the_asker_only_with_one_of_its_legal(
    any_server: RunningServer,
) -> None:
    """Four people play a whole hand by the hints they ask for (every phase: bids,
    trump, the discard, cards); each hint is one of the asker's own legal actions at
    the asker's `seq`, and reaches that socket only."""
    code, clients, watchers, tokens = await seat_table(
        any_server, "wisconsin4", [0, 1, 2, 3], spectators=1
    )
    first = await clients[0].wait_state(lambda v: bool(v["turn"]))
    turn = first["view"]["turn"][0]
    twin = await Client.seated(any_server, code, tokens[turn])  # the same seat, elsewhere
    other = clients[(turn + 1) % 4]

    await other.send({"type": "hint"})
    assert (await other.next_error())["code"] == "not_your_turn"
    await watchers[0].send({"type": "hint"})
    assert (await watchers[0].next_error())["code"] == "forbidden"

    phases: set[str] = set()
    asked = 0
    state = first
    while (view := state["view"])["last_hand"] is None:
        # Seat 0's socket follows the game; the seat whose turn it is asks and plays.
        seq = state["seq"]
        seat = view["turn"][0]
        player = clients[seat]
        assert player.state is not None
        mine = player.state if player.state["seq"] == seq else await after(player, seq - 1)
        assert mine["seq"] == seq
        await player.send({"type": "hint"})
        hint = await next_hint(player)
        asked += 1
        action = hint["action"]
        assert hint["seq"] == seq
        assert autoplay.is_legal(action, mine["view"]["legal"]), hint
        named_cards = [action["card"]] if "card" in action else action.get("cards", [])
        assert set(named_cards) <= set(mine["view"]["hand"]), hint
        phases.add(view["phase"])
        await player.send(action)
        state = await after(clients[0], seq)
    assert {"bidding", "trump", "discard", "play"} <= phases, phases

    # Only the askers got hints: one each time, never their twin, nobody else.
    marker = {"type": "chat", "text": "done"}
    await clients[turn].send(marker)
    for client in [*clients.values(), twin, *watchers]:
        while (await client.recv())["type"] != "chat":
            pass
    assert sum(len(hints_of(c)) for c in clients.values()) == asked
    assert hints_of(twin) == [] and hints_of(watchers[0]) == []
    for client in [*clients.values(), twin, *watchers]:
        await client.close()


async def test_hints_can_be_turned_off(any_server: RunningServer) -> None:
    code, clients, _, _ = await seat_table(
        any_server, "wisconsin4", [0, 1, 2, 3], rules={"hints": False}
    )
    assert (await any_server.room(code))["rules"]["hints"] is False
    view = (await clients[0].wait_state(lambda v: bool(v["turn"])))["view"]
    player = clients[view["turn"][0]]
    await player.send({"type": "hint"})
    error = await player.next_error()
    assert error["code"] == "forbidden"
    assert "hint" in error["message"]
    for client in clients.values():
        await client.close()


async def test_hints_count_against_the_frame_budget(server_factory: ServerFactory) -> None:
    """A flood of hints is refused like any flood: `rate_limited`, then a 1008 close."""
    server = server_factory(frame_burst=4, frame_rate=0.01)
    code = await server.create_room("wisconsin4")
    _, token = await server.join(code, "Ann", 0)
    ann = await Client.seated(server, code, token)
    for _ in range(4 + 4 + 1):
        await ann.send({"type": "hint"})
    codes = []
    with contextlib.suppress(ClosedError):
        while True:
            frame = await ann.recv()
            if frame["type"] == "error":
                codes.append(frame["code"])
    # The room's answers (the lobby: nobody's turn) may come before or after the
    # refusals, which the socket's own budget sends at once, or be cut off by the close.
    assert codes.count("rate_limited") == 4
    assert set(codes) <= {"rate_limited", "not_your_turn"}
    assert ann.close_code == 1008


# ------------------------------------------------------------------ the worker pool


def gate_job(gate: Path) -> list[str]:
    """A command that keeps a worker busy until `gate` exists, or its folder is gone.

    The second condition matters: a test that kills the worker leaves this shell an
    orphan, and with the gate never made it used to poll forever (fifty `sleep`s a
    second, found still running long after a CI run, skewing whatever ran next)."""
    folder = gate.parent
    return [
        "sh",
        "-c",
        f'while [ ! -e "{gate}" ] && [ -d "{folder}" ]; do sleep 0.02; done',
    ]


async def bots_turn(client: Client) -> tuple[dict[str, Any], int]:
    """Play the human's turns (a pass, or the first legal bid) until a bot's turn is
    up: (that state, the bot's seat)."""
    state = await client.wait_state(lambda v: bool(v["turn"]))
    while (view := state["view"])["turn"] == [view["you"]]:
        legal = view["legal"]
        await client.send({"type": "pass"} if {"type": "pass"} in legal else legal[0])
        state = await after(client, state["seq"])
    return state, view["turn"][0]


async def test_a_room_answers_its_people_while_its_bot_thinks(
    server_factory: ServerFactory, stored: dict[str, Any]
) -> None:
    """One worker, kept busy: the bot's decision waits behind it, and meanwhile the
    room answers a chat line, a refused hint and a new spectator; once the worker is
    free the bot moves."""
    server = server_factory(bot_workers=1, **stored)
    pool = server.app.state.rooms.pool
    executor = pool.executor
    worker = executor.submit(os.getpid).result(timeout=60)
    assert worker != os.getpid()  # a real process
    with tempfile.TemporaryDirectory() as folder:
        gate = Path(folder) / "open"
        busy = executor.submit(subprocess.run, gate_job(gate))
        code, clients, _, _ = await seat_table(server, "schmier6", [0])
        ann = clients[0]
        thinking, bot = await bots_turn(ann)
        bids = len(thinking["view"]["bids"])

        await ann.send({"type": "chat", "text": "your move, bot"})
        while (frame := await ann.recv())["type"] != "chat":
            assert frame["type"] != "state" or frame["view"]["turn"] == [bot], frame
        await ann.send({"type": "hint"})
        assert (await ann.next_error())["code"] == "not_your_turn"
        watcher = await Client.seated(server, code, None)
        assert watcher.state is not None
        assert watcher.state["view"]["turn"] == [bot]
        assert len(watcher.state["view"]["bids"]) == bids
        assert not busy.done()

        gate.touch()
        assert busy.result(timeout=30).returncode == 0
        moved = await ann.wait_state(lambda v: len(v["bids"]) > bids)
        assert moved["view"]["bids"][bids]["seat"] == bot
    await watcher.close()
    await ann.close()
    # The server's stop ends its workers too.
    await asyncio.to_thread(server.stop)
    with pytest.raises(ProcessLookupError):
        os.kill(worker, 0)


async def test_a_bot_decides_as_its_turn_begins_and_moves_when_its_delay_is_over(
    server_factory: ServerFactory, stored: dict[str, Any]
) -> None:
    """A bot's decision is asked as its turn begins, so the delay hides the search: it
    is made and held (`Clock.ready`) while the turn still stands, and played no sooner
    than the delay (at most a fifth shorter) after the turn began."""
    delay = 5.0
    server = server_factory(bot_workers=1, bot_delay=delay, **stored)
    code, clients, _, _ = await seat_table(server, "schmier6", [0])
    ann = clients[0]
    turn, bot = await bots_turn(ann)
    actor = server.app.state.rooms.live[code]
    began = actor.clock.turn_since[bot]
    for _ in range(200):
        if bot in actor.clock.ready:
            break
        await asyncio.sleep(0.02)
    assert bot in actor.clock.ready, "the decision was not made ahead of the delay"
    assert actor.version == turn["seq"]  # decided, not played
    moved = await after(ann, turn["seq"])
    assert time.monotonic() >= began + delay * (1 - BOT_DELAY_SPREAD)
    assert moved["view"]["bids"][len(turn["view"]["bids"])]["seat"] == bot
    assert bot not in actor.clock.ready
    await ann.close()


async def test_an_answer_for_a_seat_taken_over_meanwhile_is_dropped(
    server_factory: ServerFactory, stored: dict[str, Any]
) -> None:
    """While a bot thinks, a newcomer takes its seat (and its hand): when the bot's
    answer comes it is not played; the turn is the newcomer's."""
    server = server_factory(bot_workers=1, **stored)
    executor = server.app.state.rooms.pool.executor
    executor.submit(os.getpid).result(timeout=60)
    with tempfile.TemporaryDirectory() as folder:
        gate = Path(folder) / "open"
        busy = executor.submit(subprocess.run, gate_job(gate))
        code, clients, _, _ = await seat_table(server, "schmier6", [0])
        thinking, bot = await bots_turn(clients[0])
        _, token = await server.join(code, "Bea", bot)
        bea = await Client.seated(server, code, token)
        assert bea.state is not None
        assert bea.state["view"]["turn"] == [bot] and bea.state["view"]["legal"]
        gate.touch()
        busy.result(timeout=30)
        # A job queued after the bot's decision is done after it (one worker), and by
        # then the room has been handed the bot's answer.
        executor.submit(os.getpid).result(timeout=30)
        await bea.send({"type": "chat", "text": "my turn?"})
        while (await bea.recv())["type"] != "chat":
            pass
        now = bea.state["view"]
        assert now["turn"] == [bot]
        assert now["bids"] == thinking["view"]["bids"]
        assert now["legal"] == bea.state["view"]["legal"] != []
    for client in (bea, *clients.values()):
        await client.close()


async def test_a_dead_worker_costs_a_fallback_move_and_the_pool_is_rebuilt(
    server_factory: ServerFactory, stored: dict[str, Any]
) -> None:
    server = server_factory(bot_workers=1, **stored)
    pool = server.app.state.rooms.pool
    executor = pool.executor
    worker = executor.submit(os.getpid).result(timeout=60)
    with tempfile.TemporaryDirectory() as folder:
        gate = Path(folder) / "never"
        busy = executor.submit(subprocess.run, gate_job(gate))
        code, clients, _, _ = await seat_table(server, "schmier6", [0])
        ann = clients[0]
        thinking, bot = await bots_turn(ann)
        bids = len(thinking["view"]["bids"])
        actor = server.app.state.rooms.live[code]
        record = actor.record
        expected = autoplay.fallback_action(room_view(record, bot)["legal"])
        # The bot's decision must be queued behind the busy job before the worker dies
        # (its turn may still be waiting out the bot delay); a decision asked only after
        # the death would go to a rebuilt pool and be a real one.
        for _ in range(600):
            if bot in actor.clock.thinking:
                break
            await asyncio.sleep(0.05)
        assert bot in actor.clock.thinking

        os.kill(worker, signal.SIGKILL)
        moved = await ann.wait_state(lambda v: len(v["bids"]) > bids)
        entry = moved["view"]["bids"][bids]
        assert entry["seat"] == bot
        assert entry["amount"] == expected.get("amount")
        assert busy.exception(timeout=30) is not None
    assert pool.rebuilt == 1
    # The next decisions are made by a new worker (the game goes on past the bidding).
    later = await ann.wait_state(lambda v: len(v["bids"]) > bids + 1 or v["turn"] == [0])
    assert later is not None
    fresh = pool.executor
    assert fresh is not executor
    assert fresh.submit(os.getpid).result(timeout=60) not in (worker, os.getpid())
    await ann.close()


def test_the_workers_run_below_the_servers_priority(server_factory: ServerFactory) -> None:
    """`SCHMIER_BOT_NICE` lowers the workers' priority (niceness only ever goes up)."""
    server = server_factory(bot_workers=1, bot_nice=7)
    pool = server.app.state.rooms.pool
    assert pool.executor.submit(os.nice, 0).result(timeout=60) == min(19, os.nice(0) + 7)


# ------------------------------------------------------------------ old snapshots


def older_snapshot(record: RoomRecord, fmt: int) -> bytes:
    """`record` as a server before bot levels wrote it: no `bot` on any seat."""
    body = orjson.loads(record.to_bytes())
    body["format"] = fmt
    for seat in body["seats"]:
        del seat["bot"]
    return orjson.dumps(body)


@pytest.mark.parametrize("fmt", [1, 2])
def test_an_older_snapshot_reads_with_default_bots(fmt: int) -> None:
    record = RoomRecord.new("abcdefghij", "schmier6", engine.make_rules("schmier6"))
    record = record.with_seat(1, bot_seat(1, levels.LEVELS[-1].name))
    read = RoomRecord.from_bytes(older_snapshot(record, fmt))
    assert read.seats[1].kind == "bot" and read.seats[1].bot == levels.default()
    assert all(s.bot is None for k, s in enumerate(read.seats) if k != 1)
    again = RoomRecord.from_bytes(read.to_bytes())
    assert orjson.loads(read.to_bytes())["format"] == SNAPSHOT_FORMAT
    assert again.seats == read.seats


async def test_a_room_saved_before_levels_is_served_with_default_bots(
    redis_server: RunningServer, redis_url: str, redis_prefix: str
) -> None:
    code = await redis_server.create_room("schmier6")
    store = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=600)
    saved = await store.load(code)
    assert saved is not None
    record = RoomRecord.from_bytes(saved.snapshot).with_seat(1, bot_seat(1))
    await store.commit(code, saved.version + 1, older_snapshot(record, 2))
    await store.aclose()

    info = await redis_server.room(code)
    assert info["seats"][1] == {
        "seat": 1,
        "name": "Bot 2",
        "kind": "bot",
        "connected": False,
        "bot": levels.default(),
    }
    _, token = await redis_server.join(code, "Ann", 0)
    ann = await Client.seated(redis_server, code, token)
    assert ann.state is not None
    assert named(ann.state["view"])[:2] == [None, levels.default()]
    await ann.close()


# ------------------------------------------------------------------ a killed server


def children_of(pid: int) -> set[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        # The command may hold spaces and parentheses: the fields follow the last ")".
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie does not: it has ended, unreaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_the_workers_of_a_killed_server_end_with_it() -> None:
    """A server killed with SIGKILL leaves no bot worker behind: each worker sees its
    parent gone and ends (it waits on a pipe it holds both ends of, so no end of file
    would ever tell it), and so then does multiprocessing's resource tracker."""
    server, process = start_subprocess_server(
        {"SCHMIER_BOT_WORKERS": "2", "SCHMIER_LOG_LEVEL": "WARNING"}
    )
    try:
        # The pool is warmed at start-up: wait for both workers (and the tracker).
        deadline = time.monotonic() + 60
        while len(children_of(process.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        children = children_of(process.pid)
        assert len(children) >= 3, children
        process.send_signal(signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 60
        while any(alive(p) for p in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = sorted(p for p in children if alive(p))
        for pid in left:  # do not leave them behind if the test fails
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        assert not left, f"still running after their server was killed: {left}"
    finally:
        server.stop()
