"""Another table (docs/protocol.md, "Another table"), over real sockets to real servers:
anyone with a room's link makes a practice room of a finished hand's deal
(`POST /api/rooms/{code}/hands/{n}/practice`) whose seats are open to whoever joins;
every seat is dealt the cards it had in the original hand; a seat nobody takes within
the join grace is played by the bot; once the hand is played out, the comparison
(`GET /api/rooms/{code}/hands/{n}/tables`) shows the original's result and the new
table's, seat by seat, and nothing of a practice hand in play before. Bad input and
unknown hands are 404s as for the record, room creations are rate-limited, a hand has a
bounded number of tables, and with Redis they survive a restart.
"""

from __future__ import annotations

import random
from typing import Any

import httpx

from tests.support import loopback
from tests.support.servers import Client, Player, RunningServer, ServerFactory, play_all
from tests.test_review_together import SCORED, finished_hand

NAMES = ["Dan", "Eve", "Fay", "Gus"]


async def call(server: RunningServer, method: str, path: str) -> httpx.Response:
    async with loopback.async_client(base_url=server.base_url) as http:
        return await http.request(method, path)


async def get(server: RunningServer, path: str) -> Any:
    answer = await call(server, "GET", path)
    assert answer.status_code == 200, (path, answer.status_code, answer.text)
    return answer.json()


async def another_table(server: RunningServer, code: str, n: int = 1) -> str:
    answer = await call(server, "POST", f"/api/rooms/{code}/hands/{n}/practice")
    assert answer.status_code == 201, answer.text
    assert set(answer.json()) == {"code"}
    return str(answer.json()["code"])


async def sit_down(server: RunningServer, code: str, seats: list[int]) -> dict[int, Client]:
    """Each of `seats` joined through the room's link, its client said hello."""
    clients = {}
    for seat in seats:
        got, token = await server.join(code, NAMES[seat], seat)
        assert got == seat
        clients[seat] = await Client.seated(server, code, token)
    return clients


def same_cards(clients: dict[int, Client], hand: dict[str, Any]) -> None:
    for seat, client in clients.items():
        assert client.state is not None
        view = client.state["view"]
        assert sorted(view["hand"]) == sorted(hand["hands"][seat]), seat
        assert view["dealer"] == hand["dealer"]


