"""The room's side of provably fair deals: the committed seed of the next deck, the
players' commits to their entropy, and the reveal of those values before the deal
(docs/fairness.md).

A room always holds the seed of its next deck, drawn from `secrets` the moment the
previous deck was dealt (or the room was created), so its commitment is in every view
before any deal that may follow: the game's start and a redeal after everybody passed
come at once, without a pause in which a commitment could first be shown. The seed
itself stays in the store and the server's memory (never in a view, a server log line,
or the record of a hand not yet dealt); the record of the hand, once scored, reveals it.

Players commit before anyone reveals. Whoever runs the server can read the seed from the
store; had the players sent their values openly, such a host, playing at the table,
could try values offline and send the one that deals them the jokers. So a seat first
sends only `h = sha256_hex(v)` of a secret value `v` (the last commit before the reveal
counts); when the deal is due the room opens the reveal (`opened`), takes no new commit,
and asks every committed seat for `v`; it deals as soon as each has answered
(`complete`), or when the window (`SCHMIER_REVEAL_MS`) closes, with the commit itself as
the entropy of a seat that withheld its value. A value then chooses nothing a player
could grind for: by the time anyone reveals, every commit is fixed.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

import orjson

from schmier.engine import fairness


def new_seed() -> str:
    """A server seed: 32 bytes from the OS's CSPRNG as 64 lowercase hex characters."""
    return secrets.token_hex(32)


@dataclass(frozen=True, slots=True)
class NextDeal:
    """The next deck's seed and commitment, each seat's commit and revealed value, and
    whether (and until when) the reveal is open."""

    server_seed: str
    commits: tuple[str | None, ...]
    """Each seat's commit to its entropy, `sha256_hex(v)` (None: no commit)."""
    values: tuple[str | None, ...]
    """The values revealed so far, each hashing to its seat's commit (None: not yet)."""
    commitment: str
    revealing: bool = False
    """The deal is due and waits for the committed seats' values: no commit is taken."""
    reveal_until: float | None = None
    """When the reveal window closes, as a wall-clock time (Unix seconds). Kept with the
    room, so that an instance that loads it (a restart, a take-over) goes on with the
    same window; set by the clock as the reveal's opening is committed."""

    @classmethod
    def fresh(cls, seats: int, server_seed: str | None = None) -> NextDeal:
        """A new seed (from `secrets` unless given) with nobody's commit yet."""
        seed = new_seed() if server_seed is None else server_seed
        return cls(seed, (None,) * seats, (None,) * seats, fairness.commitment(seed))

    def committed(self) -> list[int]:
        """The seats that committed (shown to everybody, as seats only)."""
        return [seat for seat, h in enumerate(self.commits) if h is not None]

    def waiting(self) -> list[int]:
        """While the reveal is open: the committed seats that have not revealed yet."""
        if not self.revealing:
            return []
        return [seat for seat in self.committed() if self.values[seat] is None]

    def complete(self) -> bool:
        """Every committed seat has revealed its value."""
        return self.revealing and not self.waiting()

    def with_commit(self, seat: int, commit: str) -> NextDeal:
        """`seat`'s commit replaced (the last commit before the reveal counts)."""
        return replace(self, commits=_put(self.commits, seat, commit))

    def with_value(self, seat: int, value: str) -> NextDeal:
        """`seat`'s value revealed (the caller checked it against the seat's commit)."""
        return replace(self, values=_put(self.values, seat, value))

    def opened(self, players: set[int]) -> NextDeal:
        """The deal is due: the reveal begins, if any seat a person holds committed.

        A commit of a seat no person holds any more (its player left, or the seat was
        freed for a bot) is dropped: bots add no entropy, and nobody is left to reveal.
        With no commit left, nothing opens (the deal may come at once).
        """
        commits = tuple(h if seat in players else None for seat, h in enumerate(self.commits))
        return replace(self, commits=commits, revealing=any(h is not None for h in commits))

    def entropy(self) -> tuple[str | None, ...]:
        """Each seat's `ek` as the deck uses it: its revealed value, its commit when it
        withheld the value, None (the empty string) when it did not commit."""
        return tuple(
            v if v is not None else h for h, v in zip(self.commits, self.values, strict=True)
        )

    def withheld(self) -> list[int]:
        """The committed seats whose value was not revealed (their commit is used)."""
        return [seat for seat in self.committed() if self.values[seat] is None]

    def deck(self, variant: str) -> tuple[int, ...]:
        """The deck this seed and this entropy give."""
        return fairness.fair_deck(variant, self.server_seed, self.entropy())

    def revealed(self) -> dict[str, Any]:
        """What the log keeps with the deal (and the hand's record shows once scored)."""
        return {
            "commitment": self.commitment,
            "server_seed": self.server_seed,
            "entropy": list(self.entropy()),
            "commits": list(self.commits),
            "withheld": self.withheld(),
        }

    def to_json(self) -> dict[str, Any]:
        """As the room snapshot stores it (the commitment is recomputed on reading)."""
        body: dict[str, Any] = {
            "server_seed": self.server_seed,
            "commits": list(self.commits),
            "revealed": list(self.values),
        }
        if self.revealing:
            body["revealing"] = True
            body["reveal_until"] = self.reveal_until
        return body

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> NextDeal:
        """From the snapshot. A snapshot from before commit-reveal kept the values sent
        openly (`entropy`): they are dropped, as values nobody committed to."""
        seed = str(body["server_seed"])
        seats = len(body.get("commits") or body.get("entropy") or ())
        commits = body.get("commits") or [None] * seats
        values = body.get("revealed") or [None] * seats
        until = body.get("reveal_until")
        return cls(
            seed,
            tuple(None if h is None else str(h) for h in commits),
            tuple(None if v is None else str(v) for v in values),
            fairness.commitment(seed),
            revealing=bool(body.get("revealing", False)),
            reveal_until=None if until is None else float(until),
        )

    def view(self) -> dict[str, Any]:
        """`next_deal` as every view shows it: the commitment and who committed, never
        a commit or a value (nor, of course, the seed)."""
        return {
            "commitment": self.commitment,
            "committed": self.committed(),
            "revealing": self.revealing,
        }

    def reveal_frame(self) -> bytes:
        """The `reveal` frame that asks a committed seat for its value."""
        return orjson.dumps({"type": "reveal", "commitment": self.commitment})

    def __repr__(self) -> str:
        # Never let a seed, a commit or a value slip into a traceback or a log line.
        return f"NextDeal(commitment={self.commitment!r}, revealing={self.revealing!r})"


class Asked(Protocol):
    """A socket as the reveal sees it (`peers.Peer`)."""

    seat: int | None

    def send(self, data: bytes) -> None: ...


def ask(before: NextDeal | None, after: NextDeal | None, peers: Iterable[Asked]) -> None:
    """Send the `reveal` frame to those of `peers` whose seat the reveal waits for, when
    the change from `before` to `after` opened it (`before` None: a socket just came and
    the reveal is open). A socket of another instance gets it through its instance."""
    if after is None or not after.revealing:
        return
    if before is not None and before.revealing and before.commitment == after.commitment:
        return
    waiting = after.waiting()
    frame = after.reveal_frame()
    for peer in peers:
        if peer.seat is not None and peer.seat in waiting:
            peer.send(frame)


def _put(values: tuple[str | None, ...], seat: int, value: str) -> tuple[str | None, ...]:
    out = list(values)
    out[seat] = value
    return tuple(out)
