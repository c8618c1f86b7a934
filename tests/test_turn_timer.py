"""The turn timer (room rule `turn_seconds`), on a real server over real sockets, with the
memory store and with Redis.

Timers run at `SCHMIER_TURN_TIMER_SCALE` (`turn_timer_scale`) so the suite does not wait
10 seconds a turn: a room of 10 s runs one second, one of 300 s thirty. What is
checked: bad values are refused and create nothing; without a timer every view says
`turn_ends_in: null`; with one, the views of a person's turn count down (a seat
connecting does not restart the count) and bots' turns say null; when the time runs out
the default bot plays that turn, the player keeps the seat, is not put on autopilot and
plays the next turn themself; a restarted server keeps the deadline.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from typing import Any

import orjson
import pytest

from schmier import engine
from schmier.config import Settings
from schmier.rooms.clock import Clock
from schmier.rooms.record import RoomRecord, Seat, bot_seat
from schmier.store import RedisStore
from tests.support import loopback
from tests.support.servers import (
    Client,
    Player,
    RunningServer,
    ServerFactory,
    play_all,
    seat_table,
)

SCALE = 0.1
"""10 s of the rule run 1 s; 300 s run 30 s."""


@pytest.fixture(params=["memory", "redis"])
def timer_server(request: pytest.FixtureRequest, server_factory: ServerFactory) -> RunningServer:
    """A fast server (bots at once) whose turn timers run at `SCALE`, on either store."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        prefix = request.getfixturevalue("redis_prefix")
        return server_factory(turn_timer_scale=SCALE, redis_url=url, redis_prefix=prefix)
    return server_factory(turn_timer_scale=SCALE)


def my_turn(seat: int) -> Any:
    return lambda v: v["phase"] not in ("lobby", "game_over") and seat in v["turn"] and v["legal"]


async def seat_actions(server: RunningServer, code: str, seat: int) -> list[dict[str, Any]]:
    """The actions the room's log holds for `seat` (read through a store of this test's
    own: the server's lives on the server's loop)."""
    settings = server.settings
    assert settings is not None
    if settings.redis_url is None:
        log = await server.app.state.rooms.store.read_log(code)
    else:
        store = RedisStore(settings.redis_url, prefix=settings.redis_prefix, ttl_seconds=600)
        log = await store.read_log(code)
        await store.aclose()
    return [e["action"] for e in map(orjson.loads, log) if e["seat"] == seat]


@pytest.mark.parametrize("value", [1, 9, 301, -10, 30.0, 10.5, "30", True, None, [30], {"s": 30}])
async def test_bad_values_are_refused_and_create_nothing(server: RunningServer, value: Any) -> None:
    rooms = server.app.state.rooms
    before = set(rooms.live)
    async with loopback.async_client(base_url=server.base_url) as http:
        answer = await http.post(
            "/api/rooms", json={"variant": "schmier6", "rules": {"turn_seconds": value}}
        )
    assert answer.status_code == 422, answer.text
    assert "turn_seconds" in answer.text
    assert set(rooms.live) == before


async def test_the_rule_is_published_and_kept(server: RunningServer) -> None:
    async with loopback.async_client(base_url=server.base_url) as http:
        books = (await http.get("/api/variants")).json()
        for book in books:
            spec = next(r for r in book["rules"] if r["name"] == "turn_seconds")
            assert spec == {
                "name": "turn_seconds",
                "type": "int",
                "min": 10,
                "max": 300,
                "off": 0,
                "default": 0,
            }
        for value in (0, 10, 300):
            made = await http.post(
                "/api/rooms", json={"variant": "wisconsin4", "rules": {"turn_seconds": value}}
            )
            assert made.status_code == 201, made.text
            assert made.json()["rules"]["turn_seconds"] == value
            room = (await http.get(f"/api/rooms/{made.json()['code']}")).json()
            assert room["rules"]["turn_seconds"] == value
        plain = await http.post("/api/rooms", json={"variant": "schmier5"})
        assert plain.json()["rules"]["turn_seconds"] == 0


