"""Review together (docs/protocol.md, "Review together"), over real sockets to a real
server: a seated player opens the shared review of a finished hand and leads; everybody
in the room (players and the spectator) gets the leader's step and pointer; the lead
passes on, by hand or when the leader stays away; the leader closes it; while it is open
the room deals no next hand. Every op's bad input is refused with a clear error and
changes nothing. With Redis, a server killed by SIGKILL resumes the review at its step,
and a practice room made from it is where it was; another instance's sockets see the
same step.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support import loopback
from tests.support.cluster import Cluster
from tests.support.servers import (
    Client,
    Player,
    RunningServer,
    ServerFactory,
    eventually,
    play_all,
    seat_table,
    start_subprocess_server,
)

SCORED = ("hand_over", "game_over")


@dataclass
class Table:
    """Three people at a wisconsin4 table (a bot in seat 3) and a spectator, the first
    hand over (the score stays up: the hand pause is long)."""

    code: str
    players: dict[int, Client]
    watcher: Client
    tokens: dict[int, str]

    def everyone(self) -> list[Client]:
        return [*self.players.values(), self.watcher]


async def finished_hand(server: RunningServer, seed: int = 5) -> Table:
    code, clients, watchers, tokens = await seat_table(
        server, "wisconsin4", [0, 1, 2], rules={"target": 11}, spectators=1
    )
    rng = random.Random(seed)
    await play_all([Player(c, rng) for c in clients.values()], lambda v: v["phase"] in SCORED)
    await watchers[0].wait_state(lambda v: v["phase"] in SCORED)
    return Table(code, clients, watchers[0], tokens)


async def review_where(
    client: Client, check: Callable[[dict[str, Any]], bool], timeout: float = 10
) -> dict[str, Any]:
    """The next `review` frame of `client` for which `check` holds (others skipped)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        frame = await client.recv(max(left, 0.01))
        if frame["type"] == "review" and check(frame):
            return frame


