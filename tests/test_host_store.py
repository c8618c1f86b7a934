"""What the host changes is kept with the room: the host, the pause (with the time left
of a timed turn) and the rematch votes survive a restart (Redis) and a move to another
instance; a room saved before they existed (snapshot format 3) still loads."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from schmier import engine
from schmier.config import Settings
from schmier.rooms.clock import Clock
from schmier.rooms.record import RoomRecord, Seat, bot_seat
from tests.support.cluster import Cluster
from tests.support.servers import Client, Player, ServerFactory

PEOPLE = ((0, "Ann"), (2, "Bob"))


@pytest.fixture
def cluster(redis_url: str, redis_prefix: str, tmp_path: Path) -> Iterator[Cluster]:
    """Instances started by the test, stopped afterwards (their logs shown on failure)."""
    (tmp_path / "logs").mkdir()
    running = Cluster(redis_url, redis_prefix, tmp_path / "logs")
    yield running
    running.stop()
    print(running.logs())


def _record() -> RoomRecord:
    record = RoomRecord.new("abcdefghij", "wisconsin4", engine.make_rules("wisconsin4"))
    record = record.with_seat(1, Seat(kind="human", name="Ann", token_hash="a" * 64))
    record = record.with_seat(3, Seat(kind="human", name="Bob", token_hash="b" * 64))
    return record.with_seat(0, bot_seat(0, "easy"))


def test_the_table_state_round_trips_through_the_snapshot() -> None:
    record = replace(_record(), host=3, paused=True, turn_left=7.25, rematch=(1, 3))
    again = RoomRecord.from_bytes(record.to_bytes())
    assert (again.host, again.paused, again.turn_left, again.rematch) == (3, True, 7.25, (1, 3))
    assert again == record


def test_a_format_3_snapshot_loads_with_a_host_and_no_pause_or_votes() -> None:
    body = orjson.loads(_record().to_bytes())
    for key in ("host", "paused", "turn_left", "rematch"):
        del body[key]
    body["format"] = 3
    old = RoomRecord.from_bytes(orjson.dumps(body))
    assert (old.host, old.paused, old.turn_left, old.rematch) == (1, False, None, ())
    # A room nobody sits in has no host.
    body["seats"] = [
        {**s, "kind": "empty", "name": None, "token_hash": None} for s in body["seats"]
    ]
    assert RoomRecord.from_bytes(orjson.dumps(body)).host is None


def test_the_host_follows_the_seats() -> None:
    record = _record().with_host()
    assert record.host == 1  # the lowest person's seat, nobody connected
    connected = record.with_seat(3, replace(record.seats[3], connected=True))
    assert connected.with_host().host == 1  # the host stays while the seat is a person's
    left = connected.with_seat(1, Seat()).with_host()
    assert left.host == 3
    assert left.with_seat(3, bot_seat(3)).with_host().host is None


async def test_host_pause_and_votes_survive_restarts(
    server_factory: ServerFactory, redis_url: str, redis_prefix: str
) -> None:
    def start() -> Any:
        return server_factory(redis_url=redis_url, redis_prefix=redis_prefix)

    first = start()
    code = await first.create_room("wisconsin4", {"target": 5, "turn_seconds": 60})
    tokens = {
        seat: (await first.join(code, name, seat))[1] for seat, name in ((0, "Ann"), (2, "Bob"))
    }
    ann = await Client.seated(first, code, tokens[0])
    bob = await Client.seated(first, code, tokens[2])
    for seat in (1, 3):
        await ann.send({"type": "add_bot", "seat": seat})
    await ann.wait_state(lambda v: {"type": "start"} in v["legal"])
    await ann.send({"type": "start"})
    players = [Player(ann, random.Random("s-a")), Player(bob, random.Random("s-b"))]
    await asyncio.gather(*(p.play_until(lambda v: v["phase"] == "game_over") for p in players))
    # Ann asks for the rematch, then swaps herself into seat 1: the vote and the host
    # go with her.
    await ann.send({"type": "rematch"})
    await ann.send({"type": "swap_seats", "seats": [0, 1]})
    await bob.wait_state(lambda v: v["rematch"] == [1] and v["host"] == 1)
    for client in (ann, bob):
        await client.close()
    first.stop()

    second = start()
    ann = await Client.seated(second, code, tokens[0])
    bob = await Client.seated(second, code, tokens[2])
    assert ann.state is not None
    view = ann.state["view"]
    assert (view["you"], view["host"], view["rematch"], view["phase"]) == (1, 1, [1], "game_over")
    await bob.send({"type": "rematch"})
    # A person's timed turn, paused.
    turn = await ann.wait_state(
        lambda v: v["phase"] != "game_over" and v["turn_ends_in"] is not None
    )
    assert turn["view"]["rematch"] == []
    await ann.send({"type": "pause"})
    paused = (await bob.wait_state(lambda v: v["paused"]))["view"]
    for client in (ann, bob):
        await client.close()
    second.stop()

    third = start()
    watcher = await Client.seated(third, code, None)
    assert watcher.state is not None
    view = watcher.state["view"]
    assert view["paused"] and view["host"] == 1 and view["turn"] == paused["turn"]
    assert view["turn_ends_in"] == paused["turn_ends_in"]  # the count stood still
    ann = await Client.seated(third, code, tokens[0])
    await ann.send({"type": "resume"})
    going = (await watcher.wait_state(lambda v: not v["paused"]))["view"]
    assert going["turn_ends_in"] is not None and going["turn_ends_in"] <= paused["turn_ends_in"]
    for client in (ann, watcher):
        await client.close()


async def test_the_host_across_instances(cluster: Cluster) -> None:
    """A seat on an instance that only follows the room: it moves, sees the pause, is
    refused while paused, and alone hears that its timer ran out."""
    cluster.env = {"SCHMIER_TURN_TIMER_SCALE": "0.05"}  # 10 s run 0.5 s
    a, b = cluster.start("a", "b")
    code = await a.create_room("wisconsin4", {"target": 5, "turn_seconds": 10})
    _, ann_token = await a.join(code, "Ann", 0)
    ann = await Client.seated(a, code, ann_token)
    assert await cluster.owner(code) == "a"
    _, bob_token = await b.join(code, "Bob", 2)
    bob = await Client.seated(b, code, bob_token)
    await bob.send({"type": "move_seat", "seat": 3})
    moved = await bob.wait_state(lambda v: v["you"] == 3)
    assert moved["view"]["host"] == 0
    await bob.send({"type": "set_rules", "rules": {"target": 7}})
    assert (await bob.next_error())["code"] == "forbidden"
    for seat in (1, 2):
        await ann.send({"type": "add_bot", "seat": seat})
    await ann.wait_state(lambda v: {"type": "start"} in v["legal"])
    await ann.send({"type": "start"})
    # Nobody plays: both people's timers run out; Bob, on instance b, is told his own.
    await bob.wait_state(lambda v: any(f["type"] == "timed_out" for f in bob.frames), timeout=30)
    notice = next(f for f in bob.frames if f["type"] == "timed_out")
    assert notice["seq"] in {f["seq"] for f in bob.frames if f["type"] == "state"}
    await ann.send({"type": "pause"})
    paused = await bob.wait_state(lambda v: v["paused"])
    assert paused["view"]["legal"] == []
    await bob.send({"type": "play", "card": "AS"})
    assert (await bob.next_error())["code"] == "paused"
    for client in (ann, bob):
        await client.close()


def test_a_paused_turn_keeps_its_time_and_gets_it_back() -> None:
    """`Clock.timed` across a pause: the deadline gives way to the seconds left, which
    come back as a new deadline on resume; nothing of the game is due meanwhile; a seat
    gone to a bot during the pause gets no deadline back."""
    clock = Clock(Settings(turn_timer_scale=1.0), 100.0, wall_offset=1000.0)
    state = engine.new_game("wisconsin4", engine.make_rules("wisconsin4", {"turn_seconds": 30}), 3)
    deck = engine.full_deck("wisconsin4")
    random.Random(5).shuffle(deck)
    state = engine.deal(state, deck)
    record = RoomRecord.new("abcdefghij", "wisconsin4", state.rules)
    for seat in range(4):
        record = record.with_seat(seat, Seat(kind="human", name=f"P{seat}", connected=True))
    timed = clock.timed(record, replace(record, state=state), 1100.0)
    assert timed.turn_deadline == 1130.0
    paused = clock.timed(timed, replace(timed, paused=True), 1112.5)
    assert (paused.turn_deadline, paused.turn_left) == (None, 17.5)
    clock.loaded(4, 100.0)
    clock.state_changed(None, state, 100.0)
    assert clock.due(paused, lambda seat: True) == []
    assert clock.next_due(paused, lambda seat: True) is not None  # only the idle stop
    # Anything else while paused (a seat connecting) keeps the time left.
    still = clock.timed(paused, replace(paused, seats=paused.seats), 1150.0)
    assert (still.turn_deadline, still.turn_left) == (None, 17.5)
    resumed = clock.timed(still, replace(still, paused=False), 1200.0)
    assert (resumed.turn_deadline, resumed.turn_left) == (1217.5, None)
    # The awaited seat went to a bot while paused: a bot's turn has no deadline.
    (seat,) = engine.turn(state)
    botted = still.with_seat(seat, bot_seat(seat))
    back = clock.timed(botted, replace(botted, paused=False), 1200.0)
    assert (back.turn_deadline, back.turn_left) == (None, None)