async def test_without_a_timer_every_view_says_null(timer_server: RunningServer) -> None:
    _, clients, watchers, _ = await seat_table(
        timer_server, "wisconsin4", [0, 2], rules={"target": 5}, spectators=1
    )
    rng = random.Random(16)
    players = [Player(c, rng) for c in clients.values()]
    await play_all(players, lambda v: v["phase"] == "hand_over" or bool(v["tricks"]))
    for client in [*clients.values(), *watchers]:
        views = [f["view"] for f in client.frames if f["type"] == "state"]
        assert len(views) > 3
        assert all("turn_ends_in" in v and v["turn_ends_in"] is None for v in views)
        await client.close()


async def test_time_runs_out_the_bot_plays_and_the_player_plays_on(
    timer_server: RunningServer,
) -> None:
    """Seat 0 sits still through a turn of 10 s (1 s here): the default bot plays it
    for them; they keep the seat, connected, and their next turn waits for them (no
    autopilot) until they play it themself."""
    code, clients, _, _ = await seat_table(
        timer_server, "wisconsin4", [0], rules={"target": 5, "turn_seconds": 10}
    )
    me = clients[0]
    first = await me.wait_state(my_turn(0))
    left = first["view"]["turn_ends_in"]
    assert isinstance(left, float) and 0.0 <= left <= 10 * SCALE
    # Bots' turns are not timed: only views awaiting seat 0 carry a countdown.
    for frame in me.frames:
        view = frame["view"] if frame["type"] == "state" else None
        if view is not None and view["phase"] not in ("lobby", "hand_over", "game_over"):
            assert (view["turn_ends_in"] is not None) == (0 in view["turn"]), view
    assert await seat_actions(timer_server, code, 0) == []
    # Nothing is sent: the turn is played for seat 0 once its time is up.
    played = await me.wait_state(lambda v: v["legal"] != first["view"]["legal"])
    actions = await seat_actions(timer_server, code, 0)
    assert len(actions) == 1
    legal = first["view"]["legal"]
    if actions[0]["type"] == "discard":
        assert legal[0]["type"] == "discard"
    else:
        assert actions[0] in legal
    seat = played["view"]["seats"][0]
    assert (seat["kind"], seat["connected"], seat["name"]) == ("human", True, "Player 0")
    actor = timer_server.app.state.rooms.live[code]
    assert 0 not in actor.clock.autopilot
    # The next turn is theirs again, timed afresh, and what they send counts.
    turn = await me.wait_state(my_turn(0))
    assert turn["view"]["turn_ends_in"] is not None
    action = Player(me, random.Random(1)).choose(turn["view"]["legal"])
    await me.send(action)
    await me.wait_state(lambda v: v["legal"] != turn["view"]["legal"])
    mine = await seat_actions(timer_server, code, 0)
    # On a busy machine a turn of theirs may time out again before they see it (a CI
    # run met the trump played for them, then their discard), and another may follow at
    # once: what they sent is among what the seat did after the first timed-out turn.
    later = mine[1:]
    assert any(a["type"] == action["type"] for a in later), mine
    if action["type"] != "discard":
        assert action in later, mine
    await me.close()