async def test_another_table_plays_the_same_deal_and_the_tables_compare(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(hand_pause=600)
    table = await finished_hand(server, seed=31)
    hand = await get(server, f"/api/rooms/{table.code}/hands/1")
    before = await get(server, f"/api/rooms/{table.code}/hands")
    alone = await get(server, f"/api/rooms/{table.code}/hands/1/tables")
    assert alone["playing"] == 0 and [t["original"] for t in alone["tables"]] == [True]
    mine = alone["tables"][0]
    assert mine["room"] == table.code and mine["hand"] == 1 and mine["step"] == 0
    assert [s["name"] for s in mine["seats"]] == [s["name"] for s in hand["seats"]]
    assert (mine["bid"], mine["made"], mine["deltas"]) == (
        hand["result"]["bid"],
        hand["result"]["made"],
        hand["result"]["deltas"],
    )

    code = await another_table(server, table.code)
    assert code != table.code
    info = await get(server, f"/api/rooms/{code}")
    assert info["practice"] == {"room": table.code, "hand": 1, "step": 0}
    assert [s["kind"] for s in info["seats"]] == ["empty"] * 4
    clients = await sit_down(server, code, [0, 1, 2, 3])
    same_cards(clients, hand)
    last = clients[3].state
    assert last is not None and last["view"]["bids"] == []  # the hand waited for them
    # While it is played, the comparison counts it and shows nothing of it.
    answer = await call(server, "GET", f"/api/rooms/{table.code}/hands/1/tables")
    assert answer.json()["playing"] == 1 and len(answer.json()["tables"]) == 1
    assert code not in answer.text
    rng = random.Random(4)
    ends = await play_all(
        [Player(c, rng) for c in clients.values()], lambda v: v["phase"] in SCORED
    )
    played = await get(server, f"/api/rooms/{code}/hands/1")
    assert played["deal"]["deck"] == hand["deal"]["deck"] and played["hands"] == hand["hands"]
    assert ends[0]["view"]["original"] == hand["result"]
    both = await get(server, f"/api/rooms/{table.code}/hands/1/tables")
    assert both["playing"] == 0 and [t["original"] for t in both["tables"]] == [True, False]
    theirs = both["tables"][1]
    assert theirs["room"] == code and theirs["hand"] == 1 and theirs["step"] == 0
    assert await get(server, theirs["record"]) == played
    page = await call(server, "GET", theirs["review"])
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert [s["name"] for s in theirs["seats"]] == NAMES
    result = played["result"]
    assert (theirs["bidder"], theirs["bid"], theirs["made"]) == (
        result["bidder"],
        result["bid"],
        result["made"],
    )
    assert theirs["deltas"] == result["deltas"]
    side = {k: i for i, team in enumerate(played["teams"]) for k in team}
    assert theirs["points"] == [result["deltas"][side[k]] for k in range(4)]
    # The original room is not changed by it.
    assert await get(server, f"/api/rooms/{table.code}/hands") == before
    for client in [*clients.values(), *table.everyone()]:
        await client.close()


async def test_a_seat_nobody_takes_is_played_by_the_bot_after_the_join_grace(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(hand_pause=600, autoplay_after=0.3)
    table = await finished_hand(server, seed=32)
    hand = await get(server, f"/api/rooms/{table.code}/hands/1")
    code = await another_table(server, table.code)
    clients = await sit_down(server, code, [2])
    same_cards(clients, hand)
    rng = random.Random(5)
    ends = await play_all([Player(clients[2], rng)], lambda v: v["phase"] in SCORED)
    assert ends[0]["view"]["original"] == hand["result"]
    both = await get(server, f"/api/rooms/{table.code}/hands/1/tables")
    theirs = both["tables"][1]
    assert [s["kind"] for s in theirs["seats"]] == ["empty", "empty", "human", "empty"]
    assert [s["name"] for s in theirs["seats"]] == [None, None, "Fay", None]
    for client in [*clients.values(), *table.everyone()]:
        await client.close()


async def test_unknown_rooms_and_hands_and_a_hand_in_play_are_404s(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(hand_pause=600)
    table = await finished_hand(server, seed=33)
    for path in ("practice", "tables"):
        method = "POST" if path == "practice" else "GET"
        for n in ("0", "2", "-1", "x", "1.0", "99999999999", "%32", "１"):
            answer = await call(server, method, f"/api/rooms/{table.code}/hands/{n}/{path}")
            assert answer.status_code == 404, (path, n, answer.status_code)
        answer = await call(server, method, f"/api/rooms/NOSUCHROOM/hands/1/{path}")
        assert answer.status_code == 404
    # A room whose first hand is in play: nothing of it, nor a table made from it.
    code = await server.create_room("wisconsin4", {"target": 11})
    _, token = await server.join(code, "Ann", 0)
    ann = await Client.seated(server, code, token)
    for seat in (1, 2, 3):
        await ann.send({"type": "add_bot", "seat": seat})
    await ann.wait_state(lambda v: {"type": "start"} in v["legal"])
    await ann.send({"type": "start"})
    await ann.wait_state(lambda v: v["phase"] not in ("lobby", *SCORED))
    for method, path in (("POST", "practice"), ("GET", "tables")):
        answer = await call(server, method, f"/api/rooms/{code}/hands/1/{path}")
        assert answer.status_code == 404, answer.text
    # Nothing was made: the first room's hand still has its table alone.
    alone = await get(server, f"/api/rooms/{table.code}/hands/1/tables")
    assert len(alone["tables"]) == 1 and alone["playing"] == 0
    for client in [ann, *table.everyone()]:
        await client.close()


async def test_tables_are_rate_limited_like_rooms_and_bounded_per_hand(
    server_factory: ServerFactory,
) -> None:
    from schmier.rooms.shared import TABLES_MAX

    server = server_factory(hand_pause=600, create_rate=TABLES_MAX + 3)
    table = await finished_hand(server, seed=34)  # made one room of the budget
    codes = {await another_table(server, table.code) for _ in range(TABLES_MAX)}
    assert len(codes) == TABLES_MAX
    full = await call(server, "POST", f"/api/rooms/{table.code}/hands/1/practice")
    assert full.status_code == 409, full.text
    tables = await get(server, f"/api/rooms/{table.code}/hands/1/tables")
    assert tables["playing"] == TABLES_MAX
    # One room of the budget is left: then 429, whatever the hand.
    assert (await call(server, "POST", "/api/rooms/NOSUCHROOM/hands/1/practice")).status_code == 404
    limited = await call(server, "POST", f"/api/rooms/{table.code}/hands/1/practice")
    assert limited.status_code == 429 and limited.headers["retry-after"] == "60"
    for client in table.everyone():
        await client.close()


async def test_the_tables_survive_a_restart_with_redis(
    server_factory: ServerFactory, redis_url: str, redis_prefix: str
) -> None:
    settings = {"hand_pause": 600, "redis_url": redis_url, "redis_prefix": redis_prefix}
    server = server_factory(**settings)
    table = await finished_hand(server, seed=35)
    code = await another_table(server, table.code)
    clients = await sit_down(server, code, [0, 1, 2, 3])
    rng = random.Random(6)
    await play_all([Player(c, rng) for c in clients.values()], lambda v: v["phase"] in SCORED)
    waiting = await another_table(server, table.code)  # made, never played
    before = await get(server, f"/api/rooms/{table.code}/hands/1/tables")
    assert [t["room"] for t in before["tables"]] == [table.code, code]
    assert before["playing"] == 1
    for client in [*clients.values(), *table.everyone()]:
        await client.close()
    server.stop()
    again = server_factory(**settings)
    assert await get(again, f"/api/rooms/{table.code}/hands/1/tables") == before
    assert (await get(again, f"/api/rooms/{waiting}"))["practice"]["room"] == table.code
