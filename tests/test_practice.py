"""Practice from a position (docs/protocol.md, "Practice from a position"), over real
sockets to a real server: from the shared review of a finished hand the leader starts a
practice room; each connected person gets their seat's token in it, alone; the room
deals the same cards from the same step, the scores as before the hand, bots in the
seats nobody plays; it plays that one hand, shows the original's result beside its
own, and changes nothing of the original room. A deal played again gives every seat
the same cards as the original hand. Bad input changes nothing.
"""

from __future__ import annotations

import random
from typing import Any

from tests.support import loopback
from tests.support.servers import Client, Player, RunningServer, ServerFactory, play_all
from tests.test_review_together import SCORED, all_see, finished_hand, look

PRACTICE = {"type": "review", "op": "practice"}


async def get(server: RunningServer, path: str) -> Any:
    async with loopback.async_client(base_url=server.base_url) as http:
        answer = await http.get(path)
    assert answer.status_code == 200, (path, answer.status_code)
    return answer.json()


async def practice_frame(client: Client) -> dict[str, Any]:
    while True:
        frame = await client.recv()
        if frame["type"] == "practice":
            return frame


async def test_a_deal_played_again(server_factory: ServerFactory) -> None:
    server = server_factory(hand_pause=600)
    table = await finished_hand(server, seed=21)
    hand = await get(server, f"/api/rooms/{table.code}/hands/1")
    before_hands = await get(server, f"/api/rooms/{table.code}/hands")
    seq, view, _ = await look(server, table.code)
    await table.players[0].send({"type": "review", "op": "open", "hand": 1})
    await all_see(table, lambda f: f["hand"] == 1)
    await table.players[0].send({**PRACTICE, "step": 0})
    got = {k: await practice_frame(c) for k, c in table.players.items()}
    codes = {f["code"] for f in got.values()}
    assert len(codes) == 1 and table.code not in codes
    code = codes.pop()
    assert {k: f["seat"] for k, f in got.items()} == {0: 0, 1: 1, 2: 2}
    assert len({f["token"] for f in got.values()}) == 3
    info = await get(server, f"/api/rooms/{code}")
    assert info["practice"] == {"room": table.code, "hand": 1, "step": 0}
    assert [s["name"] for s in info["seats"]] == [s["name"] for s in hand["seats"]]
    assert [s["kind"] for s in info["seats"]] == ["human", "human", "human", "bot"]
    # Every seat holds the cards it was dealt in the original hand.
    clients = {k: await Client.seated(server, code, f["token"]) for k, f in got.items()}
    for k, client in clients.items():
        assert client.state is not None
        practice = client.state["view"]
        assert sorted(practice["hand"]) == sorted(hand["hands"][k])
        assert practice["dealer"] == hand["dealer"]
        before = [s - d for s, d in zip(hand["scores"], hand["result"]["deltas"], strict=True)]
        assert practice["scores"] == before
        assert practice["practice"] == {"room": table.code, "hand": 1, "step": 0}
    # The practice room's own record starts as the original did.
    rng = random.Random(8)
    ends = await play_all(
        [Player(c, rng) for c in clients.values()], lambda v: v["phase"] in SCORED
    )
    end = ends[0]["view"]
    assert end["original"] == hand["result"]
    assert end["last_hand"] is not None
    assert end["legal"] == []
    again = await get(server, f"/api/rooms/{code}/hands/1")
    assert again["hands"] == hand["hands"] and again["deal"]["deck"] == hand["deal"]["deck"]
    assert again["dealer"] == hand["dealer"]
    # The original room did not change: its scores, its hands, its phase.
    assert await get(server, f"/api/rooms/{table.code}/hands") == before_hands
    now_seq, now_view, review = await look(server, table.code)
    assert now_view["scores"] == view["scores"] and now_view["phase"] == "hand_over"
    assert review["hand"] == 1  # the review stays open
    assert now_seq == seq + 2  # opened, a practice counted, nothing else
    # No rematch and no other hand in a practice room.
    await clients[0].send({"type": "rematch"})
    assert (await clients[0].next_error())["code"] == "illegal"
    assert (await look(server, code))[1]["phase"] in SCORED
    assert (await get(server, f"/api/rooms/{code}/hands"))[-1]["n"] == 1
    # The spectator got no practice frame.
    assert not [f for f in table.watcher.frames if f["type"] == "practice"]
    for client in [*clients.values(), *table.everyone()]:
        await client.close()


