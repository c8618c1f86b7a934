"""Players' moves that reach a room together are committed as one change
(schmier/rooms/moves.py).

The five simultaneous discards of a Schmier hand, sent while the server's loop is held so
that all of them wait in the room's mailbox at once: one commit (one `seq`) shows them
all; each was checked as if applied alone in the order they arrived (the log, replayed,
gives every seat the hand its view shows, and the draws off the stock in that order);
a refused move among them (a card the seat does not hold, a spectator's discard) is
answered to its sender alone while the others stand. And the mailbox: a batch stops at
the first message that is not a move, which stays first in line.
"""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

import orjson
import pytest

from schmier import engine
from schmier.engine import cards
from schmier.protocol import Chat, Discard, Play
from schmier.rooms import mailbox, moves
from tests.support.servers import Client, RunningServer, ServerFactory, concrete, seat_table


@pytest.fixture(params=["memory", "redis"])
def any_server(request: pytest.FixtureRequest, server_factory: ServerFactory) -> RunningServer:
    """A server on the memory store, or on the real Redis."""
    if request.param == "memory":
        return server_factory()
    return server_factory(
        redis_url=request.getfixturevalue("redis_url"),
        redis_prefix=request.getfixturevalue("redis_prefix"),
    )


async def replayed(server: RunningServer, code: str, dealer: int) -> tuple[Any, list[Any]]:
    """The room's engine state replayed from the store's log, and the log's entries."""
    rules = (await server.room(code))["rules"]
    state = engine.new_game("schmier6", engine.make_rules("schmier6", rules), dealer)
    rooms = server.app.state.rooms
    # Read on the server's own loop (its Redis connections belong to it).
    log = asyncio.run_coroutine_threadsafe(rooms.store.read_log(code), rooms.live[code]._loop)
    entries = [orjson.loads(raw) for raw in await asyncio.wrap_future(log)]
    for entry in entries:
        state = engine.apply(state, entry["seat"], entry["action"])
    return state, entries


async def to_the_discards(clients: dict[int, Client]) -> dict[str, Any]:
    """The first seat to bid bids the minimum, the rest pass, the bidder names trump:
    the view of the discard phase (as seat 0 sees it)."""
    frame = await clients[0].wait_state(lambda v: v["phase"] in ("bidding", "trump", "discard"))
    while frame["view"]["phase"] != "discard":
        view = frame["view"]
        seat, phase = view["turn"][0], view["phase"]
        mine = await clients[seat].wait_state(
            lambda v, s=seat, p=phase: v["phase"] == p and s in v["turn"] and bool(v["legal"])
        )
        legal = mine["view"]["legal"]
        if phase == "bidding":
            bids = [a for a in legal if a["type"] == "bid"]
            action = bids[0] if not view["bids"] else {"type": "pass"}
        else:
            action = legal[0]
        await clients[seat].send(concrete(action, random.Random(1)))
        seq = frame["seq"]
        while frame["seq"] <= seq:
            frame = await clients[0].next_state()
    return dict(frame["view"])


async def test_discards_waiting_together_are_one_commit(any_server: RunningServer) -> None:
    server = any_server
    code, clients, watchers, _ = await seat_table(
        server, "schmier6", list(range(6)), rules={"target": 21}, spectators=1
    )
    view = await to_the_discards(clients)
    dealer = view["dealer"]
    discarding = [s for s in range(6) if s != dealer]
    rng = random.Random(5)
    sent: dict[int, dict[str, Any]] = {}
    for seat in discarding:
        mine = await clients[seat].wait_state(lambda v, s=seat: s in v["turn"] and v["legal"])
        template = next(a for a in mine["view"]["legal"] if a["type"] == "discard")
        # At least one card where the seat holds one it may discard (a draw off the
        # stock each), none where every card is a trump (`max` 0: the deal decides).
        least = min(max(1, template["min"]), template["max"])
        sent[seat] = concrete({**template, "min": least}, rng)
    before = (await watchers[0].wait_state(lambda v: v["phase"] == "discard"))["seq"]
    # A card seat `wrong` does not hold: refused, and its real discard right behind it.
    wrong = discarding[0]
    mine = clients[wrong].state
    assert mine is not None
    not_held = next(
        c
        for c in cards.CARD_NAMES
        if c not in mine["view"]["hand"] and c not in sent[wrong]["cards"]
    )

    # Hold the server's loop while every frame is written, so all wait in the mailbox.
    room = server.app.state.rooms.live[code]
    held, written = threading.Event(), threading.Event()

    def hold() -> None:
        held.set()
        written.wait(10)

    room._loop.call_soon_threadsafe(hold)
    assert await asyncio.to_thread(held.wait, 10)
    await watchers[0].send({"type": "discard", "cards": []})
    await clients[wrong].send({"type": "discard", "cards": [not_held]})
    for seat in discarding:
        await clients[seat].send(sent[seat])
    await asyncio.sleep(0.2)  # in the server's kernel buffers
    written.set()

    # The refusals are answered first (before the commit of the others).
    assert (await clients[wrong].next_error())["code"] == "illegal"
    assert (await watchers[0].next_error())["code"] == "forbidden"
    after = await watchers[0].wait_state(lambda v: v["phase"] != "discard" or v["turn"] == [dealer])
    assert after["seq"] == before + 1, "the five discards came as one change"
    assert after["view"]["turn"] == [dealer]

    state, entries = await replayed(server, code, dealer)  # the game's first hand
    discards = [e for e in entries if e["action"]["type"] == "discard"]
    assert sorted(e["seat"] for e in discards) == discarding
    for entry in discards:
        assert entry["action"]["cards"] == sent[entry["seat"]]["cards"]
    for seat in discarding:
        final = await clients[seat].wait_state(lambda v: v["turn"] == [dealer])
        assert sorted(final["view"]["hand"]) == sorted(cards.names(state.hands[seat]))
    for client in [*clients.values(), *watchers]:
        await client.close()


class FakePeer:
    """Only identity matters to the mailbox."""


def test_a_batch_stops_at_the_first_message_that_is_not_a_move() -> None:
    async def run() -> None:
        box = mailbox.Mailbox()
        peer: Any = FakePeer()
        first = mailbox.Frame(peer, Play(type="play", card="AS"))
        second = mailbox.Frame(peer, Discard(type="discard", cards=["2S"]))
        chat = mailbox.Frame(peer, Chat(type="chat", text="hi"))
        third = mailbox.Frame(peer, Play(type="play", card="KS"))
        for message in (first, second, chat, third):
            box.put_nowait(message)
        assert await box.get() is first
        assert moves.waiting(first, box) == [first, second]
        assert not box.empty()
        assert await box.get() is chat
        assert await box.get() is third
        assert moves.waiting(third, box) == [third]
        assert box.empty()

    asyncio.run(run())
