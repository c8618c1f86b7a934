"""No frame tells a seat or a spectator anything it may not know, over whole games.

The server's store log holds every accepted engine action, deals included, so the test
replays the game and knows the true state behind every frame. Each state frame must be
exactly the engine's redacted view of one of those states (in order), and, checked
directly against the true state, must hold no card outside what that viewer may see:
its own hand and discards, cards played to tricks, the called card. The `schmier5`
partner stays hidden until the called card is played, and the `wisconsin4` trump until
the bidder's first lead.

The hand records and the history are asked for all game long by someone outside the
room: nothing answered belongs to a hand in play (its record, its seed, its players'
commits and values, a number past the finished hands), no seed, commit or value of an
undealt deck is ever answered, no frame ever carries a server seed or any player's
commit or value (views list only which seats committed; a `reveal` frame goes only to a
committed seat), and every record answered is the record the finished hand keeps.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import re
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson
import pytest

from schmier import engine
from schmier.logs import LOGGER, JsonFormatter
from schmier.rooms.record import RoomRecord
from tests.support import loopback
from tests.support.records import Committer
from tests.support.secrecy import (
    CARD,
    RecordPoller,
    ask_hint,
    cards_in,
    check_hints,
    check_reveals,
    engine_part,
    no_seed_in_frames,
    players_secrets,
    seeds_of,
    states_of,
    true_view,
)
from tests.support.servers import (
    Client,
    Player,
    RunningServer,
    ServerFactory,
    play_all,
    seat_table,
)

SCORED = ("hand_over", "game_over")


def check_frame(view: dict[str, Any], state: Any, seat: int | None) -> None:
    """The direct secrecy check of one view against the true state.

    `turn_ends_in` (the turn timer) is a number exactly while a person's turn is timed,
    the same for every viewer: it tells nobody more than whose turn it is; so is
    `idle_ends_in` (the idle limit, in a room without a timer) at most.
    """
    timed = state.rules.turn_seconds > 0 and any(
        view["seats"][s]["kind"] == "human" for s in state.turn
    )
    left = view.get("turn_ends_in")  # every frame has it: the View model requires it
    idle = view.get("idle_ends_in")
    if timed:
        assert isinstance(left, float) and 0.0 <= left <= state.rules.turn_seconds, left
        assert idle is None, f"an idle countdown in a timed turn: {idle}"
    else:
        assert left is None, f"a countdown outside a person's timed turn: {left}"
    if idle is not None:  # the server's idle limit: only while a person's turn is awaited
        assert any(view["seats"][s]["kind"] == "human" for s in state.turn), idle
        assert isinstance(idle, float) and idle >= 0.0, idle
    places = engine.card_places(state)
    allowed = {"trick"} | {p for p in places.values() if p.startswith("won:")}
    if seat is not None:
        allowed |= {f"hand:{seat}", f"discard:{seat}"}
    called = view.get("called")
    last_called = (view.get("last_hand") or {}).get("called")
    # A `call` entry of `legal` may name any card but the bidder's own: that tells the
    # bidder nothing (it is the deck minus their hand), so those entries are not shown
    # cards. Every other card anywhere in the view must be one the viewer may see.
    shown = cards_in({k: v for k, v in view.items() if k != "legal"})
    shown |= cards_in([a for a in view["legal"] if a["type"] != "call"])
    for card in shown:
        if card in (called, last_called):
            continue
        assert places[card] in allowed, f"seat {seat} was shown {card} ({places[card]})"
    if state.partner is not None and not state.partner_revealed and seat != state.partner:
        assert view["partner"] is None, "the partner was revealed too early"
    if not state.trump_public:
        assert view["trump"] is None, "the trump was public too early"
        if seat != state.bidder:
            assert view.get("my_trump") is None
    if seat is None:
        assert view["hand"] == [] and view["legal"] == []


def check_client(client: Client, seat: int | None, states: list[Any]) -> int:
    """Match every in-game frame of `client` to the state it shows, in order."""
    index = 0
    checked = 0
    for frame in client.frames:
        if frame["type"] != "state" or frame["view"]["phase"] == "lobby":
            continue
        view = frame["view"]
        target = engine_part(view)
        while index < len(states) and true_view(states[index], seat, target) != target:
            index += 1
        assert index < len(states), f"seat {seat}: frame {frame['seq']} matches no true state"
        check_frame(view, states[index], seat)
        checked += 1
    return checked


async def read_log(server: RunningServer, code: str) -> list[bytes]:
    store = server.app.state.rooms.store
    log: list[bytes] = await store.read_log(code)
    return log


@pytest.mark.parametrize(
    ("variant", "humans", "timer"),
    [("schmier6", [0, 1, 4], 0), ("schmier5", [0, 2], 300), ("wisconsin4", [1, 2], 0)],
)
async def test_frames_leak_nothing(
    server_factory: ServerFactory, variant: str, humans: list[int], timer: int
) -> None:
    # Every person commits to entropy and reveals it when asked, but the last one, who
    # withholds it (each deal then waits out the reveal window, kept short).
    server = server_factory(reveal_ms=1000)
    rules = {"target": 7, "turn_seconds": timer}
    rng = random.Random(f"secrecy-{variant}")
    committers: dict[int, Committer] = {}

    def commit(seat: int, client: Client) -> None:
        committers[seat] = Committer.attach(client, rng, withhold=seat == humans[-1])

    code, clients, watchers, _ = await seat_table(
        server, variant, humans, rules=rules, spectators=1, on_connect=commit
    )
    # The room's record is asked for all game long, by somebody outside the room.
    poller = RecordPoller(server, code)
    stop = asyncio.Event()
    polling = asyncio.create_task(poller.run(stop))

    # Every human asks for a hint before each of its actions.
    def hinted(client: Client) -> Callable[[dict[str, Any]], Awaitable[None]]:
        async def before(view: dict[str, Any]) -> None:
            await ask_hint(client)
            await poller.now_and_then(view)

        return before

    players = [Player(clients[s], rng, before_act=hinted(clients[s])) for s in humans]
    await play_all(players, lambda v: v["phase"] == "game_over")
    await watchers[0].wait_state(lambda v: v["phase"] == "game_over")
    stop.set()
    await polling
    assert poller.live_rounds > 3, (poller.rounds, poller.live_rounds)
    first_game_view = next(
        f["view"]
        for f in clients[humans[0]].frames
        if f["type"] == "state" and f["view"]["phase"] != "lobby"
    )
    log = await read_log(server, code)
    states = states_of(variant, rules, first_game_view["dealer"], log)
    assert states[-1].phase == "game_over"
    for seat, client in clients.items():
        assert check_client(client, seat, states) > 10
    assert check_client(watchers[0], None, states) > 10
    # Hints: each one of the asker's own legal actions, and only the askers got any.
    assert sum(check_hints(c.frames) for c in clients.values()) > 10
    assert check_hints(watchers[0].frames) == 0
    # No frame ever held a server seed, of a dealt deck or of the next one, nor any
    # player's commit or value; only committed seats were asked to reveal, each time.
    stored = await server.app.state.rooms.store.load(code)
    assert stored is not None
    final = RoomRecord.from_bytes(stored.snapshot)
    seeds = seeds_of(log, final)
    secrets = players_secrets(log, final)
    assert len(secrets) >= 2 * len(humans)  # a commit and a value (or its commit) each
    for client in [*clients.values(), *watchers]:
        no_seed_in_frames(client.frames, seeds, secrets)
    for seat, client in clients.items():
        assert check_reveals(client.frames, seat) == committers[seat].asked >= 1
    assert check_reveals(watchers[0].frames, None) == 0
    # What was answered while the game went on is what the finished hands' records say.
    async with loopback.async_client(base_url=server.base_url) as http:
        listed = (await http.get(f"/api/rooms/{code}/hands")).json()
        final = [(await http.get(f"/api/rooms/{code}/hands/{h['n']}")).json() for h in listed]
    poller.check_against(final)
    scorings = itertools.pairwise(states)
    assert len(final) == sum(1 for a, b in scorings if b.phase in SCORED and a.phase not in SCORED)
    for client in [*clients.values(), *watchers]:
        await client.close()


async def test_the_installable_app_knows_no_room(server: RunningServer) -> None:
    """`/sw.js` and `/manifest.webmanifest` are made when the app is, from the client's
    files alone: the same bytes before and during a game, naming no room, and the
    worker's list of files to keep holds no API or socket address."""
    paths = ("/sw.js", "/manifest.webmanifest")
    async with loopback.async_client(base_url=server.base_url) as http:
        before = [(await http.get(p)).content for p in paths]
        code, clients, _, _ = await seat_table(server, "wisconsin4", [0, 1])
        rng = random.Random("installable")
        players = [Player(clients[s], rng) for s in (0, 1)]
        await play_all(players, lambda v: v["phase"] == "play" and bool(v["tricks"]))
        during = [(await http.get(p)).content for p in paths]
    assert during == before
    worker = before[0].decode()
    assert code not in worker
    files = re.search(r"^const FILES = (\[.*\]);$", worker, re.MULTILINE)
    assert files is not None
    kept = orjson.loads(files.group(1))
    assert "/static/app.js" in kept
    assert not [path for path in kept if path.startswith(("/api", "/ws"))], kept
    for client in clients.values():
        await client.close()


