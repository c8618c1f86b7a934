"""The room record: what the store keeps of a room, and its (de)serialisation.

The snapshot holds the seats (name, kind, token hash, connected), the variant, the
rules, the first dealer, the engine state (`engine.state_to_json`), the committed seed of
the next deck with the players' commits and revealed values for it (and the reveal
window, while one is open), the commitment of the deck in play, and the table's own
state: who hosts it, whether the host paused the game (with the time left of a timed
turn), and who asked for the rematch. Chat lines are kept beside it
(`RoomStore.add_chat`), not in it: the snapshot is written at every change. The record is
immutable: the actor builds the next record, commits it, and only then adopts it, so a
failed commit leaves the room exactly as it was.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

import orjson

from schmier import engine
from schmier.engine.bots import levels
from schmier.protocol import SeatKind
from schmier.rooms.fairness import NextDeal
from schmier.rooms.shared import Practice, SharedReview, settled

SNAPSHOT_FORMAT = 5
"""2 added `next_deal` and `dealt`; 3 the `bot` of a bot's seat; 4 the room's `club`, the
number of its `game`, the `member` of a seat, and the table's `host`, `paused`,
`turn_left` and `rematch`; 5 the shared `review` and a practice room's `practice`. Older
snapshots are still read (see `from_bytes`); `turn_deadline` may be absent from any (then
there is none)."""
READABLE_FORMATS = (1, 2, 3, 4, 5)


@dataclass(frozen=True, slots=True)
class Seat:
    """One chair at the table."""

    kind: SeatKind = "empty"
    name: str | None = None
    token_hash: str | None = None
    """SHA-256 of the seat's token; only human seats have one."""
    connected: bool = False
    bot: str | None = None
    """The level (`levels.LEVELS` name) of a bot's seat; None for any other seat."""
    member: str | None = None
    """The club member seated here with a member key (a club room's human seat)."""


def bot_seat(seat: int, bot: str | None = None) -> Seat:
    """A bot of level `bot` (None: the default) sitting at `seat`.

    Bots are named after their chair; the client shows the level beside the name.
    Raises ``KeyError`` for an unknown level.
    """
    return Seat(kind="bot", name=f"Bot {seat + 1}", bot=levels.level(bot).name)


