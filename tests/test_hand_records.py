"""Hand records, the room's history and provably fair deals, black-box over the wire.

Whole games of every variant through a real server: seated test clients commit to fresh
entropy each time they see a new commitment and reveal it when asked (one of them never
does, and is listed as withholding it), play at random, and ask for the record of the hand
in play whenever the game waits for them (always a 404). Afterwards every finished hand's
record is held against what every socket saw of it: its own six cards as dealt, every
bid, the trump, the call, its own discards, every card played in order, the result and
the scores; the commitment shown before the deal is the seed's hash, every value hashes
to its seat's commit (a withheld one is the commit), the deck re-derives from the seed
and that entropy, and deals into exactly those hands. A
rematch starts game 2, numbered on; the history's score sheets and statistics add up.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from schmier import engine
from schmier.rooms import archive, table
from schmier.rooms.record import RoomRecord
from schmier.store import MemoryStore
from tests.support.records import (
    FairTable,
    check_deal,
    check_record,
    hand_in_play_is_unreadable,
    passed_out,
    states_of_socket,
)
from tests.support.servers import Client, Player, ServerFactory
from tests.support.stores import ManualClock

VARIANTS = [
    ("schmier6", [0, 1, 4], {"target": 7}),
    ("schmier5", [0, 2], {"target": 7, "stick_the_dealer": True}),
    ("wisconsin4", [1, 2], {"target": 7, "kitty": 3}),
]
SILENT = 2
"""The seat that commits to its entropy and never reveals it (where a person sits)."""


def over(view: dict[str, Any]) -> bool:
    return bool(view["phase"] == "game_over")


async def play(table: FairTable, done: Any, seed: str) -> None:
    rng = random.Random(seed)

    async def waiting_for_us(view: dict[str, Any]) -> None:
        await hand_in_play_is_unreadable(table, view)

    players = [Player(c, rng, before_act=waiting_for_us) for c in table.clients.values()]
    await asyncio.gather(*(p.play_until(done, 120) for p in players))


@pytest.mark.parametrize(("variant", "humans", "rules"), VARIANTS)
async def test_every_record_is_what_every_seat_saw(
    server_factory: ServerFactory, variant: str, humans: list[int], rules: dict[str, Any]
) -> None:
    # Seat 2 (a person in two of the games) withholds its value: each deal waits out the
    # reveal window, kept short here (1 s: a revealing seat's answer is never late on a busy
    # machine).
    server = server_factory(reveal_ms=1000)
    table = await FairTable.start(server, variant, humans, rules, silent=frozenset({SILENT}))
    assert table.watcher is not None
    await play(table, over, f"records-{variant}")
    await table.watcher.wait_state(over)
    first_game = await table.records()
    assert first_game and first_game[-1]["winners"]

    # A rematch: game 2, its hands numbered on from game 1's.
    last_commitment = first_game[-1]["deal"]["commitment"]
    for seat in humans:  # every seated person confirms the rematch
        await table.clients[seat].send({"type": "rematch"})

    def scored_in_game_two(view: dict[str, Any]) -> bool:
        return view["phase"] in ("hand_over", "game_over") and (
            view["deal"]["commitment"] != last_commitment
        )

    await play(table, scored_in_game_two, f"records-2-{variant}")
    await table.watcher.wait_state(scored_in_game_two)
    records = await table.records()
    assert [r["n"] for r in records] == list(range(1, len(records) + 1))
    assert records[: len(first_game)] == first_game  # a record never changes
    assert {r["game"] for r in records} == {1, 2}
    assert all(r["game"] == 1 for r in first_game)

    seats = engine.seat_count(variant)
    for record in records:
        assert record["variant"] == variant and len(record["hands"]) == seats
        assert record["rules"] == engine.rules_to_json(engine.make_rules(variant, rules))
        assert [s["name"] for s in record["seats"]] == [
            f"Player {k}" if k in humans else f"Bot {k + 1}" for k in range(seats)
        ]
        check_deal(record)
        for seat, client in table.clients.items():
            check_record(record, client, seat, table.entropy[seat].sent)
        check_record(record, table.watcher, None, None)
        for seat in range(seats):
            if seat not in humans:
                assert record["deal"]["entropy"][seat] is None  # bots add nothing
                assert record["deal"]["commits"][seat] is None
        # Every person committed; the silent one withheld its value, the others revealed.
        assert record["deal"]["withheld"] == ([SILENT] if SILENT in humans else [])
        assert all(record["deal"]["commits"][seat] for seat in humans)
    # Every hand dealt is either on the record or was passed out.
    views = states_of_socket(table.watcher)
    recorded = {r["deal"]["commitment"] for r in records}
    commitments = {v["deal"]["commitment"] for v in views if v["deal"]}
    for commitment in commitments - recorded:
        last = next(v for v in reversed(views) if (v["deal"] or {}).get("commitment") == commitment)
        assert last["phase"] in ("bidding", "trump", "discard", "call", "play") or passed_out(
            views, commitment
        )

    history = (await table.get("/history")).json()
    check_history(history, records, variant)
    await table.close()


def check_history(history: dict[str, Any], records: list[dict[str, Any]], variant: str) -> None:
    assert history["variant"] == variant and history["teams"] == engine.teams(variant)
    games = history["games"]
    assert [g["game"] for g in games] == [1, 2]
    for game in games:
        mine = [r for r in records if r["game"] == game["game"]]
        assert [h["n"] for h in game["hands"]] == [r["n"] for r in mine]
        totals = [0] * len(history["teams"])
        for hand, record in zip(game["hands"], mine, strict=True):
            totals = [t + d for t, d in zip(totals, hand["deltas"], strict=True)]
            assert hand["scores"] == totals == record["scores"]
            assert hand["points"] == record["result"]["points"]
        assert game["scores"] == totals
        assert game["seats"] == mine[0]["seats"]
    assert (
        games[0]["over"] and games[0]["winners"] == records[len(games[0]["hands"]) - 1]["winners"]
    )
    players = {p["name"]: p for p in history["players"]}
    assert sum(p["bids"] for p in players.values()) == len(records)
    for player in players.values():
        assert player["made"] + player["set"] == player["bids"]
        assert player["hands"] == sum(
            1 for r in records for s in r["seats"] if s["name"] == player["name"]
        )
    for record in records:
        bidder = record["seats"][record["result"]["bidder"]]["name"]
        assert players[bidder]["bids"] >= 1
    for point in engine.get_variant(variant).points:
        taken = sum(1 for r in records if r["result"]["points"][point] is not None)
        earned = sum(p["earned"][point] for p in players.values())
        assert earned == sum(1 for r in records if r["result"]["by"][point] is not None)
        assert taken >= 0


async def test_unknown_rooms_and_hands(server_factory: ServerFactory) -> None:
    server = server_factory(lookup_fail_rate=4)
    code = await server.create_room("wisconsin4")
    table = FairTable(server, "wisconsin4", {}, code=code)
    assert (await table.get("/hands")).json() == []
    history = (await table.get("/history")).json()
    assert history["games"] == [] and history["players"] == []
    for n in ("1", "0", "abc", "1.0", "٣", "99999999999"):
        assert (await table.get(f"/hands/{n}")).status_code == 404
    # Unknown rooms count as failed look-ups, like every room endpoint.
    statuses = []
    for path in ("/hands", "/hands/1", "/history", "/hands", "/history"):
        other = FairTable(server, "wisconsin4", {}, code="zzzzzzzzzz")
        statuses.append((await other.get(path)).status_code)
    assert statuses == [404, 404, 404, 404, 429]


async def test_records_and_chat_survive_a_restart(
    server_factory: ServerFactory, redis_url: str, redis_prefix: str
) -> None:
    first = server_factory(redis_url=redis_url, redis_prefix=redis_prefix)
    table = await FairTable.start(first, "wisconsin4", [0], {"target": 5})
    await table.clients[0].send({"type": "chat", "text": "good luck"})
    await play(table, over, "restart")
    records = await table.records()
    history = (await table.get("/history")).json()
    await table.close()
    first.stop()

    again = server_factory(redis_url=redis_url, redis_prefix=redis_prefix)
    table.server = again
    assert await table.records() == records
    assert (await table.get("/history")).json() == history
    late = await Client.seated(again, table.code, None)
    assert late.history == [{"seat": 0, "name": "Player 0", "text": "good luck"}]
    await late.close()


async def test_a_book_goes_with_its_room() -> None:
    """The archive folds a stored log into records and forgets a room that expired."""
    clock = ManualClock()
    store = MemoryStore(30.0, clock=clock)
    record = RoomRecord.new("abcdefghij", "wisconsin4", engine.make_rules("wisconsin4"))
    for seat in range(4):
        record = table.add_bot(record, seat).record
    await store.create(record.code, record.to_bytes())
    version = 0
    change = table.start(record, table.SecureShuffler())
    rng = random.Random(1)
    books = archive.Archive(store)
    while True:
        version += 1
        await store.commit(record.code, version, change.stored().to_bytes(), change.log())
        record = change.stored()
        state = record.state
        assert state is not None
        if state.phase == "hand_over":
            break
        seat = state.turn[0]
        legal = engine.legal_actions(state, seat)
        choice = rng.choice(legal)
        if choice["type"] == "discard":
            choice = {"type": "discard", "cards": choice["from"][: choice["min"]]}
        assert (await books.book(record.code)) is not None
        assert (await books.book(record.code)).records == []  # type: ignore[union-attr]
        change = table.act(record, seat, engine.parse_action(choice), table.SecureShuffler())
    book = await books.book(record.code)
    assert book is not None and len(book.records) == 1
    assert book.records[0]["result"] == engine.public_view(state)["last_hand"]
    check_deal(book.records[0])
    clock.advance(31)
    assert await books.book(record.code) is None
