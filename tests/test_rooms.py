"""Seats over time: reconnection, leaving, bots taking over and handing back, autoplay,
idle rooms unloading and coming back, and the HTTP view of the seats."""

from __future__ import annotations

import asyncio
import gc
import random
import socket
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
import pytest

from schmier import engine
from schmier.config import Settings
from schmier.metrics import Metrics
from schmier.rooms.peers import RoomGone, settle
from schmier.rooms.record import RoomRecord, bot_seat
from schmier.rooms.registry import Rooms
from schmier.rooms.thinking import Pool
from schmier.store import RedisStore, StoreError
from tests.support import abandoned, loopback
from tests.support.servers import (
    Client,
    Player,
    RunningServer,
    ServerFactory,
    eventually,
    seat_table,
)


async def true_state(server: RunningServer, code: str, variant: str, dealer: int) -> Any:
    """The room's engine state, replayed from the store's log."""
    rules = (await server.room(code))["rules"]
    state = engine.new_game(variant, engine.make_rules(variant, rules), dealer)
    for raw in await server.app.state.rooms.store.read_log(code):
        entry = orjson.loads(raw)
        state = engine.apply(state, entry["seat"], entry["action"])
    return state


async def test_reconnect_same_and_new_device(server: RunningServer) -> None:
    code, clients, watchers, tokens = await seat_table(
        server, "schmier6", [0], rules={"target": 5}, spectators=1
    )
    first = clients[0]
    # Only seat 0 is awaited: the room stands still until it acts.
    quiet = await first.wait_state(lambda v: v["turn"] == [0])
    view, seq = quiet["view"], quiet["seq"]

    # A second device with the same token: the same complete view, and no change.
    second = await Client.seated(server, code, tokens[0])
    assert second.state is not None
    assert second.state["seq"] == seq
    assert second.state["view"] == view

    # Both devices gone: the seat shows disconnected, as a change of the room.
    await first.close()
    await second.close()
    gone = await watchers[0].wait_state(lambda v: not v["seats"][0]["connected"])
    assert gone["seq"] > seq
    assert (await server.room(code))["seats"][0]["connected"] is False

    # Back with the token: connected again, the same hand, bids and scores.
    back = await Client.seated(server, code, tokens[0])
    assert back.state is not None
    again = back.state["view"]
    assert back.state["seq"] > gone["seq"]
    assert again["seats"][0]["connected"] is True
    for field in ("hand", "bids", "scores", "turn", "trick", "dealer", "legal"):
        assert again[field] == view[field], field
    assert (await server.room(code))["seats"][0]["connected"] is True
    await back.close()
    await watchers[0].close()


async def test_leave_in_lobby_empties_the_seat(server: RunningServer) -> None:
    code = await server.create_room("schmier5")
    _, token = await server.join(code, "Ann", 2)
    client = await Client.seated(server, code, token)
    await client.send({"type": "leave"})
    state = await client.wait_state(lambda v: v["you"] is None)
    assert state["view"]["seats"][2]["kind"] == "empty"
    assert state["view"]["legal"] == []
    assert (await server.room(code))["seats"][2] == {
        "seat": 2,
        "name": None,
        "kind": "empty",
        "connected": False,
    }
    await client.close()
    stale = await Client.connect(server.ws_url(code))
    await stale.send({"type": "hello", "token": token})
    assert await stale.closed() == 4401


async def test_bot_takes_over_a_leaver_and_finishes(server: RunningServer) -> None:
    code, clients, watchers, tokens = await seat_table(
        server, "wisconsin4", [0, 1], rules={"target": 5}, spectators=1
    )
    leaver = clients[1]
    await leaver.send({"type": "leave"})
    after = await leaver.wait_state(lambda v: v["you"] is None)
    assert after["view"]["hand"] == [] and after["view"]["legal"] == []
    assert after["view"]["seats"][1]["kind"] == "bot"
    stale = await Client.connect(server.ws_url(code))
    await stale.send({"type": "hello", "token": tokens[1]})
    assert await stale.closed() == 4401

    player = Player(clients[0], random.Random(3))
    final = await player.play_until(lambda v: v["phase"] == "game_over")
    assert final["view"]["winners"]
    assert (await server.room(code))["seats"][1]["kind"] == "bot"
    for c in (*clients.values(), *watchers):
        await c.close()


