"""Games whose every hand is checked against its record, over the wire.

`FairTable` seats test clients that commit to fresh entropy whenever they see a new
`next_deal` commitment and reveal it when asked (as the browser does), or withhold it,
and remember what they sent; `check_record` holds one hand record against everything
each socket saw of that hand, `check_deal` its deck against the formula.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

import httpx

from schmier import engine
from schmier.engine import fairness
from schmier.engine.cards import CARD_NAMES
from tests.support import loopback
from tests.support.servers import Client, Player, RunningServer

IN_PLAY = ("bidding", "trump", "discard", "call", "play")
SCORED = ("hand_over", "game_over")


class Committer:
    """A seat's entropy as the browser gives it: a fresh secret value for every new
    commitment its socket sees, committed at once (`{"type": "entropy", "commit": h}`),
    revealed when the server asks (`reveal`) unless `withhold` (the seat goes silent).

    `attach` hooks it to a client before its hello."""

    def __init__(self, client: Client, rng: random.Random, withhold: bool = False) -> None:
        self.client = client
        self.rng = rng
        self.withhold = withhold
        self.sent: dict[str, str] = {}
        """The value committed to for each commitment seen (one per commitment)."""
        self.last: str | None = None
        """The value of the last commit sent: the one the server holds."""
        self.revealed: dict[str, str] = {}
        """The value revealed for each `reveal` frame's commitment."""
        self.asked = 0
        """`reveal` frames received."""

    @classmethod
    def attach(cls, client: Client, rng: random.Random, withhold: bool = False) -> Committer:
        committer = cls(client, rng, withhold)
        committer.hook(client)
        return committer

    def hook(self, client: Client) -> None:
        """Commit and reveal through `client` from now on (a new socket of the seat,
        keeping the secrets, as a reloaded page keeps them in `sessionStorage`)."""
        self.client = client
        client.on_state = self.state
        client.on_reveal = self.reveal

    def secret(self) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(self.rng.randint(16, 64)))

    async def state(self, frame: dict[str, Any]) -> None:
        view = frame["view"]
        pending = view.get("next_deal")
        if view["you"] is None or pending is None or pending["commitment"] in self.sent:
            return
        if pending["revealing"]:
            return  # no commit is taken now; the next commitment gets one
        value = self.sent[pending["commitment"]] = self.last = self.secret()
        await self.client.send({"type": "entropy", "commit": fairness.entropy_commit(value)})

    async def reveal(self, frame: dict[str, Any]) -> None:
        self.asked += 1
        if self.withhold or self.last is None:
            return
        self.revealed[frame["commitment"]] = self.last
        await self.client.send({"type": "entropy", "value": self.last})


@dataclass
class FairTable:
    """A started room: seated clients (committing to entropy, revealing it unless they
    are among `silent`), one spectator, bots elsewhere."""

    server: RunningServer
    variant: str
    rules: dict[str, Any]
    code: str = ""
    clients: dict[int, Client] = field(default_factory=dict)
    entropy: dict[int, Committer] = field(default_factory=dict)
    tokens: dict[int, str] = field(default_factory=dict)
    watcher: Client | None = None

    @classmethod
    async def start(
        cls,
        server: RunningServer,
        variant: str,
        humans: list[int],
        rules: dict[str, Any],
        silent: frozenset[int] = frozenset(),
    ) -> FairTable:
        table = cls(server, variant, rules)
        table.code = await server.create_room(variant, rules)
        rng = random.Random(f"entropy-{variant}")
        for seat in humans:
            _, table.tokens[seat] = await server.join(table.code, f"Player {seat}", seat)
            client = await Client.connect(server.ws_url(table.code))
            table.entropy[seat] = Committer.attach(client, rng, withhold=seat in silent)
            await client.hello(table.tokens[seat])
            table.clients[seat] = client
        table.watcher = await Client.seated(server, table.code, None)
        first = table.clients[humans[0]]
        for seat in range(engine.seat_count(variant)):
            if seat not in humans:
                await first.send({"type": "add_bot", "seat": seat})
        await first.wait_state(lambda v: {"type": "start"} in v["legal"])
        await first.send({"type": "start"})
        for client in table.sockets():
            await client.wait_state(lambda v: v["phase"] != "lobby")
        return table

    def sockets(self) -> list[Client]:
        assert self.watcher is not None
        return [*self.clients.values(), self.watcher]

    async def get(self, path: str) -> httpx.Response:
        async with loopback.async_client(base_url=self.server.base_url) as http:
            return await http.get(f"/api/rooms/{self.code}{path}")

    async def records(self) -> list[dict[str, Any]]:
        """Every finished hand's record, through the list of hands."""
        listed = (await self.get("/hands")).json()
        out = []
        for entry in listed:
            answer = await self.get(f"/hands/{entry['n']}")
            assert answer.status_code == 200, answer.text
            out.append(answer.json())
        assert [summary_of(r) for r in out] == listed
        return out

    async def close(self) -> None:
        for client in self.sockets():
            await client.close()


async def whole_game(
    server: RunningServer,
    variant: str,
    humans: list[int],
    rules: dict[str, Any],
    silent: frozenset[int] = frozenset(),
) -> tuple[FairTable, list[dict[str, Any]]]:
    """A whole game over the wire: players at `humans` who commit to their entropy and
    reveal it (but those in `silent`, who withhold it), bots elsewhere, each playing at
    random; the table, and every finished hand's record."""
    table = await FairTable.start(server, variant, humans, rules, silent)
    rng = random.Random(f"whole-{variant}")
    await asyncio.gather(
        *(Player(c, rng).play_until(lambda v: v["phase"] == "game_over", 120)
          for c in table.clients.values())
    )  # fmt: skip
    return table, await table.records()


