"""The shared review tells nobody anything of a hand in play.

A table of three people and a spectator plays a whole game. Before each of their actions
(a hand in play) every person tries every review op, the `open` of the hand in play and
of the hands around it included: each is refused and changes nothing. At each scored
hand the first person opens the review of that hand, steps through all of it pointing at
cards, hands the lead on, and the new leader closes it; then the table plays the first
hand again from its middle in a practice room, with a spectator there too. Afterwards:

- every state frame of every socket is the engine's redacted view of a true state
  (`check_client`), so the review never put a card into a view;
- a `review` frame naming a hand came only while no hand was in play (the last state
  before it was a scored hand), named a finished hand and a step within its record,
  and pointed only at what the leader pointed at;
- every error message names only cards its receiver sent;
- every state frame of the practice room, to its players and its spectator, is the
  engine's redacted view of a true state of the practice room (replayed from its log),
  and the practice hand was dealt exactly the original's cards: a practice of a finished
  hand shows nothing its record does not;
- only the seated players got a `practice` frame, each with its own seat.
"""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable
from typing import Any

from schmier.rooms.practice import position
from tests.support import loopback
from tests.support.records import Committer
from tests.support.secrecy import states_of
from tests.support.servers import Client, Player, RunningServer, ServerFactory, play_all, seat_table
from tests.test_review_together import review_where
from tests.test_secrecy_server import check_client, read_log

SCORED = ("hand_over", "game_over")
POINTED = ("AS", "7H", "X1")


def probes(hand: int) -> list[dict[str, Any]]:
    """Every review op, with the hands around `hand` (the one in play) for `open`."""
    opens = [{"type": "review", "op": "open", "hand": n} for n in (hand - 1, hand, hand + 1)]
    return [
        *[o for o in opens if o["hand"] >= 1],
        {"type": "review", "op": "step", "step": 3},
        {"type": "review", "op": "point", "card": "AS"},
        {"type": "review", "op": "lead", "seat": 1},
        {"type": "review", "op": "join"},
        {"type": "review", "op": "follow", "follow": True},
        {"type": "review", "op": "close"},
    ]


def check_reviews(client: Client, lengths: list[int]) -> int:
    """Every `review` frame of `client` against the states before it; how many named a
    hand."""
    phase = "lobby"
    named = 0
    for frame in client.frames:
        if frame["type"] == "state":
            phase = frame["view"]["phase"]
        elif frame["type"] == "review" and frame["hand"] is not None:
            assert phase in SCORED, f"a review during a hand in play: {frame}"
            assert 1 <= frame["hand"] <= len(lengths)
            assert 0 <= frame["step"] <= lengths[frame["hand"] - 1]
            assert frame["point"] in (None, *POINTED)
            assert set(frame) == {"type", "hand", "leader", "step", "point", "following",
                                  "wandering"}  # fmt: skip
            named += 1
    return named


CARD_ANYWHERE = re.compile(r"\b(?:[2-9TJQKA][SHDC]|X[12])\b")


def check_errors(client: Client) -> None:
    """Error messages name only cards the receiver sent (the pointer's)."""
    for frame in client.frames:
        if frame["type"] == "error":
            assert set(CARD_ANYWHERE.findall(frame["message"])) <= set(POINTED), frame


def scored_so_far(client: Client) -> int:
    """The hands this client saw scored (each has a record; a passed hand has none)."""
    count, before = 0, "lobby"
    for frame in client.frames:
        if frame["type"] == "state":
            phase = frame["view"]["phase"]
            count += phase in SCORED and before not in SCORED
            before = phase
    return count


async def reviews_closed(client: Client, times: int) -> None:
    """Read until `client` has seen the review closed `times` times."""

    def closes() -> int:
        return sum(1 for f in client.frames if f["type"] == "review" and f["hand"] is None)

    while closes() < times:
        await client.recv()


