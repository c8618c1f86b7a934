"""The shared review in the room record: kept by the snapshot (format 5), absent from
older snapshots, refused when out of its bounds, settled by every commit (closed once a
hand is played, led by a person), and held by the clock against the next deal."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from schmier import engine
from schmier.config import Settings
from schmier.protocol import parse_client_frame
from schmier.rooms import together
from schmier.rooms.change import Change
from schmier.rooms.clock import Clock
from schmier.rooms.peers import Refused
from schmier.rooms.record import SNAPSHOT_FORMAT, RoomRecord, Seat
from schmier.rooms.shared import SharedReview


def _room(phase: str = "hand_over") -> RoomRecord:
    record = RoomRecord.new("abcdefghij", "wisconsin4", engine.make_rules("wisconsin4"))
    for k, name in ((0, "Ann"), (1, "Bob"), (2, "Cat")):
        record = record.with_seat(
            k, Seat(kind="human", name=name, token_hash=str(k) * 64, connected=True)
        )
    record = record.with_seat(3, Seat(kind="bot", name="Bot 4", bot="normal"))
    state = engine.new_game("wisconsin4", record.rules, 0)
    return replace(record, state=state._replace(phase=phase), first_dealer=0)


def _reviewed(record: RoomRecord) -> RoomRecord:
    review = SharedReview(hand=2, leader=1, length=30, step=7, point="KH", following=(0,))
    return replace(record, review=review)


def test_the_review_survives_the_snapshot() -> None:
    record = _reviewed(_room())
    body = orjson.loads(record.to_bytes())
    assert body["format"] == SNAPSHOT_FORMAT == 5
    assert RoomRecord.from_bytes(record.to_bytes()).review == record.review


@pytest.mark.parametrize("fmt", [1, 2, 3, 4])
def test_an_older_snapshot_has_no_review(fmt: int) -> None:
    body = orjson.loads(_room().to_bytes())
    del body["review"]
    body["format"] = fmt
    old = RoomRecord.from_bytes(orjson.dumps(body))
    assert old.review is None
    assert orjson.loads(old.to_bytes())["format"] == SNAPSHOT_FORMAT


@pytest.mark.parametrize(
    "bad",
    [
        {"step": 31},
        {"step": -1},
        {"length": 10**6, "step": 0},
        {"hand": 0},
        {"hand": "2"},
        {"leader": 4},
        {"point": "ZZ"},
        {"following": list(range(100))},
        {"following": [9]},
        {"following": [0], "wandering": [0]},
        {"step": True},
    ],
)
def test_a_review_out_of_bounds_is_refused(bad: dict[str, object]) -> None:
    body = orjson.loads(_reviewed(_room()).to_bytes())
    body["review"].update(bad)
    with pytest.raises(ValueError):
        RoomRecord.from_bytes(orjson.dumps(body))


def test_a_hand_in_play_closes_the_review() -> None:
    record = _reviewed(_room("bidding"))
    assert Change(record).stored().review is None
    assert Change(_reviewed(_room())).stored().review is not None


def test_the_lead_passes_when_the_leaders_seat_is_no_longer_a_persons() -> None:
    record = _reviewed(_room())
    left = record.with_seat(1, Seat(kind="bot", name="Bot 2", bot="normal"))
    review = Change(left).stored().review
    assert review is not None and review.leader == 0 and review.following == ()
    nobody = left.with_seat(0, Seat()).with_seat(2, Seat())
    assert Change(nobody).stored().review is None


def test_the_clock_holds_the_deal_while_the_review_is_open() -> None:
    clock = Clock(Settings(hand_pause=0), 0.0)
    record = _room()
    assert [d.seat for d in clock.due(record, lambda k: True)] == [None]
    assert clock.due(_reviewed(record), lambda k: True) == []


def test_the_pure_ops() -> None:
    record = _reviewed(_room())

    def frame(**fields: object) -> together.Review:
        parsed = parse_client_frame(orjson.dumps({"type": "review", **fields}))
        assert isinstance(parsed, together.Review)
        return parsed

    stepped = together.for_frame(record, 1, frame(op="step", step=30)).record.review
    assert stepped is not None and (stepped.step, stepped.point) == (30, None)
    led = together.for_frame(record, 1, frame(op="lead", seat=2)).record.review
    assert led is not None and (led.leader, led.following) == (2, (0, 1))
    wander = together.for_frame(record, 2, frame(op="follow", follow=False)).record.review
    assert wander is not None and wander.wandering == (2,)
    with pytest.raises(Refused) as refused:
        together.for_frame(record, 0, frame(op="close"))
    assert refused.value.code == "forbidden"
    with pytest.raises(Refused):
        together.open_review(record, 0, 1, 10)
