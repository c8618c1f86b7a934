"""The shared review as the room keeps it: which finished hand the table looks at, who
leads, the leader's step and pointer, and who looks on (docs/protocol.md, "Review
together"); and what a practice room keeps of the hand it plays again (`Practice`).

It is part of the room record (`RoomRecord.review`), committed like any change of the
room, so a restarted server or another instance taking the room over goes on at the
same step, and every instance builds the same `review` frame from the snapshot. What it
holds is small and bounded: a hand's number, a step no larger than that hand's number
of actions, one card, and seats of the table; a snapshot whose review is out of those
bounds is refused when read (`from_json`), as any corrupt snapshot is.

The review never holds a card of a hand in play: it names a finished hand (one that has
a record), and a pointer is a card of the game's deck that the leader chose to show.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import orjson

from schmier.engine.cards import CARD_INDEX

STEPS_MAX = 10_000
"""The most actions a reviewed hand may have (a hand of six seats has far fewer)."""
HANDS_MAX = 1_000_000
"""The highest hand number a review may name."""
SEATS_MAX = 64
"""No table has more seats."""
OPEN_PHASES = ("hand_over", "game_over")
"""The phases in which no hand is being played: a review may be open in these only."""
PRACTICES_MAX = 20
"""Practice rooms one shared review may start (each is a room of the server's)."""
TABLES_MAX = 30
"""Practice rooms one finished hand may be played again in (counted with the hand, for
the comparison of the tables: docs/protocol.md, "Another table")."""
ORIGINAL_MAX = 8192
"""Bytes the original hand's result may take in a practice room's snapshot."""


@dataclass(frozen=True, slots=True)
class SharedReview:
    """The room's open shared review."""

    hand: int
    """The finished hand reviewed (the `n` of its record)."""
    leader: int
    """The seat leading."""
    length: int
    """The number of actions in the hand's record: the last step."""
    step: int = 0
    point: str | None = None
    """The card the leader points at, until the next step."""
    following: tuple[int, ...] = ()
    """Seated players (not the leader) who look on and follow the leader, sorted."""
    wandering: tuple[int, ...] = ()
    """Seated players who look on and step on their own, sorted."""
    practices: int = 0
    """Practice rooms started from this review (at most `PRACTICES_MAX`)."""

    def frame(self) -> bytes:
        """The `review` frame of this review."""
        return frame_of(self)

    def with_member(self, seat: int, follows: bool | None) -> SharedReview:
        """`seat` following the leader (`follows` true), stepping alone (false) or no
        longer looking on (None)."""
        following = tuple(k for k in self.following if k != seat)
        wandering = tuple(k for k in self.wandering if k != seat)
        if follows is True:
            following = tuple(sorted((*following, seat)))
        elif follows is False:
            wandering = tuple(sorted((*wandering, seat)))
        return replace(self, following=following, wandering=wandering)

    def led_by(self, seat: int) -> SharedReview:
        """The lead passed to `seat` (who no longer follows anyone); the old leader
        follows the new one."""
        old = self.leader
        return replace(self.with_member(seat, None), leader=seat).with_member(old, True)

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "leader": self.leader,
            "length": self.length,
            "step": self.step,
            "point": self.point,
            "following": list(self.following),
            "wandering": list(self.wandering),
            "practices": self.practices,
        }

    @classmethod
    def from_json(cls, body: Any, seats: int) -> SharedReview:
        """A review from the snapshot; `ValueError` when anything is out of bounds."""
        if not isinstance(body, dict):
            raise ValueError("a shared review is an object")
        hand, leader, length, step = (body.get(k) for k in ("hand", "leader", "length", "step"))
        numbers = (hand, leader, length, step)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in numbers):
            raise ValueError("a shared review's hand, leader, length and step are integers")
        assert isinstance(hand, int) and isinstance(leader, int)
        assert isinstance(length, int) and isinstance(step, int)
        if not (1 <= hand <= HANDS_MAX and 0 <= step <= length <= STEPS_MAX):
            raise ValueError("a shared review's hand or step is out of range")
        point = body.get("point")
        if point is not None and point not in CARD_INDEX:
            raise ValueError("a shared review points at no card")
        following = _seats(body.get("following", []), seats)
        wandering = _seats(body.get("wandering", []), seats)
        if not 0 <= leader < seats or set(following) & set(wandering):
            raise ValueError("a shared review's seats do not fit the table")
        practices = body.get("practices", 0)
        if not isinstance(practices, int) or not 0 <= practices <= PRACTICES_MAX:
            raise ValueError("a shared review's count of practice rooms is out of range")
        return cls(hand, leader, length, step, point, following, wandering, practices)


