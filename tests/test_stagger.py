"""Tables that start or resume together do not keep doing the server's work together
(schmier/rooms/stagger.py): each room's own timers are shifted by its phase, within the
bounds its settings promise.

Every test here looks at *when* work is scheduled for a hundred rooms that started in
the same instant (the same clock reading, as uvloop gives every room resumed in one turn
of the loop), never at how long anything took: without the shift every one of them would
schedule its work for the very same moment.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

from schmier import engine
from schmier.config import Settings
from schmier.metrics import Metrics
from schmier.rooms import stagger
from schmier.rooms.clock import (
    BOT_DELAY_SPREAD,
    GRACE_CAP,
    HAND_PAUSE_CAP,
    IDLE_STOP_CAP,
    IDLE_TURN_CAP,
    IDLE_TURN_SHARE,
    Clock,
    Due,
    turn_goes_on,
)
from schmier.rooms.codes import CODE_ALPHABET, CODE_LENGTH
from schmier.rooms.record import RoomRecord, Seat, bot_seat
from schmier.rooms.registry import Rooms
from schmier.rooms.thinking import Pool
from schmier.store import MemoryStore
from tests.support.engine_helpers import concrete, random_step

ROOMS = 100
NOW = 5000.0
"""The loop time at which every room started."""
WALL = 1_700_000_000.0
"""The wall-clock time at that moment."""


def _codes(count: int = ROOMS, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)) for _ in range(count)]


def _spread_over(times: list[float], start: float, end: float, parts: int = 10) -> int:
    """How many of `parts` equal slices of [start, end] hold at least one of `times`
    (each time must lie within the window)."""
    assert all(start - 1e-9 <= t <= end + 1e-9 for t in times), (min(times), max(times))
    width = (end - start) / parts
    return len({min(parts - 1, int((t - start) / width)) for t in times})


def _table(code: str, kinds: str) -> RoomRecord:
    """A dealt wisconsin4 table, seats `h` (a person) or `b` (a bot), the host at 0."""
    rules = engine.make_rules("wisconsin4")
    record = RoomRecord.new(code, "wisconsin4", rules)
    for seat, kind in enumerate(kinds):
        value = Seat(kind="human", name=f"P{seat}") if kind == "h" else bot_seat(seat)
        record = record.with_seat(seat, value)
    deck = engine.full_deck("wisconsin4")
    random.Random(code).shuffle(deck)
    state = engine.deal(engine.new_game("wisconsin4", rules, 0), deck)
    return replace(record.with_host(), state=state)


def _clock(code: str, settings: Settings) -> Clock:
    """The clock of room `code` as its actor makes it, loaded at `NOW`."""
    clock = Clock(settings, NOW, wall_offset=WALL - NOW, phase=stagger.phase(code))
    clock.loaded(4, NOW)
    return clock


def test_phases_of_random_codes_are_even_and_the_same_everywhere() -> None:
    places = [stagger.phase(code) for code in _codes(2000)]
    assert all(0 <= p < 1 for p in places)
    tenths = [sum(1 for p in places if k / 10 <= p < (k + 1) / 10) for k in range(10)]
    assert min(tenths) > 120 and max(tenths) < 280, tenths  # 200 expected in each
    # A hash of the code, not Python's per-process `hash`: a fixed value.
    assert stagger.phase("abcdefghij") == stagger.phase("abcdefghij")
    assert round(stagger.phase("abcdefghij"), 6) == 0.131774


def test_slots_keep_their_period_and_rooms_started_together_spread_over_it() -> None:
    period = 5000 / 3000  # a follower's lease check: a third of the lease time
    firsts = []
    for code in _codes():
        place = stagger.phase(code)
        first = stagger.next_slot(NOW, period, place)
        assert NOW < first <= NOW + period
        second = stagger.next_slot(first, period, place)
        assert abs(second - first - period) < 1e-9
        # A room keeps its slots whenever it began.
        assert abs(stagger.next_slot(first - 0.001, period, place) - first) < 1e-9
        firsts.append(first)
    assert _spread_over(firsts, NOW, NOW + period) >= 9


def test_bots_of_tables_resumed_together_move_spread_over_a_fifth_of_the_delay() -> None:
    """Each bot asks for its decision as its turn begins (the workers take the soonest
    due first); its move, once decided, comes up to a fifth of the delay sooner."""
    settings = Settings(bot_delay=0.8)
    dues = []
    for code in _codes():
        record = _table(code, "bbbb")
        clock = _clock(code, settings)
        clock.state_changed(None, record.state, NOW)  # every turn began at the same moment
        (ask,) = clock.due(record, lambda _seat: False)
        assert ask.at == NOW
        clock.ready.add(ask.seat)  # decided
        (due,) = clock.due(record, lambda _seat: False)
        assert due.seat == ask.seat and due.at == clock.bot_move_at(record, ask.seat)
        dues.append(due.at)
    low = NOW + 0.8 * (1 - BOT_DELAY_SPREAD)
    assert _spread_over(dues, low, NOW + 0.8) >= 8
    assert len(set(dues)) > 90


def test_a_bots_decision_held_for_its_delay_goes_with_its_game_state() -> None:
    """A decision made ahead of the delay belongs to the state it was made in: any new
    state drops it (the bot asks again at once), and a seat moved elsewhere loses it."""
    code = _codes(1)[0]
    record = _table(code, "bbbb")
    clock = _clock(code, Settings(bot_delay=0.8))
    clock.state_changed(None, record.state, NOW)
    (ask,) = clock.due(record, lambda _seat: False)
    clock.ready.add(ask.seat)
    assert clock.due(record, lambda _seat: False)[0].at > NOW
    assert record.state is not None
    legal = engine.view(record.state, ask.seat)["legal"]
    moved = replace(record, state=engine.apply(record.state, ask.seat, legal[0]))
    assert moved.state is not None
    clock.state_changed(record.state, moved.state, NOW + 1)
    assert clock.ready == set()
    (nxt,) = engine.turn(moved.state)
    assert clock.due(moved, lambda _seat: False) == [Due(NOW + 1, nxt)]
    clock.ready.add(nxt)
    clock.seats_moved({nxt: None})
    assert clock.ready == set()


def _discards(seed: int) -> engine.State:
    """A `schmier6` state in the simultaneous discards, several seats still to discard."""
    rng = random.Random(seed)
    state = engine.new_game("schmier6", engine.default_rules("schmier6"), 0)
    while not (state.phase == "discard" and len(engine.turn(state)) > 2):
        seat, action = random_step("schmier6", state, rng)
        if seat is None:
            state = engine.deal(state, action["deck"])
        else:
            state = engine.apply(state, seat, action)
    return state


def test_decisions_held_for_the_discards_outlast_another_seats_discard() -> None:
    """While the simultaneous discards go on, a bot's decided discard stays held when
    another seat discards (its choice is still good), and goes once the phase moves on."""
    state = _discards(3)
    first, second, *_ = engine.turn(state)
    legal = engine.view(state, first)["legal"]
    after = engine.apply(state, first, concrete(legal[0], random.Random(1)))
    assert second in engine.turn(after) and first not in engine.turn(after)
    assert turn_goes_on(state, after) and not turn_goes_on(after, state)
    other = _discards(4)  # another deal's discards (a room reloaded, say): not the same
    assert other.deals == state.deals and not turn_goes_on(state, other)
    clock = Clock(Settings(bot_delay=0.8), NOW)
    clock.state_changed(None, state, NOW)
    clock.ready |= {first, second}
    clock.state_changed(state, after, NOW + 0.5)
    assert clock.ready == {second}
    dealt = engine.new_game("schmier6", engine.default_rules("schmier6"), 0)
    assert not turn_goes_on(after, dealt)
    clock.state_changed(after, dealt, NOW + 1)
    assert clock.ready == set()


def test_absent_players_graces_come_later_spread_over_a_tenth() -> None:
    """An absent player's turn (`autoplay_after`) and the host's role (`host_away`)."""
    settings = Settings(autoplay_after=60.0, host_away=60.0, idle_turn_seconds=0)
    autoplays, handovers = [], []
    for code in _codes():
        record = _table(code, "hhhh")
        clock = _clock(code, settings)
        clock.state_changed(None, record.state, NOW)
        (seat,) = engine.turn(record.state)  # type: ignore[arg-type]
        autoplays.append(clock.seat_due(record, seat, present=False))
        # The host (seat 0) went with everybody else; seat 1 is back.
        handovers.append(clock.host_due(record, lambda k: k == 1))
    window = min(60.0 * 0.1, GRACE_CAP)
    assert _spread_over(autoplays, NOW + 60, NOW + 60 + window) >= 8  # type: ignore[arg-type]
    assert _spread_over(handovers, NOW + 60, NOW + 60 + window) >= 8  # type: ignore[arg-type]


def test_the_next_deal_after_a_scored_hand_comes_spread_over_its_share() -> None:
    settings = Settings(hand_pause=5.0)
    deals = []
    for code in _codes():
        record = _table(code, "hhhh")
        state = record.state
        assert state is not None
        deals.append(_clock(code, settings).deal_due(record, state))
    assert _spread_over(deals, NOW + 5, NOW + 5 + HAND_PAUSE_CAP) >= 8


def test_the_idle_limit_of_turns_begun_together_ends_spread_and_never_later() -> None:
    """The deadline is the one the views show (`idle_ends_in`): shown as played."""
    settings = Settings(idle_turn_seconds=120.0)
    deadlines = []
    for code in _codes():
        dealt = _table(code, "hhhh")
        before = replace(dealt, state=engine.new_game("wisconsin4", dealt.rules, 0))
        after = _clock(code, settings).timed(before, dealt, WALL)
        assert after.turn_deadline is not None
        deadlines.append(after.turn_deadline)
    window = min(120 * IDLE_TURN_SHARE, IDLE_TURN_CAP)
    assert _spread_over(deadlines, WALL + 120 - window, WALL + 120) >= 8


def test_a_room_rules_turn_timer_is_never_shifted() -> None:
    settings = Settings(turn_timer_scale=1.0, idle_turn_seconds=120.0)
    for code in _codes(20):
        dealt = _table(code, "hhhh")
        timed = replace(dealt, rules=replace(dealt.rules, turn_seconds=30))
        before = replace(timed, state=engine.new_game("wisconsin4", timed.rules, 0))
        assert _clock(code, settings).timed(before, timed, WALL).turn_deadline == WALL + 30


async def test_rooms_resumed_at_once_stop_for_idleness_spread_over_a_tenth() -> None:
    """A hundred stored rooms loaded together (as the first hellos after a restart load
    them), nobody connected: their idle stops are due spread over the window, each at
    least `idle_room_seconds` after its load."""
    settings = Settings(idle_room_seconds=300.0)
    rooms = Rooms(MemoryStore(600.0), settings, Metrics(), pool=Pool(0))
    rules = engine.make_rules("wisconsin4")
    codes = [(await rooms.create("wisconsin4", rules)).code for _ in range(ROOMS)]
    try:
        actors = await asyncio.gather(*(rooms.get(code) for code in codes))
        loaded = [rooms.owned(code) for code in codes]
        assert all(a is not None for a in actors) and all(a is not None for a in loaded)
        stops = [actor.clock.idle_due() - actor.clock.now for actor in loaded if actor]
        window = min(300.0 * 0.1, IDLE_STOP_CAP)
        assert _spread_over(stops, 300.0, 300.0 + window) >= 8
        assert [actor.clock.phase for actor in loaded if actor] == [
            stagger.phase(code) for code in codes
        ]
    finally:
        await rooms.stop_all()