async def hand_in_play_is_unreadable(table: FairTable, view: dict[str, Any]) -> None:
    """Called while the game waits for one of our seats, so the hand cannot end meanwhile:
    its record, and any other number past the finished ones, is a 404."""
    if view["phase"] not in IN_PLAY:
        return
    listed = (await table.get("/hands")).json()
    for n in (len(listed) + 1, len(listed) + 2, 0, -1):
        answer = await table.get(f"/hands/{n}")
        assert answer.status_code == 404, (n, answer.text)
    # Nor is there an analysis of it (nothing is started for it either).
    answer = await table.get(f"/hands/{len(listed) + 1}/analysis")
    assert answer.status_code == 404, answer.text
    if listed:
        last = (await table.get(f"/hands/{len(listed)}")).json()
        assert last["deal"]["commitment"] != view["deal"]["commitment"]


def summary_of(record: dict[str, Any]) -> dict[str, Any]:
    result = record["result"]
    return {
        "n": record["n"],
        "game": record["game"],
        "dealer": record["dealer"],
        "bidder": result["bidder"],
        "bid": result["bid"],
        "made": result["made"],
        "deltas": result["deltas"],
    }


def check_deal(record: dict[str, Any]) -> None:
    """The commitment is the seed's hash; every revealed value hashes to its seat's
    commit, a withheld one is the commit itself, a seat without a commit has none; the
    deck follows from the seed and that entropy by the specified shuffle, and the hands
    are dealt from it."""
    deal = record["deal"]
    assert hashlib.sha256(deal["server_seed"].encode()).hexdigest() == deal["commitment"]
    commits, withheld = deal["commits"], deal["withheld"]
    assert len(commits) == len(deal["entropy"]) == len(record["seats"])
    for seat, (commit, used) in enumerate(zip(commits, deal["entropy"], strict=True)):
        if commit is None:
            assert used is None and seat not in withheld
        elif seat in withheld:
            assert used == commit
        else:
            assert hashlib.sha256(used.encode()).hexdigest() == commit
    deck = fairness.fair_deck(record["variant"], deal["server_seed"], deal["entropy"])
    assert [CARD_NAMES[c] for c in deck] == deal["deck"]
    n = len(record["seats"])
    for i in range(n):
        seat = (record["dealer"] + 1 + i) % n
        assert record["hands"][seat] == deal["deck"][6 * i : 6 * i + 6]
    assert record["stock"] == deal["deck"][6 * n :]


def states_of_socket(client: Client) -> list[dict[str, Any]]:
    return [f["view"] for f in client.frames if f["type"] == "state"]


def check_record(
    record: dict[str, Any], client: Client, seat: int | None, sent: dict[str, str] | None
) -> None:
    """What `client` (at `seat`) saw of this hand is what its record says."""
    views = states_of_socket(client)
    commitment = record["deal"]["commitment"]
    # A view in the `deal` phase (a rematch waiting for the reveal of the next deck) still
    # names the last deck dealt: it is not a view of that hand.
    dealt = [
        i
        for i, v in enumerate(views)
        if (v["deal"] or {}).get("commitment") == commitment and v["phase"] != "deal"
    ]
    assert dealt, f"seat {seat} never saw hand {record['n']}"
    first, last = views[dealt[0]], views[dealt[-1]]
    # The commitment was shown before the deal.
    shown = [v for v in views[: dealt[0]] if (v["next_deal"] or {}).get("commitment") == commitment]
    assert shown, f"seat {seat}: the commitment of hand {record['n']} was not shown before"
    assert first["phase"] == "bidding" and first["dealer"] == record["dealer"]
    assert last["phase"] in SCORED, last["phase"]
    actions = record["actions"]
    assert all(a["action"]["type"] != "deal" for a in actions)
    bids = [
        {"seat": a["seat"], "amount": a["action"].get("amount")}
        for a in actions
        if a["action"]["type"] in ("bid", "pass")
    ]
    assert last["bids"] == bids
    plays = [
        {"seat": a["seat"], "card": a["action"]["card"]}
        for a in actions
        if a["action"]["type"] == "play"
    ]
    assert [p for t in last["tricks"] for p in t["cards"]] == plays
    assert record["tricks"] == last["tricks"]
    trumps = [a["action"]["suit"] for a in actions if a["action"]["type"] == "trump"]
    assert trumps == [last["trump"]]
    calls = [a["action"]["card"] for a in actions if a["action"]["type"] == "call"]
    assert calls == ([last["called"]] if record["variant"] == "schmier5" else [])
    assert last["last_hand"] == record["result"]
    assert last["scores"] == record["scores"]
    if seat is not None:
        assert sorted(first["hand"]) == sorted(record["hands"][seat])
        mine = [c for a in actions if a["seat"] == seat and a["action"]["type"] == "discard"
                for c in a["action"]["cards"]]  # fmt: skip
        assert sorted(last["my_discards"]) == sorted(mine)
    if sent is not None and seat is not None:
        # The value committed to on seeing this commitment went into the deck: revealed,
        # or (withheld) as its commit.
        value = sent[commitment]
        deal = record["deal"]
        assert deal["commits"][seat] == fairness.entropy_commit(value), (seat, record["n"])
        withheld = seat in deal["withheld"]
        assert deal["entropy"][seat] == (deal["commits"][seat] if withheld else value)


def passed_out(views: list[dict[str, Any]], commitment: str) -> bool:
    """Whether the hand dealt with `commitment` ended with everybody passing."""
    seen = [v for v in views if (v["deal"] or {}).get("commitment") == commitment]
    bids = seen[-1]["bids"]
    return len(bids) == len(seen[-1]["seats"]) and all(b["amount"] is None for b in bids)