async def all_see(table: Table, check: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    return list(await asyncio.gather(*(review_where(c, check) for c in table.everyone())))


async def look(server: RunningServer, code: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """(seq, view, review) as a fresh spectator sees the room now."""
    watcher = await Client.seated(server, code, None)
    await watcher.close()
    assert watcher.state is not None and watcher.review is not None
    return watcher.state["seq"], watcher.state["view"], watcher.review


async def record_length(server: RunningServer, code: str, n: int) -> int:
    """The number of actions in finished hand `n`'s record (the review's last step)."""
    async with loopback.async_client(base_url=server.base_url) as http:
        answer = await http.get(f"/api/rooms/{code}/hands/{n}")
    assert answer.status_code == 200
    return len(answer.json()["actions"])


async def test_the_table_follows_the_leader(server_factory: ServerFactory) -> None:
    server = server_factory(hand_pause=600)
    table = await finished_hand(server)
    ann, bob, cat = (table.players[k] for k in (0, 1, 2))
    length = await record_length(server, table.code, 1)
    seq, view, review = await look(server, table.code)
    assert review["hand"] is None and view["phase"] == "hand_over"

    await bob.send({"type": "review", "op": "open", "hand": 1})
    seen = await all_see(table, lambda f: f["hand"] == 1)
    assert all(f["leader"] == 1 and f["step"] == 0 and f["point"] is None for f in seen)
    # Cat looks on, following; Ann steps on her own.
    await cat.send({"type": "review", "op": "join"})
    await all_see(table, lambda f: f["following"] == [2])
    await ann.send({"type": "review", "op": "follow", "follow": False})
    await all_see(table, lambda f: f["wandering"] == [0] and f["following"] == [2])
    # The leader steps and points; a step takes the pointer away.
    await bob.send({"type": "review", "op": "step", "step": 5})
    await all_see(table, lambda f: f["step"] == 5)
    await bob.send({"type": "review", "op": "point", "card": "AS"})
    await all_see(table, lambda f: f["step"] == 5 and f["point"] == "AS")
    await bob.send({"type": "review", "op": "step", "step": length})
    seen = await all_see(table, lambda f: f["step"] == length)
    assert all(f["point"] is None for f in seen)
    # Ann comes back to the leader.
    await ann.send({"type": "review", "op": "follow", "follow": True})
    await all_see(table, lambda f: f["following"] == [0, 2] and f["wandering"] == [])
    # A late socket lands on the leader's step.
    _, _, late = await look(server, table.code)
    assert (late["hand"], late["leader"], late["step"]) == (1, 1, length)
    # The lead passes to Cat; Bob follows her.
    await bob.send({"type": "review", "op": "lead", "seat": 2})
    seen = await all_see(table, lambda f: f["leader"] == 2)
    assert seen[0]["following"] == [0, 1]
    await cat.send({"type": "review", "op": "step", "step": 2})
    await all_see(table, lambda f: f["step"] == 2 and f["leader"] == 2)
    # No deal while it is open; after the close the room deals after its usual pause.
    assert (await look(server, table.code))[1]["phase"] == "hand_over"
    await cat.send({"type": "review", "op": "close"})
    seen = await all_see(table, lambda f: f["hand"] is None)
    assert all(f["leader"] is None for f in seen)
    assert (await look(server, table.code))[0] > seq
    for client in table.everyone():
        await client.close()


async def test_the_next_hand_waits_for_the_review(server_factory: ServerFactory) -> None:
    # The open goes out the moment the scored hand's state arrives, well inside the
    # pause; from then on the pause means nothing until the review is closed.
    server = server_factory(hand_pause=2)
    code, clients, _, _ = await seat_table(server, "wisconsin4", [0], rules={"target": 11})
    ann = clients[0]
    asked: list[int] = []

    async def open_when_scored(frame: dict[str, Any]) -> None:
        if frame["view"]["phase"] in SCORED and not asked:
            asked.append(1)
            await ann.send({"type": "review", "op": "open", "hand": 1})

    ann.on_state = open_when_scored
    await Player(ann, random.Random(2)).play_until(lambda v: v["phase"] in SCORED)
    opened = await review_where(ann, lambda f: True)
    assert opened["hand"] == 1, "the hand pause ran out before the review was opened"
    # Twice the hand pause later the score is still up: the review holds the deal.
    await asyncio.sleep(4)
    seq, view, _ = await look(server, code)
    assert view["phase"] in SCORED
    await ann.send({"type": "review", "op": "close"})
    if view["phase"] == "hand_over":
        await ann.wait_state(lambda v: v["phase"] not in SCORED)
    else:
        assert (await look(server, code))[0] == seq + 1
    await ann.close()


async def test_every_bad_review_frame_changes_nothing(server_factory: ServerFactory) -> None:
    server = server_factory(hand_pause=600)
    table = await finished_hand(server, seed=11)
    ann, bob, cat = (table.players[k] for k in (0, 1, 2))
    length = await record_length(server, table.code, 1)

    async def refused(client: Client, frame: dict[str, Any], code: str) -> None:
        before = await look(server, table.code)
        await client.send(frame)
        error = await client.next_error()
        assert error["code"] == code, (frame, error)
        assert isinstance(error["message"], str) and error["message"]
        assert await look(server, table.code) == before, frame

    malformed = [
        {"type": "review"},
        {"type": "review", "op": "peek"},
        {"type": "review", "op": "open"},
        {"type": "review", "op": "open", "hand": "1"},
        {"type": "review", "op": "open", "hand": 0},
        {"type": "review", "op": "open", "hand": 1, "step": 0},
        {"type": "review", "op": "step"},
        {"type": "review", "op": "step", "step": -1},
        {"type": "review", "op": "step", "step": 1.5},
        {"type": "review", "op": "step", "step": 10**9},
        {"type": "review", "op": "point"},
        {"type": "review", "op": "point", "card": "ZZ"},
        {"type": "review", "op": "lead"},
        {"type": "review", "op": "lead", "seat": None},
        {"type": "review", "op": "lead", "seat": 99},
        {"type": "review", "op": "follow"},
        {"type": "review", "op": "follow", "follow": "yes"},
        {"type": "review", "op": "close", "hand": 1},
        {"type": "review", "op": "join", "x": 1},
    ]
    for frame in malformed:
        await refused(ann, frame, "bad_message")
    # Nothing is open: every op but `open` is refused.
    for frame in (
        {"type": "review", "op": "step", "step": 1},
        {"type": "review", "op": "point", "card": "AS"},
        {"type": "review", "op": "lead", "seat": 1},
        {"type": "review", "op": "close"},
        {"type": "review", "op": "join"},
        {"type": "review", "op": "follow", "follow": True},
    ):
        await refused(bob, frame, "bad_message")
    # A hand without a record (the next one is not even dealt), and a spectator.
    await refused(ann, {"type": "review", "op": "open", "hand": 2}, "bad_message")
    await refused(ann, {"type": "review", "op": "open", "hand": 999_999}, "bad_message")
    await refused(table.watcher, {"type": "review", "op": "open", "hand": 1}, "forbidden")

    await ann.send({"type": "review", "op": "open", "hand": 1})
    await all_see(table, lambda f: f["hand"] == 1)
    await refused(bob, {"type": "review", "op": "open", "hand": 1}, "bad_message")
    for frame in (
        {"type": "review", "op": "step", "step": 1},
        {"type": "review", "op": "point", "card": "AS"},
        {"type": "review", "op": "lead", "seat": 1},
        {"type": "review", "op": "close"},
    ):
        await refused(bob, frame, "forbidden")
        await refused(table.watcher, frame, "forbidden")
    await refused(table.watcher, {"type": "review", "op": "join"}, "forbidden")
    await refused(ann, {"type": "review", "op": "step", "step": length + 1}, "bad_message")
    await refused(ann, {"type": "review", "op": "point", "card": "2S"}, "bad_message")
    await refused(ann, {"type": "review", "op": "lead", "seat": 3}, "bad_message")  # a bot
    await refused(ann, {"type": "review", "op": "lead", "seat": 0}, "bad_message")  # herself
    await refused(ann, {"type": "review", "op": "lead", "seat": 5}, "bad_message")  # no seat
    await refused(ann, {"type": "review", "op": "join"}, "bad_message")  # she leads
    await refused(cat, {"type": "review", "op": "lead", "seat": 2}, "forbidden")
    for client in table.everyone():
        await client.close()


async def test_a_review_cannot_be_opened_during_a_hand(server: RunningServer) -> None:
    code, clients, _, _ = await seat_table(server, "wisconsin4", [0], rules={"target": 11})
    ann = clients[0]
    # Ann's turn: the bots wait for her, so nothing but her frames could change the room.
    await ann.wait_state(lambda v: v["phase"] not in ("lobby", "deal") and v["turn"] == [0])
    before = await look(server, code)
    for n in (0, 1, 2):
        await ann.send({"type": "review", "op": "open", "hand": n})
        assert (await ann.next_error())["code"] == "bad_message"
    assert await look(server, code) == before
    await ann.close()


async def test_an_away_leader_hands_the_lead_on(server_factory: ServerFactory) -> None:
    server = server_factory(hand_pause=600, lead_grace=0.2)
    table = await finished_hand(server, seed=7)
    await table.players[0].send({"type": "review", "op": "open", "hand": 1})
    await all_see(table, lambda f: f["leader"] == 0)
    await table.players[0].close()
    table.players.pop(0)
    await all_see(table, lambda f: f["leader"] == 1)
    # Nobody left to lead: the review closes.
    await table.players[1].close()
    await table.players[2].close()
    table.players.clear()
    await review_where(table.watcher, lambda f: f["hand"] is None)
    await table.watcher.close()


@contextlib.contextmanager
def told_by(log: Path) -> Iterator[None]:
    """A failure comes with the server's own account of its rooms (`log`, at INFO): a
    socket once closed with 1012 (its room stopped) in the hand before the kill, on a
    loaded machine, and nothing else said why."""
    try:
        yield
    except Exception as exc:
        noise = ("http.", "socket.hello", "WebSocket", "connection ")
        lines = log.read_text(errors="replace").splitlines() if log.exists() else []
        kept = [line for line in lines if not any(n in line for n in noise)]
        raise AssertionError(f"{exc!r}; the server said:\n" + "\n".join(kept[-80:])) from exc


def _env(redis_url: str, prefix: str) -> dict[str, str]:
    return {
        "SCHMIER_REDIS_URL": redis_url,
        "SCHMIER_REDIS_PREFIX": prefix,
        "SCHMIER_BOT_DELAY": "0",
        "SCHMIER_HAND_PAUSE": "600",
        "SCHMIER_TRICK_PAUSE": "0",
        "SCHMIER_LEASE_MS": "1500",
        "SCHMIER_DEFAULT_BOT": "normal",
        "SCHMIER_FRAME_RATE": "1000",
        "SCHMIER_FRAME_BURST": "1000",
        "SCHMIER_LOG_LEVEL": "INFO",
    }


async def test_a_killed_server_resumes_the_review(
    redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    server, process = start_subprocess_server(_env(redis_url, redis_prefix), log)
    try:
        with told_by(log):
            table = await finished_hand(server, seed=9)
            await table.players[2].send({"type": "review", "op": "open", "hand": 1})
            await table.players[0].send({"type": "review", "op": "join"})
            await table.players[2].send({"type": "review", "op": "step", "step": 4})
            await table.players[2].send({"type": "review", "op": "point", "card": "KH"})
            await all_see(table, lambda f: f["step"] == 4 and f["point"] == "KH")
            # And a practice room from that step, where Bob has sat down.
            await table.players[2].send({"type": "review", "op": "practice", "step": 4})
            while (practice := await table.players[1].recv())["type"] != "practice":
                pass
            sandbox = await Client.seated(server, practice["code"], practice["token"])

            # The bots move on until the room waits for people alone: the state that shows
            # that was stored before it was sent, and nothing moves the room on from it.
            def settled(v: dict[str, Any]) -> bool:
                bots = {s["seat"] for s in v["seats"] if s["kind"] == "bot"}
                return bool(v["turn"]) and not bots & set(v["turn"])

            before = await sandbox.wait_state(settled)
            await sandbox.close()
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
    finally:
        server.stop()
    again, process = start_subprocess_server(_env(redis_url, redis_prefix), log)
    try:
        with told_by(log):
            await asyncio.sleep(1.6)  # the dead server's lease runs out
            bob = await Client.seated(again, table.code, table.tokens[1])
            assert bob.review is not None
            got = {k: bob.review[k] for k in ("hand", "leader", "step", "point", "following")}
            assert got == {"hand": 1, "leader": 2, "step": 4, "point": "KH", "following": [0]}
            assert bob.state is not None and bob.state["view"]["phase"] == "hand_over"
            # The practice room is where it was.
            again_sandbox = await Client.seated(again, practice["code"], practice["token"])
            assert again_sandbox.state is not None
            kept = ("hand", "trick", "tricks", "bids", "turn", "scores", "practice", "phase")
            now = again_sandbox.state["view"]
            assert {k: now[k] for k in kept} == {k: before["view"][k] for k in kept}
            await again_sandbox.close()
            # The leader, back, goes on from there.
            cat = await Client.seated(again, table.code, table.tokens[2])
            await cat.send({"type": "review", "op": "step", "step": 5})
            await review_where(bob, lambda f: f["step"] == 5 and f["point"] is None)
            await bob.close()
            await cat.close()
    finally:
        again.stop()


@pytest.fixture
def cluster(redis_url: str, redis_prefix: str, tmp_path: Path) -> Iterator[Cluster]:
    """Two instances whose scored hands stay up (a long hand pause)."""
    (tmp_path / "logs").mkdir()
    running = Cluster(redis_url, redis_prefix, tmp_path / "logs")
    running.env["SCHMIER_HAND_PAUSE"] = "600"
    yield running
    running.stop()
    print(running.logs())


async def test_another_instance_sees_the_same_step(cluster: Cluster) -> None:
    one, two = cluster.start("one", "two")
    table = await finished_hand(one, seed=13)
    # A spectator and a player on the other instance.
    far_watcher = await Client.seated(two, table.code, None)
    far_bob = await Client.seated(two, table.code, table.tokens[1])
    await table.players[0].send({"type": "review", "op": "open", "hand": 1})
    await review_where(far_watcher, lambda f: f["hand"] == 1 and f["leader"] == 0)
    await far_bob.send({"type": "review", "op": "join"})
    await review_where(table.players[0], lambda f: f["following"] == [1])
    await table.players[0].send({"type": "review", "op": "step", "step": 3})
    for client in (far_watcher, far_bob):
        await review_where(client, lambda f: f["step"] == 3)
    # A socket coming late to the other instance lands on the step too.
    late = await Client.seated(two, table.code, None)
    assert late.review is not None and late.review["step"] == 3

    async def closed() -> bool:
        return far_watcher.review is not None and far_watcher.review["hand"] is None

    await far_bob.send({"type": "review", "op": "step", "step": 1})
    assert (await far_bob.next_error())["code"] == "forbidden"
    # A practice room from there: Bob, on the other instance, gets his seat's token.
    await table.players[0].send({"type": "review", "op": "practice", "step": 3})
    while (practice := await far_bob.recv())["type"] != "practice":
        pass
    assert practice["seat"] == 1
    sandbox = await Client.seated(two, practice["code"], practice["token"])
    assert sandbox.state is not None and sandbox.state["view"]["you"] == 1
    assert sandbox.state["view"]["practice"] == {"room": table.code, "hand": 1, "step": 3}
    await sandbox.close()
    await table.players[0].send({"type": "review", "op": "close"})
    await eventually(closed)
    for client in [*table.everyone(), far_watcher, far_bob, late]:
        await client.close()