class _Collect(logging.Handler):
    """Keeps the formatted lines of the server's logger."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.setFormatter(JsonFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


async def test_logs_hold_no_token_and_no_card(server_factory: ServerFactory) -> None:
    server = server_factory(log_json=True, log_level="DEBUG")
    collect = _Collect()
    LOGGER.addHandler(collect)
    try:
        code, clients, _, tokens = await seat_table(
            server, "wisconsin4", [0, 2], rules={"target": 5}
        )
        rng = random.Random("logs")
        await play_all(
            [Player(clients[s], rng) for s in (0, 2)], lambda v: v["phase"] == "game_over"
        )
        bad = await Client.connect(server.ws_url(code))
        await bad.send({"type": "hello", "token": tokens[0] + "x"})
        assert await bad.closed() == 4401
        for client in clients.values():
            await client.close()
    finally:
        LOGGER.removeHandler(collect)
    assert collect.lines, "the server logged its events"
    events = {orjson.loads(line)["event"] for line in collect.lines}
    assert {"room.created", "room.join", "socket.hello", "room.start"} <= events
    assert "socket.bad_token" in events
    for line in collect.lines:
        for token in tokens.values():
            assert token[:12] not in line
        words = re.findall(r"[A-Za-z0-9]+", line)
        assert not [w for w in words if CARD.match(w)], line


def test_the_check_catches_a_leak() -> None:
    """Showing seat 0 the view of seat 1 (or a spectator a seat's view) must fail."""
    rng = random.Random(11)
    for variant in engine.VARIANTS:
        state = engine.new_game(variant, engine.make_rules(variant, None), 0)
        deck = engine.full_deck(variant)
        rng.shuffle(deck)
        state = engine.apply(state, None, {"type": "deal", "deck": deck})
        check_frame(engine.view(state, 0), state, 0)
        check_frame(engine.view(state, None), state, None)
        with pytest.raises(AssertionError):
            check_frame(engine.view(state, 1), state, 0)
        with pytest.raises(AssertionError):
            check_frame(engine.view(state, 2), state, None)
        with pytest.raises(AssertionError):  # a countdown in a room without a timer
            check_frame({**engine.view(state, 0), "turn_ends_in": 9.5}, state, 0)
        bots = [{**s, "kind": "bot"} for s in engine.view(state, 0)["seats"]]
        with pytest.raises(AssertionError):  # an idle countdown on a bot's turn
            check_frame({**engine.view(state, 0), "seats": bots, "idle_ends_in": 9.5}, state, 0)


def test_the_record_checks_catch_a_leak() -> None:
    """The seed of the undealt deck, or a record of the hand in play, must fail them."""
    from dataclasses import replace

    rules = engine.make_rules("wisconsin4")
    room = RoomRecord.new("abcdefghij", "wisconsin4", rules)
    state = engine.deal(engine.new_game("wisconsin4", rules, 0), engine.full_deck("wisconsin4"))
    playing = replace(room, state=state, dealt="c" * 64)
    pending = playing.next_deal
    assert pending is not None
    deal = {"commitment": "c" * 64, "server_seed": "d" * 64}
    log = [orjson.dumps({"seat": None, "action": {}, "deal": deal})]
    poller = RecordPoller(None, "abcdefghij")
    empty = httpx.Response(200, json=[])
    missing = httpx.Response(404, json={"detail": "no finished hand with that number"})
    poller._check(playing, playing, log, 0, [empty], [(1, missing)])
    # A player's commit to the undealt deck, and a value that went into the hand in play.
    committed = replace(playing, next_deal=pending.with_commit(1, "e" * 64))
    deal["entropy"] = [None, "f" * 20, None, None]
    log = [orjson.dumps({"seat": None, "action": {}, "deal": deal})]
    for leak in (pending.server_seed, "d" * 64, "e" * 64, "f" * 20):
        with pytest.raises(AssertionError):
            poller._check(committed, committed, log, 0, [httpx.Response(200, text=leak)], [])
    answered = httpx.Response(200, json={"n": 1, "deal": {"commitment": "c" * 64}})
    with pytest.raises(AssertionError):
        poller._check(playing, playing, log, 0, [empty], [(1, answered)])
    with pytest.raises(AssertionError):
        no_seed_in_frames(
            [{"type": "chat", "text": pending.server_seed}], {"x": pending.server_seed}
        )
    with pytest.raises(AssertionError):  # a commit or a value in a frame
        no_seed_in_frames([{"type": "chat", "text": "e" * 64}], {}, {"e" * 64})
    # A reveal frame to a seat that did not commit, or to a spectator.
    shown = {"type": "state", "view": {"next_deal": {**pending.view(), "revealing": True}}}
    asked = {"type": "reveal", "commitment": pending.commitment}
    with pytest.raises(AssertionError):
        check_reveals([shown, asked], 0)
    with pytest.raises(AssertionError):
        check_reveals([shown, asked], None)
    shown["view"]["next_deal"]["committed"] = [0]
    assert check_reveals([shown, asked], 0) == 1


async def test_club_pages_leak_nothing_of_a_hand_in_play(server: RunningServer) -> None:
    """A club game, then a rematch: all the while a member asks for every page of the
    club (its archive, each game with its hands, standings, the CSV, the export) besides
    the room's own records; nothing answered belongs to a hand in play or to an undealt
    deck, and the game in play never reaches the archive."""
    from tests.support.clubs import ClubApi, club_table

    api = ClubApi(server)
    club, _admin = await api.create("Secret club")
    members = [await api.join(club, name) for name in ("Ann", "Bo")]
    room = await api.room(club, members[0][1], "schmier5", {"target": 5})
    clients = await club_table(server, room, {0: members[0][1], 3: members[1][1]}, "schmier5")
    poller = RecordPoller(server, room, club=(club, members[1][1]))
    stop = asyncio.Event()
    polling = asyncio.create_task(poller.run(stop))
    rng = random.Random("club-secrecy")
    players = [Player(c, rng, before_act=poller.now_and_then) for c in clients.values()]
    await play_all(players, lambda v: v["phase"] == "game_over")
    for client in clients.values():  # every seated person confirms the rematch
        await client.send({"type": "rematch"})
    for client in clients.values():
        await client.wait_state(lambda v: v["phase"] not in ("game_over", "lobby"))
    # The first game reaches the archive behind the table (the outbox): wait for it, so
    # that the poller surely reads it while the second game is played (on a busy
    # machine the short second game can end before the archive's writer has run).
    await api.archived(club, members[1][1], 1)
    await play_all(players, lambda v: v["phase"] == "game_over")
    stop.set()
    await polling
    assert poller.live_rounds > 3, (poller.rounds, poller.live_rounds)
    assert poller.archived, "the first game was in the archive while the second was played"
    for client in clients.values():
        await client.close()
