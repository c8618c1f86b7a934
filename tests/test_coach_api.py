"""`GET /api/rooms/{code}/hands/{n}/analysis` over a real server, for each game.

A game is played to its end by a test client and the bots; each finished hand's
analysis is asked for: 202 with its progress (and a `Retry-After`) while computed, then
200 with every decision of the hand that had a choice, as docs/protocol.md says; 404
exactly where the record is; computed once; the room's quota refuses with 429 and a
`Retry-After`, and polling never counts, nor does only looking (`start=0`, a 204 where
nobody computes it); with Redis it survives a restart.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest

from schmier.coach import marks
from schmier.coach.decisions import choices
from tests.support import loopback
from tests.support.secrecy import ask_hint, check_hints
from tests.support.servers import Player, RunningServer, ServerFactory, play_all, seat_table

VARIANTS = ["schmier6", "schmier5", "wisconsin4"]


async def finished_game(server: RunningServer, variant: str, seed: str, target: int = 5) -> str:
    """A room whose game (to `target`) a random test client and the bots have played out."""
    code, clients, _, _ = await seat_table(server, variant, [0], rules={"target": target})
    players = [Player(c, random.Random(seed)) for c in clients.values()]
    await play_all(players, lambda v: v["phase"] == "game_over", 180)
    for client in clients.values():
        await client.close()
    return code


async def analysed(http: httpx.AsyncClient, code: str, n: int) -> dict[str, Any]:
    """Poll hand `n`'s analysis until it is done (each 202 checked on the way)."""
    for _ in range(3000):
        answer = await http.get(f"/api/rooms/{code}/hands/{n}/analysis")
        if answer.status_code == 200:
            body: dict[str, Any] = answer.json()
            return body
        assert answer.status_code == 202, answer.text
        progress = answer.json()
        assert progress["status"] == "pending"
        assert 0 <= progress["done"] <= progress["total"]
        assert int(answer.headers["Retry-After"]) >= 1
        await asyncio.sleep(0.05)
    raise AssertionError("the analysis never finished")


def check_analysis(analysis: dict[str, Any], record: dict[str, Any]) -> None:
    """The 200 answer against the hand's record (docs/protocol.md's promises)."""
    assert analysis["n"] == record["n"]
    assert [d["i"] for d in analysis["decisions"]] == choices(record)
    for d in analysis["decisions"]:
        entry = record["actions"][d["i"]]
        assert d["seat"] == entry["seat"] and d["played"] == entry["action"]
        kind = entry["action"]["type"]
        assert d["kind"] == ("bid" if kind == "pass" else kind)
        values = {repr(o["action"]): o["value"] for o in d["options"]}
        for o in d["options"]:
            assert isinstance(o["value"], float | int) and isinstance(
                o["value_all_cards"], float | int
            )
        assert values[repr(d["best"])] == max(values.values())
        assert d["loss"] == pytest.approx(
            values[repr(d["best"])] - values[repr(d["played"])], abs=0.001
        )
        assert d["mark"] == marks.mark(d["loss"])
    seats = len(record["hands"])
    assert [p["seat"] for p in analysis["players"]] == list(range(seats))
    for p in analysis["players"]:
        assert p["name"] == record["seats"][p["seat"]]["name"]
        mine = sum(d["loss"] for d in analysis["decisions"] if d["seat"] == p["seat"])
        assert p["loss"] == pytest.approx(mine, abs=0.001) and 0 <= p["accuracy"] <= 100


@pytest.mark.parametrize("variant", VARIANTS)
async def test_every_finished_hand_is_analysed_once(
    server_factory: ServerFactory, variant: str
) -> None:
    server = server_factory(analysis_room_burst=50)
    code = await finished_game(server, variant, f"coach-{variant}")
    async with loopback.async_client(base_url=server.base_url) as http:
        listed = (await http.get(f"/api/rooms/{code}/hands")).json()
        assert listed
        first = await http.get(f"/api/rooms/{code}/hands/1/analysis")
        assert first.status_code == 202 and first.headers["Retry-After"] == "1"
        assert first.json()["total"] == len(
            choices((await http.get(f"/api/rooms/{code}/hands/1")).json())
        )
        losses: dict[int, list[float]] = {}
        for hand in listed[:2]:
            n = hand["n"]
            record = (await http.get(f"/api/rooms/{code}/hands/{n}")).json()
            # Asked by several at once: one analysis is started, and counted, all the same.
            path = f"/api/rooms/{code}/hands/{n}/analysis"
            at_once = await asyncio.gather(*(http.get(path) for _ in range(4)))
            assert {a.status_code for a in at_once} <= {200, 202}
            analysis = await analysed(http, code, n)
            check_analysis(analysis, record)
            again = await http.get(f"/api/rooms/{code}/hands/{n}/analysis")
            assert again.status_code == 200 and again.json() == analysis
            for d in analysis["decisions"]:
                losses.setdefault(d["seat"], []).append(d["loss"])
        # The room's history: each seat's accuracy over the game's analysed hands.
        game = (await http.get(f"/api/rooms/{code}/history")).json()["games"][0]
        seats = len(record["hands"])
        assert [a["seat"] for a in game["accuracy"]] == list(range(seats))
        for a in game["accuracy"]:
            assert a["hands"] == min(2, len(listed))
            assert a["accuracy"] == marks.mean_accuracy(losses.get(a["seat"], []))
            assert a["name"] == game["seats"][a["seat"]]["name"]
        for n in (str(len(listed) + 1), "0", "abc", "1.0", "99999999999"):
            assert (await http.get(f"/api/rooms/{code}/hands/{n}/analysis")).status_code == 404
        assert (await http.get("/api/rooms/zzzzzzzz/hands/1/analysis")).status_code == 404
    assert server.app.state.analyses.started == min(2, len(listed))