async def test_the_count_goes_down_and_a_connection_does_not_restart_it(
    timer_server: RunningServer,
) -> None:
    """A room of 300 s (30 s here): a state caused by another seat leaving, and the first
    state of a spectator, made later in the same turn, show less time left."""
    code, clients, _, _ = await seat_table(
        timer_server, "schmier6", [0, 1], rules={"turn_seconds": 300}
    )
    # Whoever's turn comes first waits; the other human's socket goes.
    start = await clients[0].wait_state(lambda v: bool(v["turn"]) and v["turn"][0] in (0, 1))
    waiting = start["view"]["turn"][0]
    other = 1 - waiting
    watcher_of = clients[waiting]
    before = (await watcher_of.wait_state(my_turn(waiting)))["view"]["turn_ends_in"]
    assert isinstance(before, float) and 0.0 < before <= 300 * SCALE
    # Time must pass for the count to go down: views say the seconds left to the
    # millisecond.
    await asyncio.sleep(0.05)
    await clients[other].close()
    gone = await watcher_of.wait_state(lambda v: not v["seats"][other]["connected"])
    assert gone["view"]["turn"] == [waiting], (waiting, gone["view"]["turn"], start["view"]["turn"])
    after = gone["view"]["turn_ends_in"]
    assert isinstance(after, float) and after < before, (before, after)
    await asyncio.sleep(0.05)
    spectator = await Client.seated(timer_server, code, None)
    assert spectator.state is not None
    assert spectator.state["seq"] == gone["seq"], (spectator.state["view"], gone["view"])
    later = spectator.state["view"]["turn_ends_in"]
    assert isinstance(later, float) and later < after, (after, later)
    await spectator.close()
    await watcher_of.close()


async def test_a_restarted_server_keeps_the_deadline(
    server_factory: ServerFactory, redis_url: str, redis_prefix: str
) -> None:
    """The deadline is stored with the room: the next server counts on from it rather
    than giving the turn its whole time again."""
    settings: dict[str, Any] = {
        "turn_timer_scale": SCALE,
        "redis_url": redis_url,
        "redis_prefix": redis_prefix,
    }
    first = server_factory(**settings)
    code, clients, _, tokens = await seat_table(
        first, "wisconsin4", [0], rules={"turn_seconds": 300}
    )
    before = await clients[0].wait_state(my_turn(0))
    left = before["view"]["turn_ends_in"]
    assert isinstance(left, float)
    first.stop()
    await clients[0].closed()
    second = server_factory(**settings)
    back = await Client.seated(second, code, tokens[0])
    assert back.state is not None
    view = back.state["view"]
    assert view["turn"] == [0] and view["legal"] == before["view"]["legal"]
    assert isinstance(view["turn_ends_in"], float)
    assert view["turn_ends_in"] < left
    await back.close()


def _discards(rules: dict[str, Any]) -> list[engine.State]:
    """The states of a schmier6 hand (dealer 0) from its deal to its first lead, every
    seat taking the first legal action (bids over passes)."""
    rng = random.Random(1)
    state = engine.new_game("schmier6", engine.make_rules("schmier6", rules), 0)
    deck = engine.full_deck("schmier6")
    rng.shuffle(deck)
    states = [engine.deal(state, deck)]
    while states[-1].phase != "play":
        state = states[-1]
        seat = engine.turn(state)[0]
        legal = engine.legal_actions(state, seat)
        action = next((a for a in legal if a["type"] != "pass"), legal[0])
        if action["type"] == "discard":
            action = {"type": "discard", "cards": action["from"][: action["min"]]}
        states.append(engine.apply(state, seat, action))
    return states


