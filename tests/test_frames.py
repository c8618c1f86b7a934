"""Spliced `state` frames are exactly the frames of the whole views."""

from __future__ import annotations

import random
import time
from dataclasses import replace

import orjson
import pytest

from schmier import engine
from schmier.rooms.frames import StateFrames, room_view
from schmier.rooms.record import RoomRecord, Seat, bot_seat


def _record(variant: str, state: engine.State | None) -> RoomRecord:
    record = RoomRecord.new("abcdefghij", variant, engine.make_rules(variant))
    record = record.with_seat(0, Seat(kind="human", name='Ann "<b>"', connected=True))
    record = record.with_seat(1, bot_seat(1))

    return replace(record, state=state)


@pytest.mark.parametrize("variant", engine.VARIANTS)
def test_spliced_frames_equal_whole_views(variant: str) -> None:
    rng = random.Random(3)
    n = engine.seat_count(variant)
    state: engine.State | None = None
    records = [_record(variant, None)]
    state = engine.new_game(variant, engine.make_rules(variant), 0)
    for _ in range(60):
        if engine.needs_deal(state):
            deck = engine.full_deck(variant)
            rng.shuffle(deck)
            state = engine.deal(state, deck)
        seat = rng.choice(state.turn)
        action = rng.choice(engine.legal_actions(state, seat))
        if action["type"] == "discard":
            action = {"type": "discard", "cards": action["from"][: action["min"]]}
        state = engine.apply(state, seat, action)
        records.append(_record(variant, state))
    for version, record in enumerate(records, start=1):
        frames = StateFrames(record, version)
        for seat in [None, *range(n)]:
            decoded = orjson.loads(frames.frame(seat))
            assert decoded == {"type": "state", "seq": version, "view": room_view(record, seat)}
            view = decoded["view"]
            if record.state is None:
                whole = engine.lobby_view(variant, record.rules, seat)
            else:
                whole = engine.view(record.state, seat)
            assert view.pop("code") == record.code
            assert view.pop("turn_ends_in") is None  # no timer in these rooms
            assert view.pop("idle_ends_in") is None  # nor an idle limit's deadline
            # The commitments are the room's (the engine knows nothing of seeds).
            pending = record.next_deal
            assert view.pop("next_deal") == (None if pending is None else pending.view())
            assert view.pop("deal") == (
                None if record.dealt is None else {"commitment": record.dealt}
            )
            names = [s.name for s in record.seats]
            assert [entry.pop("name") for entry in view["seats"]] == names
            bots = [s.bot for s in record.seats]
            assert [entry.pop("bot", None) for entry in view["seats"]] == bots
            for entry in view["seats"]:
                del entry["kind"], entry["connected"]
            # The room's own fields: who hosts, the host's pause, the rematch votes.
            assert (view.pop("host"), view.pop("paused"), view.pop("rematch")) == (
                record.host,
                False,
                [],
            )
            if record.state is None or record.state.phase == "game_over":
                # The room's seat actions (and the rematch vote), not the engine's.
                del view["legal"], whole["legal"]
            assert view == whole


def test_the_time_left_of_a_timed_turn_is_written_when_a_frame_is_made() -> None:
    """The version's frames are kept, but each one sent says the time left then: a
    frame made after the deadline says 0, never less, and the rest of the frame is the
    kept one."""
    variant = "schmier6"
    for rules, shown, hidden in (
        ({"turn_seconds": 30}, "turn_ends_in", "idle_ends_in"),
        # No timer: the deadline is the server's idle limit's, shown as such.
        ({}, "idle_ends_in", "turn_ends_in"),
    ):
        state = engine.new_game(variant, engine.make_rules(variant, rules), 0)
        record = replace(_record(variant, state), rules=state.rules)
        before = time.time()
        timed = replace(record, turn_deadline=before + 30.0)
        frames = StateFrames(timed, 4)
        first = orjson.loads(frames.frame(0))
        left = first["view"][shown]
        assert isinstance(left, float) and 0.0 < left <= 30.0
        assert left <= timed.turn_deadline - before
        assert first["view"][hidden] is None
        past = StateFrames(replace(record, turn_deadline=before - 5.0), 4)
        late = orjson.loads(past.frame(0))
        assert late["view"][shown] == 0.0
        del first["view"][shown], late["view"][shown]
        assert first == late
        assert room_view(timed, None)[shown] is not None
        assert room_view(timed, None)[hidden] is None
        assert room_view(record, None)[shown] is None