async def test_autoplay_for_a_silent_player(server_factory: ServerFactory) -> None:
    server = server_factory(autoplay_after=0.2)
    code, clients, watchers, tokens = await seat_table(
        server, "schmier5", [0, 3], rules={"target": 5}, spectators=1
    )
    await clients[3].close()
    await clients[0].close()

    def acted(seat: int) -> Callable[[dict[str, Any]], bool]:
        def check(view: dict[str, Any]) -> bool:
            plays = [p for t in view["tricks"] for p in t["cards"]] + view["trick"]
            return any(b["seat"] == seat for b in view["bids"]) or any(
                p["seat"] == seat for p in plays
            )

        return check

    # Nobody is there for seats 0 and 3: the bot policy plays their turns.
    await watchers[0].wait_state(lambda v: acted(0)(v) and acted(3)(v))
    # Seat 0 comes back and gets its seat back: its turns wait for it again, so
    # playing them never collides with the bot (an error would fail the player).
    back = await Client.seated(server, code, tokens[0])
    player = Player(back, random.Random(5))
    final = await player.play_until(lambda v: v["phase"] == "game_over", timeout=60)
    assert final["view"]["winners"]
    seats = final["view"]["seats"]
    assert [s["kind"] for s in seats] == ["human", "bot", "bot", "human", "bot"]
    assert seats[0]["connected"] and not seats[3]["connected"]
    await back.close()
    await watchers[0].close()


async def test_human_takes_a_bots_seat_hand_and_all(server: RunningServer) -> None:
    code, clients, _, _ = await seat_table(server, "schmier6", [0], rules={"target": 5})
    view = clients[0].state["view"]  # type: ignore[index]
    assert view["seats"][4]["kind"] == "bot"
    seat, token = await server.join(code, "Newcomer", 4)
    assert seat == 4
    newcomer = await Client.seated(server, code, token)
    assert newcomer.state is not None
    mine = newcomer.state["view"]
    assert mine["you"] == 4
    assert mine["seats"][4]["kind"] == "human" and mine["seats"][4]["name"] == "Newcomer"
    state = await true_state(server, code, "schmier6", mine["dealer"])
    dealt = engine.view(state, 4)["hand"]
    assert mine["hand"] == dealt and len(dealt) == 6
    # Seat 4 is a person now: the game waits for them, and they can finish it.
    players = [Player(clients[0], random.Random(1)), Player(newcomer, random.Random(2))]

    finals = await asyncio.gather(
        *(p.play_until(lambda v: v["phase"] == "game_over") for p in players)
    )
    assert players[1].actions > 0
    assert finals[0]["seq"] == finals[1]["seq"]
    for c in (clients[0], newcomer):
        await c.close()


async def test_join_conflicts(server: RunningServer) -> None:
    code = await server.create_room("wisconsin4")
    await server.join(code, "A", 1)

    async with loopback.async_client(base_url=server.base_url) as http:
        taken = await http.post(f"/api/rooms/{code}/join", json={"name": "B", "seat": 1})
        assert taken.status_code == 409
        for name in ("C", "D", "E"):
            assert (
                await http.post(f"/api/rooms/{code}/join", json={"name": name})
            ).status_code == 200
        full = await http.post(f"/api/rooms/{code}/join", json={"name": "F"})
        assert full.status_code == 409
    seats = (await server.room(code))["seats"]
    assert [s["name"] for s in seats] == ["C", "A", "D", "E"]


async def test_idle_room_unloads_and_comes_back(server_factory: ServerFactory) -> None:
    server = server_factory(idle_room_seconds=0.1)
    code, clients, _, tokens = await seat_table(server, "wisconsin4", [0], rules={"target": 5})
    before = await clients[0].wait_state(lambda v: v["turn"] == [0])
    await clients[0].close()
    rooms = server.app.state.rooms

    async def unloaded() -> bool:
        return code not in rooms.live

    await eventually(unloaded)
    info = await server.room(code)
    assert info["phase"] == before["view"]["phase"]
    back = await Client.seated(server, code, tokens[0])
    assert back.state is not None
    assert back.state["seq"] > before["seq"]
    view: dict[str, Any] = back.state["view"]
    for field in ("hand", "bids", "scores", "turn", "dealer", "legal"):
        assert view[field] == before["view"][field], field
    await back.close()


