"""Whole games over real sockets: test clients and bots, every variant, to the end."""

from __future__ import annotations

import random

import pytest

from tests.support.servers import Player, RunningServer, play_all, seat_table

TABLES = [
    ("schmier6", [0, 3]),
    ("schmier5", [1, 2]),
    ("wisconsin4", [0, 1]),
]


@pytest.mark.parametrize(("variant", "humans"), TABLES)
async def test_whole_game_then_rematch(
    server: RunningServer, variant: str, humans: list[int]
) -> None:
    code, clients, watchers, _ = await seat_table(
        server, variant, humans, rules={"target": 5}, spectators=1
    )
    rng = random.Random(f"{variant}-e2e")
    players = [Player(clients[s], rng) for s in humans]
    finals = await play_all(players, lambda v: v["phase"] == "game_over")

    final = finals[0]["view"]
    assert final["winners"], "a finished game names its winners"
    assert max(final["scores"]) >= 5
    assert all(p.actions > 0 for p in players), "every human seat had to act"
    seqs = {f["seq"] for f in finals}
    assert len(seqs) == 1, "every seat sees the same final version"
    watcher_final = await watchers[0].wait_state(lambda v: v["phase"] == "game_over")
    assert watcher_final["seq"] == finals[0]["seq"]
    assert watcher_final["view"]["hand"] == []
    assert watcher_final["view"]["legal"] == []

    # seq only ever grew, on every socket.
    for client in [*clients.values(), *watchers]:
        seen = [f["seq"] for f in client.frames if f["type"] == "state"]
        assert seen == sorted(seen)

    info = await server.room(code)
    assert info["phase"] == "game_over"

    # The rematch is confirmed by every seated person: the first asks, the table waits
    # (showing who asked), the second asks and the next game starts.
    rematch = {"type": "rematch"}
    assert rematch in final["legal"] and final["rematch"] == []
    await clients[humans[0]].send(rematch)
    asked = await clients[humans[1]].wait_state(lambda v: v["rematch"] == [humans[0]])
    assert asked["view"]["phase"] == "game_over" and rematch in asked["view"]["legal"]
    mine = await clients[humans[0]].wait_state(lambda v: v["rematch"] == [humans[0]])
    assert rematch not in mine["view"]["legal"]
    await clients[humans[1]].send(rematch)
    fresh = await clients[humans[1]].wait_state(lambda v: v["phase"] != "game_over")
    assert fresh["seq"] > finals[0]["seq"]
    view = fresh["view"]
    assert view["phase"] == "bidding"
    assert view["scores"] == [0] * len(view["teams"])
    assert view["winners"] is None and view["rematch"] == []
    assert len(view["hand"]) == 6
    assert [s["kind"] for s in view["seats"]] == [
        "human" if s in humans else "bot" for s in range(len(view["seats"]))
    ]
    # The new game is playable to its end as well.
    await play_all(players, lambda v: v["phase"] == "game_over")
    for client in [*clients.values(), *watchers]:
        await client.close()


async def test_whole_game_on_redis(redis_server: RunningServer) -> None:
    code, clients, _, _ = await seat_table(redis_server, "schmier5", [0, 4], rules={"target": 5})
    rng = random.Random("redis-e2e")
    finals = await play_all(
        [Player(clients[s], rng) for s in (0, 4)], lambda v: v["phase"] == "game_over"
    )
    assert finals[0]["view"]["winners"]
    assert (await redis_server.room(code))["phase"] == "game_over"
    for client in clients.values():
        await client.close()