def _seats(value: Any, seats: int) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > SEATS_MAX:
        raise ValueError("a shared review's seats are a short list")
    if not all(isinstance(k, int) and 0 <= k < seats for k in value):
        raise ValueError("a shared review names a seat the table does not have")
    return tuple(sorted(set(value)))


CLOSED = orjson.dumps(
    {"type": "review", "hand": None, "leader": None, "step": 0, "point": None,
     "following": [], "wandering": []}
)  # fmt: skip
"""The `review` frame while no review is open."""


def frame_of(review: SharedReview | None) -> bytes:
    """The `review` frame of the room's review (the closed one for None)."""
    if review is None:
        return CLOSED
    return orjson.dumps(
        {
            "type": "review",
            "hand": review.hand,
            "leader": review.leader,
            "step": review.step,
            "point": review.point,
            "following": list(review.following),
            "wandering": list(review.wandering),
        }
    )


def settled(
    review: SharedReview | None, phase: str, humans: list[int], connected: list[int]
) -> SharedReview | None:
    """The review as a committed record may hold it: none once a hand is being played
    (the players started the next hand, which closes it); only people's seats looking
    on; a leader whose seat is no longer a person's replaced by the lowest connected
    person's seat, the review closed when there is none."""
    if review is None:
        return None
    if phase not in OPEN_PHASES:
        return None
    people = set(humans)
    kept = replace(
        review,
        following=tuple(k for k in review.following if k in people),
        wandering=tuple(k for k in review.wandering if k in people),
    )
    if kept.leader in people:
        return kept
    if not connected:
        return None
    return kept.led_by(connected[0]).with_member(review.leader, None)


@dataclass(frozen=True, slots=True)
class Practice:
    """What a practice room keeps of where it comes from: the original room, the hand
    and the step it starts at, and the original hand's result (its `last_hand`), shown
    beside the practice's once it is scored. A practice room plays that one hand."""

    room: str
    hand: int
    step: int
    original: dict[str, Any]

    def info(self) -> dict[str, Any]:
        """`"practice"` of `GET /api/rooms/{code}` and of the view."""
        return {"room": self.room, "hand": self.hand, "step": self.step}

    def to_json(self) -> dict[str, Any]:
        return {**self.info(), "original": self.original}

    @classmethod
    def from_json(cls, body: Any) -> Practice:
        """A practice from the snapshot; `ValueError` when anything is out of bounds."""
        if not isinstance(body, dict):
            raise ValueError("a practice is an object")
        room, hand, step, original = (body.get(k) for k in ("room", "hand", "step", "original"))
        if not isinstance(room, str) or not 1 <= len(room) <= 64:
            raise ValueError("a practice names its original room")
        if not isinstance(hand, int) or not isinstance(step, int) or isinstance(step, bool):
            raise ValueError("a practice's hand and step are integers")
        if not (1 <= hand <= HANDS_MAX and 0 <= step <= STEPS_MAX):
            raise ValueError("a practice's hand or step is out of range")
        if not isinstance(original, dict) or len(orjson.dumps(original)) > ORIGINAL_MAX:
            raise ValueError("a practice's original result is missing or too big")
        return cls(room, hand, step, original)