async def test_the_shared_review_reveals_nothing_of_a_hand_in_play(
    server_factory: ServerFactory,
) -> None:
    server = server_factory()
    rules = {"target": 7}
    rng = random.Random("secrecy-review")
    humans = [0, 1, 2]

    def commit(seat: int, client: Client) -> None:
        Committer.attach(client, rng)

    code, clients, watchers, _ = await seat_table(
        server, "wisconsin4", humans, rules=rules, spectators=1, on_connect=commit
    )
    watcher = watchers[0]
    probed = 0

    def before_act(seat: int) -> Callable[[dict[str, Any]], Awaitable[None]]:
        client = clients[seat]

        async def probe(view: dict[str, Any]) -> None:
            # A hand is in play and waits for this seat (that nothing changes with a
            # refusal is `test_review_together`'s to show; here others play meanwhile).
            nonlocal probed
            for frame in probes(scored_so_far(client) + 1):
                await client.send(frame)
                error = await client.next_error()
                assert error["code"] in ("bad_message", "forbidden"), (frame, error)
                probed += 1
            await watcher.send({"type": "review", "op": "open", "hand": 1})
            assert (await watcher.next_error())["code"] == "forbidden"

        return probe

    players = [Player(clients[s], rng, before_act=before_act(s)) for s in humans]
    await play_all(players, lambda v: v["phase"] == "game_over", timeout=300)
    assert probed > 20
    async with loopback.async_client(base_url=server.base_url) as http:
        listed = (await http.get(f"/api/rooms/{code}/hands")).json()
        records = [(await http.get(f"/api/rooms/{code}/hands/{h['n']}")).json() for h in listed]
    lengths = [len(r["actions"]) for r in records]
    assert len(lengths) >= 2
    # At game over: the review of every hand, stepped through, pointed at, led on.
    ann, bob = clients[0], clients[1]
    for n, length in enumerate(lengths, start=1):
        await ann.send({"type": "review", "op": "open", "hand": n})
        await review_where(bob, lambda f, n=n: f["hand"] == n)
        await bob.send({"type": "review", "op": "join"})
        for step in range(length + 1):
            await ann.send({"type": "review", "op": "step", "step": step})
            await ann.send({"type": "review", "op": "point", "card": POINTED[step % 3]})
        await ann.send({"type": "review", "op": "lead", "seat": 1})
        await review_where(bob, lambda f: f["leader"] == 1)
        await bob.send({"type": "review", "op": "close"})
        await review_where(ann, lambda f: f["hand"] is None)
    for client in [*clients.values(), watcher]:
        await reviews_closed(client, 1 + len(lengths))  # the first frame, then each close
    await check_a_practice(server, clients, watcher, records[0])
    log = await read_log(server, code)
    first = next(
        f["view"] for f in ann.frames if f["type"] == "state" and f["view"]["phase"] != "lobby"
    )
    states = states_of("wisconsin4", rules, first["dealer"], log)
    for seat, client in clients.items():
        assert check_client(client, seat, states) > 10
        assert check_reviews(client, lengths) > sum(lengths)
        check_errors(client)
    assert check_client(watcher, None, states) > 10
    assert check_reviews(watcher, lengths) > sum(lengths)
    check_errors(watcher)
    for client in [*clients.values(), watcher]:
        await client.close()


async def check_a_practice(
    server: RunningServer, clients: dict[int, Client], watcher: Client, hand: dict[str, Any]
) -> None:
    """Hand 1 played again from its middle: every frame there is a true redacted view."""
    ann = clients[0]
    await ann.send({"type": "review", "op": "open", "hand": 1})
    await review_where(ann, lambda f: f["hand"] == 1)
    step = len(hand["actions"]) // 2
    await ann.send({"type": "review", "op": "practice", "step": step})
    got = {}
    for seat, client in clients.items():
        while (frame := await client.recv())["type"] != "practice":
            pass
        got[seat] = frame
        assert frame["seat"] == seat
    assert not [f for f in watcher.frames if f["type"] == "practice"]
    code = got[0]["code"]
    players = {k: await Client.seated(server, code, f["token"]) for k, f in got.items()}
    onlooker = await Client.seated(server, code, None)
    rng = random.Random("practice")
    await play_all([Player(c, rng) for c in players.values()], lambda v: v["phase"] in SCORED)
    await onlooker.wait_state(lambda v: v["phase"] in SCORED)
    log = await read_log(server, code)
    states = states_of("wisconsin4", hand["rules"], hand["dealer"], log)
    assert states[1].hands == position(hand, 0)[0].hands  # the original's deal
    for seat, client in players.items():
        assert check_client(client, seat, states) > 3
        for frame in client.frames:
            if frame["type"] == "state" and "original" in frame["view"]:
                assert frame["view"]["original"] == hand["result"]
    assert check_client(onlooker, None, states) > 3
    for client in [*players.values(), onlooker]:
        await client.close()
