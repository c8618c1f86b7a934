"""The history checker (`tests/support/history.py`) passes a real game's history and
fails every deliberately broken one: a duplicated action in the log, a `seq` going
backwards, two states under one `seq`, a leaked card, a state sent and never committed,
and a commit made without the lease (two owners of one room)."""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

import pytest

from bench.kit.keys import delete_prefix, fresh_prefix
from schmier.rooms.record import RoomRecord
from schmier.store import RedisStore
from tests.support.history import (
    Final,
    HistoryError,
    Socket,
    StoreRecorder,
    check,
    check_store,
)
from tests.support.servers import (
    Client,
    Player,
    RunningServer,
    play_all,
    seat_table,
)


async def game_history(server: RunningServer) -> tuple[list[Socket], dict[str, Final]]:
    """A whole `wisconsin4` game with two people, a spectator and two bots: its sockets'
    histories, and the room's final record with a fresh hello's state."""
    rules = {"target": 5}
    code, clients, watchers, _ = await seat_table(
        server, "wisconsin4", [0, 2], rules=rules, spectators=1
    )
    rng = random.Random("history")
    await play_all([Player(clients[s], rng) for s in clients], lambda v: v["phase"] == "game_over")
    await watchers[0].wait_state(lambda v: v["phase"] == "game_over")
    for client in clients.values():
        await client.close()

    # The players have left, each a change of the room the spectator is sent. It
    # leaves once it has seen both, so that its last frame is the store's last version
    # (watching changes nothing); closing it at once let a loaded machine send a
    # departure after it had gone, and the store was then ahead of every client. Then
    # a fresh hello, and the store's record while that spectator still watches.
    def both_gone(view: dict[str, Any]) -> bool:
        return not view["seats"][0]["connected"] and not view["seats"][2]["connected"]

    await watchers[0].wait_state(both_gone)
    await watchers[0].close()
    fresh = await Client.seated(server, code, None)
    store = server.app.state.rooms.store
    stored = await store.load(code)
    assert stored is not None
    final = Final(
        RoomRecord.from_bytes(stored.snapshot),
        stored.version,
        await store.read_log(code),
        fresh.state,
    )
    await fresh.close()
    sockets = [Socket(code, s, c.transcript) for s, c in clients.items()]
    sockets.append(Socket(code, None, watchers[0].transcript))
    return sockets, {code: final}


def states_at(sock: Socket) -> list[int]:
    """The transcript indexes of the socket's in-game state frames."""
    return [
        i
        for i, (way, f) in enumerate(sock.transcript)
        if way == "in" and f["type"] == "state" and f["view"]["phase"] != "lobby"
    ]


async def test_a_real_history_passes_and_broken_ones_fail(server: RunningServer) -> None:
    sockets, finals = await game_history(server)
    assert check(sockets, finals, None) > 50
    (code,) = finals

    # An action the log holds twice.
    broken = copy.deepcopy(finals)
    plays = [i for i, raw in enumerate(broken[code].log) if b'"play"' in raw]
    broken[code].log.insert(plays[3], broken[code].log[plays[3]])
    with pytest.raises(HistoryError, match=r"does not replay|played twice"):
        check(sockets, broken, None)

    # An action a client was shown that the log lacks.
    broken = copy.deepcopy(finals)
    del broken[code].log[plays[-1]]
    with pytest.raises(HistoryError):
        check(sockets, broken, None)

    # A seq going backwards on one socket.
    twisted = copy.deepcopy(sockets)
    at = states_at(twisted[0])
    frame = twisted[0].transcript[at[5]][1]
    frame["seq"] = twisted[0].transcript[at[3]][1]["seq"] - 1
    with pytest.raises(HistoryError, match="seq went back"):
        check(twisted, finals, None)

    # Two different states under one seq (a stale owner's frame after a take-over).
    twisted = copy.deepcopy(sockets)
    at = states_at(twisted[1])
    later = twisted[1].transcript[at[8]][1]
    twisted[1].transcript.insert(at[8] + 1, ("in", {**copy.deepcopy(later), "seq": later["seq"]}))
    twisted[1].transcript[at[8] + 1][1]["view"]["scores"] = [99, 99]
    with pytest.raises(HistoryError, match="two different states"):
        check(twisted, finals, None)

    # A card leaked to a seat: another seat's card shown in its hand.
    twisted = copy.deepcopy(sockets)
    at = states_at(twisted[0])
    view = twisted[0].transcript[at[2]][1]["view"]
    view["hand"] = [*view["hand"], "X1" if "X1" not in view["hand"] else "X2"]
    with pytest.raises(HistoryError, match=r"no true state|was shown"):
        check(twisted, finals, None)

    # A state sent and never committed (a client view ahead of the store).
    behind = copy.deepcopy(finals)
    behind[code].version -= 1
    with pytest.raises(HistoryError, match="the store has"):
        check(sockets, behind, None)

    # A game neither over nor answering a fresh hello.
    broken = copy.deepcopy(finals)
    broken[code].record = dataclasses.replace(broken[code].record, state=None)
    broken[code].resumed = None
    with pytest.raises(HistoryError, match="neither over nor resumed"):
        check(sockets, broken, None)


async def test_the_store_history_catches_a_commit_without_the_lease(redis_url: str) -> None:
    """Two instances' stores on the real Redis: the checker reads the MONITOR stream. A
    commit under the current lease passes; a commit by a stale owner that skips the
    lease check (a build without the fencing check) is caught."""
    prefix = fresh_prefix("schmier-history", 8) + ":"
    recorder = StoreRecorder("127.0.0.1", 6379, prefix)
    first = RedisStore(redis_url, prefix=prefix, ttl_seconds=600)
    second = RedisStore(redis_url, prefix=prefix, ttl_seconds=600)
    try:
        await first.start()
        await second.start()
        assert await first.create("ROOM1", b"v0")
        lease_a = await first.acquire_lease("ROOM1", "a", 60_000)
        assert lease_a is not None
        await first.commit("ROOM1", 1, b"v1", [b"{}"], lease=lease_a)
        assert await first.release_lease("ROOM1", lease_a)
        lease_b = await second.acquire_lease("ROOM1", "b", 60_000)
        assert lease_b is not None
        await second.commit("ROOM1", 2, b"v2", [b"{}"], lease=lease_b)
        # The stale owner writes as a build without the lease check would.
        await first.commit("ROOM1", 3, b"v3", [b"{}"])
    finally:
        history = recorder.stop()
        await first.aclose()
        await second.aclose()
        delete_prefix(redis_url, prefix)
    kinds = [e.kind for e in history.events]
    assert kinds == ["acquire", "commit", "release", "acquire", "commit", "commit"], kinds
    good = copy.deepcopy(history)
    good.events.pop()
    assert check_store(good) == 2
    with pytest.raises(HistoryError, match="two owners"):
        check_store(history)