async def test_practice_from_the_middle_with_a_bot_for_the_absent(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(hand_pause=600)
    table = await finished_hand(server, seed=22)
    hand = await get(server, f"/api/rooms/{table.code}/hands/1")
    plays = [i for i, a in enumerate(hand["actions"]) if a["action"]["type"] == "play"]
    step = plays[4] + 1  # the second trick has begun
    await table.players.pop(2).close()  # Cat has gone: a bot plays her seat
    await table.players[1].send({"type": "review", "op": "open", "hand": 1})
    await all_see(table, lambda f: f["hand"] == 1 and f["leader"] == 1)  # Cat is not there
    await table.players[1].send({**PRACTICE, "step": step})
    ann = await practice_frame(table.players[0])
    bob = await practice_frame(table.players[1])
    code = ann["code"]
    info = await get(server, f"/api/rooms/{code}")
    assert [s["kind"] for s in info["seats"]] == ["human", "human", "bot", "bot"]
    assert info["seats"][2]["name"] == "Player 2"
    clients = [await Client.seated(server, code, f["token"]) for f in (ann, bob)]
    view = clients[0].state["view"] if clients[0].state else {}
    assert [p["card"] for p in view["tricks"][0]["cards"]] == [
        p["card"] for p in hand["tricks"][0]["cards"]
    ]
    # The second trick was led as in the original (the bots may have played on since: the
    # trick waits for Ann and Bob, so it is still on the table).
    assert view["trick"][0]["card"] == hand["actions"][plays[4]]["action"]["card"]
    rng = random.Random(3)
    ends = await play_all([Player(c, rng) for c in clients], lambda v: v["phase"] in SCORED)
    end = ends[0]["view"]
    assert end["original"] == hand["result"]
    for client in [*clients, *table.everyone()]:
        await client.close()


async def test_bad_practice_frames_change_nothing(server_factory: ServerFactory) -> None:
    server = server_factory(hand_pause=600)
    table = await finished_hand(server, seed=23)
    length = len((await get(server, f"/api/rooms/{table.code}/hands/1"))["actions"])
    ann, bob = table.players[0], table.players[1]

    async def refused(client: Client, frame: dict[str, Any], code: str) -> None:
        before = await look(server, table.code)
        await client.send(frame)
        assert (await client.next_error())["code"] == code, frame
        assert await look(server, table.code) == before

    await refused(ann, {**PRACTICE, "step": 0}, "bad_message")  # no review open
    for bad in ({**PRACTICE}, {**PRACTICE, "step": -1}, {**PRACTICE, "step": "0"},
                {**PRACTICE, "step": 0, "hand": 1}):  # fmt: skip
        await refused(ann, bad, "bad_message")
    await ann.send({"type": "review", "op": "open", "hand": 1})
    await all_see(table, lambda f: f["hand"] == 1)
    await refused(bob, {**PRACTICE, "step": 0}, "forbidden")
    await refused(table.watcher, {**PRACTICE, "step": 0}, "forbidden")
    await refused(ann, {**PRACTICE, "step": length + 1}, "bad_message")
    assert not [f for c in table.everyone() for f in c.frames if f["type"] == "practice"]
    # Five practice rooms at once, then the room's budget says no.
    for _ in range(5):
        await ann.send({**PRACTICE, "step": 0})
    codes = {(await practice_frame(bob))["code"] for _ in range(5)}
    assert len(codes) == 5
    await refused(ann, {**PRACTICE, "step": 0}, "rate_limited")
    for client in table.everyone():
        await client.close()