async def test_a_lost_compare_and_set_reloads_the_room(
    redis_server: RunningServer, redis_url: str, redis_prefix: str
) -> None:
    """Another writer got there first: the room takes the stored version, refuses the
    action with `unavailable`, and the retry succeeds on top of the other write."""
    code = await redis_server.create_room("schmier6")
    _, token = await redis_server.join(code, "Ann", 0)
    client = await Client.seated(redis_server, code, token)
    assert client.state is not None
    seq = client.state["seq"]

    other = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=600)
    stored = await other.load(code)
    assert stored is not None and stored.version == seq
    record = RoomRecord.from_bytes(stored.snapshot).with_seat(1, bot_seat(1))
    await other.commit(code, seq + 1, record.to_bytes())
    await other.aclose()

    await client.send({"type": "add_bot", "seat": 2})
    answer = await client.next_error()
    assert answer["code"] == "unavailable"
    reloaded = client.state
    assert reloaded["seq"] == seq + 1
    assert [s["kind"] for s in reloaded["view"]["seats"]][:3] == ["human", "bot", "empty"]

    await client.send({"type": "add_bot", "seat": 2})
    done = await client.wait_state(lambda v: v["seats"][2]["kind"] == "bot")
    assert done["seq"] == seq + 2
    assert done["view"]["seats"][1]["kind"] == "bot"
    await client.close()


async def test_a_room_whose_last_socket_closed_keeps_nothing_of_it(
    server_factory: ServerFactory,
) -> None:
    """The actor waits for its next message without the last one: a room whose last
    socket closed (its last message that socket's disconnection) held the socket and
    every object of its connection until the room's idle stop, minutes later."""
    server = server_factory()
    code = await server.create_room("wisconsin4")
    _, token = await server.join(code, "Ann", 0)
    ann = await Client.seated(server, code, token)
    await ann.close()

    async def gone() -> bool:
        return not (await server.room(code))["seats"][0]["connected"]

    await eventually(gone)
    actor = server.app.state.rooms.owned(code)
    assert actor is not None
    waiting = actor._task.get_coro().cr_frame  # the actor's loop, waiting for a message
    assert waiting is not None and "message" not in waiting.f_locals