async def test_the_rooms_quota_refuses_with_a_time_and_polling_is_free(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(analysis_room_burst=1, analysis_room_rate=0.01)
    code = await finished_game(server, "wisconsin4", "coach-quota", target=15)
    async with loopback.async_client(base_url=server.base_url) as http:
        listed = (await http.get(f"/api/rooms/{code}/hands")).json()
        assert len(listed) >= 2
        # Only looking (`start=0`) starts nothing and costs nothing: a 204, twice.
        for _ in range(2):
            looked = await http.get(f"/api/rooms/{code}/hands/1/analysis?start=0")
            assert looked.status_code == 204 and looked.content == b""
        assert server.app.state.analyses.started == 0
        for bad in ("2", "yes", "", "01"):
            wrong = await http.get(f"/api/rooms/{code}/hands/1/analysis?start={bad}")
            assert wrong.status_code == 422, (bad, wrong.text)
        assert server.app.state.analyses.started == 0
        assert (await http.get(f"/api/rooms/{code}/hands/1/analysis")).status_code in (200, 202)
        refused = await http.get(f"/api/rooms/{code}/hands/2/analysis")
        assert refused.status_code == 429, refused.text
        assert int(refused.headers["Retry-After"]) > 60
        assert refused.json()["retry_after"] == int(refused.headers["Retry-After"])
        # Looking at the one being computed shows its progress; at the refused one, a 204.
        looked = await http.get(f"/api/rooms/{code}/hands/1/analysis?start=0")
        assert looked.status_code in (200, 202), looked.text
        if looked.status_code == 202:
            assert looked.json()["status"] == "pending"
        looked = await http.get(f"/api/rooms/{code}/hands/2/analysis?start=0")
        assert looked.status_code == 204
        analysis = await analysed(http, code, 1)  # polling the first never counts
        looked = await http.get(f"/api/rooms/{code}/hands/1/analysis?start=0")
        assert looked.status_code == 200 and looked.json() == analysis
        assert (await http.get(f"/api/rooms/{code}/hands/2/analysis")).status_code == 429
        missing = await http.get(f"/api/rooms/{code}/hands/{len(listed) + 1}/analysis?start=0")
        assert missing.status_code == 404
    assert server.app.state.analyses.started == 1


async def test_an_analysis_is_kept_across_a_restart(
    server_factory: ServerFactory, redis_url: str, redis_prefix: str
) -> None:
    first = server_factory(redis_url=redis_url, redis_prefix=redis_prefix)
    code = await finished_game(first, "schmier5", "coach-restart")
    async with loopback.async_client(base_url=first.base_url) as http:
        analysis = await analysed(http, code, 1)
    first.stop()
    again = server_factory(redis_url=redis_url, redis_prefix=redis_prefix)
    async with loopback.async_client(base_url=again.base_url) as http:
        kept = await http.get(f"/api/rooms/{code}/hands/1/analysis")
    assert kept.status_code == 200 and kept.json() == analysis
    assert again.app.state.analyses.started == 0


async def test_a_hint_of_the_search_says_why(server_factory: ServerFactory) -> None:
    """With `strong` as the default bot, a hint on a card or a trump carries the values of
    the options the search weighed, the hinted one the best of them."""
    server = server_factory(default_bot="strong")
    _, clients, _, _ = await seat_table(server, "wisconsin4", [0], rules={"target": 5})
    client = clients[0]

    async def hinted(view: dict[str, Any]) -> None:
        await ask_hint(client)

    player = Player(client, random.Random("coach-hint"), before_act=hinted)
    await player.play_until(
        lambda v: v["phase"] in ("hand_over", "game_over") or v["scores"] != [0, 0], 120
    )
    assert check_hints(client.frames) > 3
    explained = [f for f in client.frames if f["type"] == "hint" and "options" in f]
    assert explained, "no hint carried its options"
    for frame in explained:
        values = [o["value"] for o in frame["options"]]
        assert values == sorted(values, reverse=True) and len(values) >= 2
        assert frame["action"] in [o["action"] for o in frame["options"]]
        chosen = next(o["value"] for o in frame["options"] if o["action"] == frame["action"])
        assert chosen == pytest.approx(values[0], abs=0.0011)
    await client.close()