@dataclass(frozen=True, slots=True)
class RoomRecord:
    """A room as committed to the store."""

    code: str
    variant: str
    rules: engine.Rules
    seats: tuple[Seat, ...]
    first_dealer: int | None = None
    state: engine.State | None = None
    """None while the room is in its lobby."""
    created: float = 0.0
    ops: tuple[str, ...] = ()
    """Ids of the last forwarded operations this room applied (newest last).

    Stored with the snapshot, in the same atomic commit as the change they caused, so
    an instance that takes the room over can tell an operation the dead owner already
    applied (and must only acknowledge) from one it never saw (and must apply).
    """
    next_deal: NextDeal | None = None
    """The next deck's secret seed, the players' commits and values for it, the reveal
    window. None only in a room read from a format 1 snapshot, until its next change
    (`table.Change.stored` adds one)."""
    dealt: str | None = None
    """The commitment of the last deck dealt (the hand in play, or the one just scored)."""
    turn_deadline: float | None = None
    """When the timed turn of a person ends (`turn_seconds`), as a wall-clock time (Unix
    seconds); None when no person's turn is timed. Stored with the room, so an instance
    that loads it (after a restart, or taking it over) keeps the same deadline and every
    instance shows the same countdown (`clock.Clock.timed` sets it)."""
    club: str | None = None
    """The club whose room this is (its finished games count for it); None: no club."""
    game: int | None = 0
    """The number of the game in play or just over (1 from the start, plus one per
    rematch; 0 in the lobby), which names a finished game in the archive. None for a
    room read from a snapshot before format 4 that had started: the actor counts it
    from the log when it loads the room (`finished.count_games`)."""
    host: int | None = None
    """The seat of the room's host (docs/protocol.md, "The host"): the first human to sit
    down; when that seat is no longer a human's, the lowest connected human seat (see
    `with_host`). None while no human sits."""
    paused: bool = False
    """The host paused the game: no bot acts, no timer runs, no game action is taken."""
    turn_left: float | None = None
    """While paused: the seconds that were left of the timed turn (its deadline is then
    None); given back as a new deadline on resume."""
    rematch: tuple[int, ...] = ()
    """At `game_over`: the seats that asked for the rematch (sorted). The next game starts
    once every seat is taken and every seated human has asked."""
    review: SharedReview | None = None
    """The shared review of a finished hand the table looks at (`shared.py`); None while
    none is open."""
    practice: Practice | None = None
    """A practice room's origin (docs/protocol.md, "Practice from a position"): it plays
    that one hand again and shows the original's result beside its own; None for a
    room of the players' own."""

    @classmethod
    def new(
        cls, code: str, variant: str, rules: engine.Rules, club: str | None = None
    ) -> RoomRecord:
        """A room in its lobby with every seat empty."""
        seats = tuple(Seat() for _ in range(engine.seat_count(variant)))
        return cls(
            code=code,
            variant=variant,
            rules=rules,
            seats=seats,
            created=time.time(),
            next_deal=NextDeal.fresh(len(seats)),
            club=club,
        )

    @property
    def phase(self) -> str:
        """The protocol's phase of the room."""
        return "lobby" if self.state is None else str(self.state.phase)

    def with_seat(self, seat: int, value: Seat) -> RoomRecord:
        """This record with one seat replaced (a rematch vote of a seat that changes
        hands is dropped: the newcomer has not asked)."""
        seats = list(self.seats)
        seats[seat] = value
        votes = self.rematch
        if seat in votes and value.token_hash != self.seats[seat].token_hash:
            votes = tuple(k for k in votes if k != seat)
        return replace(self, seats=tuple(seats), rematch=votes)

    def humans(self) -> list[int]:
        """The seats people hold, lowest first."""
        return [k for k, s in enumerate(self.seats) if s.kind == "human"]

    def with_host(self) -> RoomRecord:
        """This record with a host that holds a human seat, if any human sits.

        The host keeps the role while their seat is a human's (connected or not); once
        it is not (left, freed, or never set), the lowest connected human seat becomes
        host, else the lowest human seat (the first to sit down, when one joins an empty
        table: a newcomer's socket is not connected yet when the join is committed).
        """
        host = self.host
        if host is not None and 0 <= host < len(self.seats) and self.seats[host].kind == "human":
            return self
        humans = self.humans()
        connected = [k for k in humans if self.seats[k].connected]
        candidates = connected or humans
        chosen = candidates[0] if candidates else None
        return self if chosen == host else replace(self, host=chosen)

    def with_review(self) -> RoomRecord:
        """This record with its shared review as a committed record may hold it
        (`shared.settled`: closed once a hand is played, led by a person)."""
        connected = [k for k in self.humans() if self.seats[k].connected]
        review = settled(self.review, self.phase, self.humans(), connected)
        return self if review == self.review else replace(self, review=review)

    def to_bytes(self) -> bytes:
        """The store snapshot."""
        body: dict[str, Any] = {
            "format": SNAPSHOT_FORMAT,
            "code": self.code,
            "variant": self.variant,
            "rules": engine.rules_to_json(self.rules),
            "seats": [
                {
                    "kind": s.kind,
                    "name": s.name,
                    "token_hash": s.token_hash,
                    "connected": s.connected,
                    "bot": s.bot,
                    "member": s.member,
                }
                for s in self.seats
            ],
            "first_dealer": self.first_dealer,
            "state": None if self.state is None else engine.state_to_json(self.state),
            "created": self.created,
            "ops": list(self.ops),
            "next_deal": None if self.next_deal is None else self.next_deal.to_json(),
            "dealt": self.dealt,
            "turn_deadline": self.turn_deadline,
            "club": self.club,
            "game": self.game,
            "host": self.host,
            "paused": self.paused,
            "turn_left": self.turn_left,
            "rematch": list(self.rematch),
            "review": None if self.review is None else self.review.to_json(),
            "practice": None if self.practice is None else self.practice.to_json(),
        }
        return orjson.dumps(body)

    @classmethod
    def from_bytes(cls, data: bytes) -> RoomRecord:
        """A record from its store snapshot.

        A format 1 snapshot (written before provably fair deals) has no next seed; the
        room's next change adds one. Before format 3 a bot's seat had no level: it is the
        default bot. Before format 4 there was no host, pause or rematch vote: the host
        is then the lowest human seat (`with_host`), the game is not paused, nobody has
        asked for a rematch. Before format 5 no shared review was open, and no room was a
        practice room. Reading draws no
        randomness, so every instance reading a snapshot gets the same record.
        """
        body = orjson.loads(data)
        if body.get("format") not in READABLE_FORMATS:
            raise ValueError(f"unknown room snapshot format {body.get('format')!r}")
        variant = str(body["variant"])
        seats = tuple(
            Seat(
                kind=s["kind"],
                name=s["name"],
                token_hash=s["token_hash"],
                connected=bool(s["connected"]),
                bot=(s.get("bot") or levels.default()) if s["kind"] == "bot" else None,
                member=s.get("member"),
            )
            for s in body["seats"]
        )
        state = body["state"]
        pending = body.get("next_deal")
        deadline = body.get("turn_deadline")
        game = body.get("game", 0 if state is None else None)
        left = body.get("turn_left")
        host = body.get("host")
        review = body.get("review")
        practice = body.get("practice")
        record = cls(
            code=str(body["code"]),
            variant=variant,
            rules=engine.make_rules(variant, body["rules"]),
            seats=seats,
            first_dealer=body["first_dealer"],
            state=None if state is None else engine.state_from_json(state),
            created=float(body["created"]),
            ops=tuple(str(op) for op in body.get("ops", ())),
            next_deal=None if pending is None else NextDeal.from_json(pending),
            dealt=body.get("dealt"),
            turn_deadline=None if deadline is None else float(deadline),
            club=body.get("club"),
            game=None if game is None else int(game),
            host=None if host is None else int(host),
            paused=bool(body.get("paused", False)),
            turn_left=None if left is None else float(left),
            rematch=tuple(sorted(int(k) for k in body.get("rematch", ()))),
            review=None if review is None else SharedReview.from_json(review, len(seats)),
            practice=None if practice is None else Practice.from_json(practice),
        )
        return record.with_host()

    def public_seats(self, live: bool = True) -> list[dict[str, Any]]:
        """Seats as `GET /api/rooms/{code}` shows them (no token hash, of course); a
        bot's entry carries its level as `bot`."""
        return [
            {
                "seat": k,
                "name": s.name,
                "kind": s.kind,
                "connected": s.connected and live,
                **({"bot": s.bot} if s.kind == "bot" else {}),
            }
            for k, s in enumerate(self.seats)
        ]

    def players(self) -> set[int]:
        """The seats a person holds."""
        return {k for k, s in enumerate(self.seats) if s.kind == "human"}

    def deal_seats(self) -> list[dict[str, Any]]:
        """Who sits where, as a hand's record names them (kept in the log with a deal)."""
        return [{"seat": k, "name": s.name, "kind": s.kind} for k, s in enumerate(self.seats)]

    def info(self, live: bool = True) -> dict[str, Any]:
        """The room as `GET /api/rooms/{code}` shows it: whoever serves the room, owner
        or follower, answers from the record alone."""
        return {
            "code": self.code,
            "variant": self.variant,
            "rules": engine.rules_to_json(self.rules),
            "phase": self.phase,
            "seats": self.public_seats(live),
            "club": self.club is not None,
            **({} if self.practice is None else {"practice": self.practice.info()}),
        }


OPS_KEPT = 64
"""How many forwarded operation ids a room remembers (far more than can be in flight)."""


def log_entry(
    seat: int | None, action: dict[str, Any], notes: dict[str, Any] | None = None
) -> bytes:
    """One accepted engine action as the store's log keeps it: `{"seat", "action"}`,
    plus for a deal its `notes` (`deal`: the revealed seed, commitment and entropy;
    `seats`: who sat where), from which the hand's record is made once it is scored."""
    entry: dict[str, Any] = {"seat": seat, "action": action}
    if notes:
        entry.update(notes)
    return orjson.dumps(entry)