async def cyclic_garbage_of(work: Coroutine[Any, Any, None]) -> list[str]:
    """The type names of the cyclic garbage `work` leaves: CPython's collector is off
    while it runs (the server's own is off in these tests, `gc_step_ms` 0), then a full
    collection keeps what it finds (DEBUG_SAVEALL) to be named."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        await work
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        return [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()


async def test_a_stopped_room_leaves_no_reference_cycle(server_factory: ServerFactory) -> None:
    """A room that stops (here at its idle stop, with a bot seated) is freed by
    reference counting, its actor, record and game at once: the bots' door back to the
    actor was a cycle (actor → bots → the actor's method) that kept all of it until a
    full collection, which at 1,000 tables stopped every table for half a second when
    many rooms went at once. The server's own collector is off here (`gc_step_ms` 0)
    and CPython's too while the rooms stop, so a cycle would wait in the collector's
    sight; the full collection after it keeps what it found (DEBUG_SAVEALL)."""
    server = server_factory(idle_room_seconds=0.2, gc_step_ms=0)
    rooms = server.app.state.rooms
    codes = []
    for _ in range(3):
        code, clients, _, _ = await seat_table(server, "wisconsin4", [0], rules={"target": 5})
        await clients[0].wait_state(lambda v: v["phase"] != "lobby")
        codes.append((code, clients[0]))

    async def stop_them() -> None:
        for _, client in codes:
            await client.close()

        async def unloaded() -> bool:
            return not any(code in rooms.live for code, _ in codes)

        await eventually(unloaded)
        await asyncio.sleep(0.2)  # the actors' tasks have finished

    kept = await cyclic_garbage_of(stop_them())
    assert "RoomActor" not in kept and "RoomRecord" not in kept, sorted(set(kept))


async def test_a_bots_move_leaves_no_reference_cycle(server_factory: ServerFactory) -> None:
    """Each bot decision's job held its future and the future a callback holding the
    job: a cycle per bot move, with the game state it was asked in, that only a full
    collection freed. Bots play a while with the collectors off; nothing of it is
    cyclic garbage."""
    server = server_factory(gc_step_ms=0)
    _, clients, watchers, _ = await seat_table(
        server, "schmier6", [0], rules={"target": 21}, spectators=1
    )
    await clients[0].send({"type": "leave"})  # a bot takes the seat: all six are bots

    async def forty_moves() -> None:
        for _ in range(40):
            await watchers[0].next_state()

    kept = await cyclic_garbage_of(forty_moves())
    assert "Job" not in kept and "State" not in kept, sorted(set(kept))
    for client in [*clients.values(), *watchers]:
        await client.close()


async def test_a_load_failing_after_its_caller_left_is_not_logged() -> None:
    """A socket that goes away while its room is being loaded leaves the load's failure
    (Redis away) to nobody: it must not reach asyncio's handler as a "Task exception was
    never retrieved" traceback in the server's log; the next caller sees it."""
    with socket.socket() as refusing:
        refusing.bind(("127.0.0.1", 0))
        port = refusing.getsockname()[1]
        store = RedisStore(f"redis://127.0.0.1:{port}/0", ttl_seconds=60)
        rooms = Rooms(store, Settings(), Metrics(), pool=Pool(0))
        try:
            with abandoned.reports() as reported:
                await abandoned.abandon(rooms.get("nosuchroom"))
                # The load fails with nobody waiting for it.
                await abandoned.ended_unseen(rooms._loading.get("nosuchroom"))
                gc.collect()
                assert reported == []
            with pytest.raises(StoreError):
                await rooms.get("nosuchroom")
        finally:
            await store.aclose()


async def test_a_failure_settled_on_a_caller_that_left_is_not_logged() -> None:
    """An instance answers a forwarded request (`settle`) whose caller stopped waiting
    through its shield: the failure reaches nobody and is not logged as asyncio's
    "Future exception was never retrieved"; a caller still waiting gets it."""
    loop = asyncio.get_running_loop()
    waiting: dict[str, asyncio.Future[Any]] = {"left": loop.create_future()}

    async def ask(op: str) -> None:
        await asyncio.shield(waiting[op])

    with abandoned.reports() as reported:
        await abandoned.abandon(ask("left"))
        settle(waiting.pop("left"), RoomGone("nosuchroom"))
        gc.collect()
        assert reported == []
    waiting["stayed"] = loop.create_future()
    caller = asyncio.ensure_future(ask("stayed"))
    await asyncio.sleep(0)
    settle(waiting.pop("stayed"), RoomGone("nosuchroom"))
    with pytest.raises(RoomGone):
        await caller


async def test_a_load_failing_by_a_fault_is_logged_even_with_nobody_waiting(
    redis_url: str, redis_prefix: str, monkeypatch: Any, caplog: Any
) -> None:
    """Only a store's failure (or the stop) is left to the callers: a fault in a room's
    load is logged with its traceback, also when no caller is left to see it."""
    store = RedisStore(redis_url, prefix=redis_prefix, ttl_seconds=60)
    rooms = Rooms(store, Settings(), Metrics(), pool=Pool(0))
    go_on, broken = abandoned.held_fault("a fault in the load")
    monkeypatch.setattr(store, "load", broken)
    try:
        with abandoned.reports() as reported:
            await abandoned.abandon(rooms.get("nosuchroom"))
            await abandoned.ended_unseen(rooms._loading.get("nosuchroom"), go_on)
            gc.collect()
            assert reported == []
        logged = [r for r in caplog.records if r.getMessage() == "room.load_failed"]
        assert len(logged) == 1
        assert "ValueError: a fault in the load" in caplog.text  # with its traceback
    finally:
        await store.aclose()
