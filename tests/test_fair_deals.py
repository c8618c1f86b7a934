"""Fair deals even when the server's operator plays: commit-reveal of the players'
entropy, over the wire, black-box (docs/fairness.md, docs/protocol.md).

A host who plays can read the next deck's server seed from the store (the test does
exactly that, in both stores) and grind a value for its own entropy offline: the value
is refused unless it answers a reveal, and by then every commit is fixed, so the deck
follows the other players' values too. A seat that commits and goes silent gets its
commit as its entropy and is listed in `withheld`; a commit once the reveal began, a
value whose hash is not the seat's commit, and a value outside the window are refused
and change nothing. The reveal is kept with the room: a server restarted in the middle
of it goes on with it and asks the players again.

Each game uses `stick_the_dealer`, so that its first deal is never passed out: hand 1's
record is the deal the test watched being revealed.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
import redis.asyncio

from schmier.engine import fairness
from schmier.engine.cards import CARD_NAMES
from schmier.rooms.record import RoomRecord
from tests.support import loopback
from tests.support.records import Committer, check_deal
from tests.support.servers import Client, Player, RunningServer, ServerFactory, eventually

RULES = {"target": 5, "stick_the_dealer": True}


def scored(view: dict[str, Any]) -> bool:
    return view["phase"] in ("hand_over", "game_over")


def dealt(view: dict[str, Any]) -> bool:
    return view["phase"] not in ("lobby", "deal")


async def stored_room(server: RunningServer, code: str, redis_url: str | None) -> RoomRecord:
    """The room as its store holds it, read as the server's operator could: the memory
    store through the server's process, Redis straight from the room's key."""
    if redis_url is None:
        stored = await server.app.state.rooms.store.load(code)
        assert stored is not None
        return RoomRecord.from_bytes(stored.snapshot)
    assert server.settings is not None
    client = redis.asyncio.Redis.from_url(redis_url)
    try:
        raw = await client.hget(f"{server.settings.redis_prefix}room:{{{code}}}", "snapshot")
    finally:
        await client.aclose()
    assert raw is not None
    return RoomRecord.from_bytes(raw)


async def answers_to(client: Client, frame: dict[str, Any]) -> list[dict[str, Any]]:
    """Send `frame`, then a chat line; the frames that came before the chat line came
    back (a room answers a socket's frames in order). Called while nothing else happens
    in the room, so they are the answer to `frame` alone."""
    await client.send(frame)
    await client.send({"type": "chat", "text": "ping"})
    frames = []
    while (got := await client.recv())["type"] != "chat":
        frames.append(got)
    return frames


async def refused(client: Client, frame: dict[str, Any]) -> None:
    """`frame` is answered `bad_message` and changed nothing (no state followed)."""
    answers = await answers_to(client, frame)
    assert [(f["type"], f.get("code")) for f in answers] == [("error", "bad_message")], answers


async def next_of(client: Client, kind: str) -> dict[str, Any]:
    """The next frame of `kind` (an error on the way fails)."""
    while (frame := await client.recv())["type"] != kind:
        assert frame["type"] != "error", frame
    return frame


async def connected(server: RunningServer, code: str, seat: int) -> tuple[Client, str]:
    """A socket for a new player at `seat`, not yet said hello; its token."""
    _, token = await server.join(code, f"Player {seat}", seat)
    return await Client.connect(server.ws_url(code)), token


async def fill_and_start(client: Client, bots: list[int]) -> None:
    for seat in bots:
        await client.send({"type": "add_bot", "seat": seat})
    await client.wait_state(lambda v: {"type": "start"} in v["legal"])
    await client.send({"type": "start"})


async def first_record(server: RunningServer, code: str) -> dict[str, Any]:
    async with loopback.async_client(base_url=server.base_url) as http:
        answer = await http.get(f"/api/rooms/{code}/hands/1")
    assert answer.status_code == 200, answer.text
    record: dict[str, Any] = answer.json()
    check_deal(record)
    return record


def deck(record: dict[str, Any], entropy: list[str | None]) -> list[str]:
    seed = record["deal"]["server_seed"]
    return [CARD_NAMES[c] for c in fairness.fair_deck(record["variant"], seed, entropy)]


async def play_first_hand(*clients: Client) -> None:
    rng = random.Random("first hand")
    await asyncio.gather(*(Player(c, rng).play_until(scored, 30) for c in clients))


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_a_host_who_knows_the_seed_cannot_choose_the_deck(
    server_factory: ServerFactory, store: str, request: pytest.FixtureRequest
) -> None:
    """The host reads the first deck's seed from the store and grinds a value that puts
    both jokers among the first twelve cards dealt; sent as plain entropy it is refused
    (in the lobby and during the game). Committed, and revealed when asked, it goes in
    beside the friend's value, committed before anyone revealed: the deck is the
    formula's with both values, not the one ground for.

    The window is a minute long, and the game still goes on at once after each reveal:
    a deal waits only until every committed seat has answered (one round trip)."""
    options: dict[str, Any] = {"reveal_ms": 60_000, "chat_burst": 100}
    redis_url = None
    if store == "redis":
        redis_url = options["redis_url"] = request.getfixturevalue("redis_url")
        options["redis_prefix"] = request.getfixturevalue("redis_prefix")
    server = server_factory(**options)
    code = await server.create_room("wisconsin4", RULES)
    host, host_token = await connected(server, code, 0)
    friend, friend_token = await connected(server, code, 1)
    pal = Committer.attach(friend, random.Random(f"friend-{store}"))
    await host.hello(host_token)
    await friend.hello(friend_token)
    await host.wait_state(lambda v: v["next_deal"]["committed"] == [1])

    pending = (await stored_room(server, code, redis_url)).next_deal
    assert pending is not None
    seed = pending.server_seed
    jokers = set(fairness.canonical_deck("wisconsin4")[-2:])
    ground = next(
        value
        for value in (f"{k:016x}" for k in range(100_000))
        if jokers <= set(fairness.fair_deck("wisconsin4", seed, [value, None, None, None])[:12])
    )
    await refused(host, {"type": "entropy", "value": ground})

    commit = fairness.entropy_commit(ground)
    await host.send({"type": "entropy", "commit": commit})
    await host.wait_state(lambda v: v["next_deal"]["committed"] == [0, 1])
    await fill_and_start(host, [2, 3])
    reveal = await next_of(host, "reveal")
    assert host.state is not None
    waiting = host.state["view"]
    assert waiting["phase"] == "deal" and waiting["next_deal"]["revealing"]
    assert reveal == {"type": "reveal", "commitment": pending.commitment}
    await host.send({"type": "entropy", "value": ground})
    view = (await host.wait_state(dealt))["view"]
    assert view["deal"]["commitment"] == pending.commitment

    # With the next deck's seed in hand, during the game: refused again. (The room
    # waits for the host or the friend, neither of whom acts yet, and the friend has
    # committed to the next deck: nothing else happens meanwhile.)
    await host.wait_state(lambda v: v["turn"] in ([0], [1]) and v["next_deal"]["committed"] == [1])
    after = (await stored_room(server, code, redis_url)).next_deal
    assert after is not None and after.commitment != pending.commitment
    await refused(host, {"type": "entropy", "value": ground})

    await play_first_hand(host, friend)
    record = await first_record(server, code)
    mine = pal.sent[pending.commitment]
    deal = record["deal"]
    assert deal["commitment"] == pending.commitment
    assert deal["entropy"] == [ground, mine, None, None]
    assert deal["commits"] == [commit, fairness.entropy_commit(mine), None, None]
    assert deal["withheld"] == []
    assert deal["deck"] == deck(record, [ground, mine, None, None])
    assert deal["deck"] != deck(record, [ground, None, None, None])
    for client in (host, friend):
        await client.close()


async def test_a_silent_seat_and_a_seat_that_misbehaves(server_factory: ServerFactory) -> None:
    """Seat 0 commits and never reveals: the deal comes when the window closes, with its
    commit as its entropy, and it is listed in `withheld`. Seat 3 tries everything
    wrong first: a value before the reveal, a new commit during it, a value that is not
    its commit's; each is refused and changes nothing. Its right value is taken once
    (sent again, nothing happens)."""
    server = server_factory(reveal_ms=1500, chat_burst=100)  # chat lines mark the answers
    code = await server.create_room("schmier6", RULES)
    quiet_client, quiet_token = await connected(server, code, 0)
    bad_client, bad_token = await connected(server, code, 3)
    rng = random.Random("silent")
    silent = Committer.attach(quiet_client, rng, withhold=True)
    bad = Committer.attach(bad_client, rng, withhold=True)  # answers by hand below
    await quiet_client.hello(quiet_token)
    await bad_client.hello(bad_token)
    await bad_client.wait_state(lambda v: v["next_deal"]["committed"] == [0, 3])
    assert bad.last is not None and silent.last is not None
    await refused(bad_client, {"type": "entropy", "value": bad.last})
    # The same commit again changes nothing: no state, no error.
    again = {"type": "entropy", "commit": fairness.entropy_commit(bad.last)}
    assert await answers_to(bad_client, again) == []

    await fill_and_start(bad_client, [1, 2, 4, 5])
    reveal = await next_of(bad_client, "reveal")
    assert (await next_of(quiet_client, "reveal")) == reveal
    await refused(bad_client, {"type": "entropy", "commit": fairness.entropy_commit("ab" * 8)})
    await refused(bad_client, {"type": "entropy", "value": "ab" * 8})
    taken = await answers_to(bad_client, {"type": "entropy", "value": bad.last})
    assert [f["type"] for f in taken] == ["state"]
    assert taken[0]["view"]["phase"] == "deal"  # seat 0 is still awaited
    assert await answers_to(bad_client, {"type": "entropy", "value": bad.last}) == []
    bad.withhold = False
    view = (await bad_client.wait_state(dealt))["view"]
    assert view["deal"]["commitment"] == reveal["commitment"]

    await play_first_hand(quiet_client, bad_client)
    deal = (await first_record(server, code))["deal"]
    assert deal["commitment"] == reveal["commitment"]
    commits: list[str | None] = [None] * 6
    commits[0] = fairness.entropy_commit(silent.sent[reveal["commitment"]])
    commits[3] = fairness.entropy_commit(bad.sent[reveal["commitment"]])
    assert deal["commits"] == commits
    assert deal["withheld"] == [0]
    assert deal["entropy"] == [commits[0], None, None, bad.sent[reveal["commitment"]], None, None]
    for client in (quiet_client, bad_client):
        await client.close()


async def test_a_restart_in_the_middle_of_a_reveal_goes_on_with_it(
    server_factory: ServerFactory, redis_url: str, redis_prefix: str
) -> None:
    """The reveal is stored with the room: a value revealed before the server stopped
    counts, and the new server asks the seat still awaited again when it comes back
    (its secret kept, as the browser's tab keeps it) and deals once it has answered."""
    options = {"redis_url": redis_url, "redis_prefix": redis_prefix, "reveal_ms": 60_000}
    first = server_factory(**options)
    code = await first.create_room("wisconsin4", RULES)
    sockets = {seat: await connected(first, code, seat) for seat in (0, 1)}
    rng = random.Random("restart")
    committers = {s: Committer.attach(c, rng, withhold=s == 0) for s, (c, _) in sockets.items()}
    for client, token in sockets.values():
        await client.hello(token)
    ann, bob = sockets[0][0], sockets[1][0]
    await bob.wait_state(lambda v: v["next_deal"]["committed"] == [0, 1])
    await fill_and_start(bob, [2, 3])
    reveal = await next_of(ann, "reveal")

    # Bob reveals at once: the stored room holds his value, and the window.
    async def bob_revealed() -> bool:
        pending = (await stored_room(first, code, redis_url)).next_deal
        return pending is not None and pending.waiting() == [0]

    await eventually(bob_revealed)
    pending = (await stored_room(first, code, redis_url)).next_deal
    assert pending is not None and pending.revealing and pending.reveal_until is not None
    assert pending.values[1] == committers[1].sent[reveal["commitment"]]
    first.stop()
    assert await ann.closed() == 1012

    second = server_factory(**options)
    clients = {}
    for seat in sockets:
        clients[seat] = await Client.connect(second.ws_url(code))
        committers[seat].hook(clients[seat])
    committers[0].withhold = False
    for seat, (_, token) in sockets.items():
        await clients[seat].hello(token)
    view = (await clients[0].wait_state(dealt))["view"]
    assert view["deal"]["commitment"] == reveal["commitment"]

    await play_first_hand(*clients.values())
    deal = (await first_record(second, code))["deal"]
    values = [committers[s].sent[reveal["commitment"]] for s in (0, 1)]
    assert deal["entropy"] == [*values, None, None] and deal["withheld"] == []
    for client in clients.values():
        await client.close()