def test_the_deadline_of_each_turn() -> None:
    """`Clock.timed` (told the wall-clock time): a person's turn gets `turn_seconds`
    (scaled) from now; the same turn going on keeps it; the dealer's discard after the others' is a
    turn of its own; bots' turns have none, and a room without a timer only the server's
    idle limit (`SCHMIER_IDLE_TURN_SECONDS`, unscaled)."""
    settings = Settings(turn_timer_scale=0.5, trick_pause=2.0)
    clock = Clock(settings, 100.0, wall_offset=1000.0)
    states = _discards({"turn_seconds": 60})
    humans = RoomRecord.new("abcdefghij", "schmier6", states[0].rules)
    for seat in range(6):
        humans = humans.with_seat(seat, Seat(kind="human", name=f"P{seat}"))
    lobby = humans
    first = clock.timed(lobby, replace(humans, state=states[0]), 1100.0)
    assert first.turn_deadline == 1100.0 + 30.0
    # A change that is no new turn (a seat connecting) keeps the deadline.
    again = clock.timed(first, replace(first, seats=first.seats), 1110.0)
    assert again.turn_deadline == first.turn_deadline
    # Each bid is a new turn.
    second = clock.timed(first, replace(first, state=states[1]), 1105.0)
    assert second.turn_deadline == 1105.0 + 30.0
    # The discards: one deadline for the seats discarding together; a fresh one for the
    # dealer, who discards after them.
    together = [k for k, s in enumerate(states) if s.phase == "discard" and 0 not in s.turn]
    dealer = next(k for k, s in enumerate(states) if s.phase == "discard" and 0 in s.turn)
    start = clock.timed(second, replace(second, state=states[together[0]]), 1120.0)
    record = start
    for k in together[1:]:
        record = clock.timed(record, replace(record, state=states[k]), 1121.0 + k)
        assert record.turn_deadline == start.turn_deadline
    last = clock.timed(record, replace(record, state=states[dealer]), 1140.0)
    assert last.turn_deadline == 1140.0 + 30.0
    # A bot's turn has none; nor has a room without a timer.
    bots = record.with_seat(0, bot_seat(0))
    assert clock.timed(record, replace(bots, state=states[dealer]), 140.0).turn_deadline is None
    plain = _discards({})
    untimed = replace(humans, rules=plain[0].rules)
    never = Clock(Settings(idle_turn_seconds=0), 100.0, wall_offset=1000.0)
    assert never.timed(untimed, replace(untimed, state=plain[0]), 100.0).turn_deadline is None
    # Unless the server has an idle limit: then that is the untimed turn's deadline.
    idle = Clock(Settings(idle_turn_seconds=45), 100.0, wall_offset=1000.0)
    assert idle.timed(untimed, replace(untimed, state=plain[0]), 100.0).turn_deadline == 145.0


def test_a_turn_after_a_completed_trick_starts_after_the_trick_pause() -> None:
    settings = Settings(turn_timer_scale=1.0, trick_pause=2.0)
    clock = Clock(settings, 0.0)
    state = _discards({"turn_seconds": 10})[-1]
    record = RoomRecord.new("abcdefghij", "schmier6", state.rules)
    for seat in range(6):
        record = record.with_seat(seat, Seat(kind="human", name=f"P{seat}"))
    record = replace(record, state=state)
    while not state.tricks:
        seat = engine.turn(state)[0]
        state = engine.apply(state, seat, engine.legal_actions(state, seat)[0])
        after = clock.timed(record, replace(record, state=state), 50.0)
        pause = 2.0 if state.tricks else 0.0
        assert after.turn_deadline == 50.0 + pause + 10.0
        record = after


def test_the_bot_plays_when_the_deadline_passes_or_sooner_for_an_away_player() -> None:
    """`Clock.seat_due` of a person's timed turn: the deadline in the clock's own time;
    for a player who is away, the sooner of it and the away grace."""
    settings = Settings(autoplay_after=5.0)
    clock = Clock(settings, 100.0, wall_offset=1000.0)
    state = _discards({"turn_seconds": 60})[0]
    record = RoomRecord.new("abcdefghij", "schmier6", state.rules)
    for seat in range(6):
        record = record.with_seat(seat, Seat(kind="human", name=f"P{seat}"))
    clock.loaded(6, 100.0)
    clock.state_changed(None, state, 100.0)
    seat = engine.turn(state)[0]
    timed = replace(record, state=state, turn_deadline=1160.0)
    assert clock.seat_due(timed, seat, True) == 160.0
    assert clock.seat_due(timed, seat, False) == 105.0
    untimed = replace(timed, turn_deadline=None)
    assert clock.seat_due(untimed, seat, True) is None
    # Away, and the turn out of time: on autopilot; only out of time: not.
    assert clock.autoplayed(seat, present=True) is False and seat not in clock.autopilot
    assert clock.autoplayed(seat, present=False) is True and seat in clock.autopilot
