"""The room's side of provably fair deals: the committed seed of the next deck and the
entropy the seated players add to it (docs/fairness.md).

A room always holds the seed of its next deck, drawn from `secrets` the moment the
previous deck was dealt (or the room was created), so its commitment is in every view
before any deal that may follow: the game's start and a redeal after everybody passed
come at once, without a pause in which a commitment could first be shown. The seed
itself stays in the store and the server's memory (never in a view, a server log line,
or the record of a hand not yet dealt); the record of the hand, once scored, reveals it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any

from schmier.engine import fairness


def new_seed() -> str:
    """A server seed: 32 bytes from the OS's CSPRNG as 64 lowercase hex characters."""
    return secrets.token_hex(32)


@dataclass(frozen=True, slots=True)
class NextDeal:
    """The next deck's seed, its commitment, and each seat's entropy so far."""

    server_seed: str
    entropy: tuple[str | None, ...]
    commitment: str

    @classmethod
    def fresh(cls, seats: int, server_seed: str | None = None) -> NextDeal:
        """A new seed (from `secrets` unless given) with nobody's entropy yet."""
        seed = new_seed() if server_seed is None else server_seed
        return cls(seed, (None,) * seats, fairness.commitment(seed))

    def with_entropy(self, seat: int, value: str) -> NextDeal:
        """The same seed with `seat`'s entropy replaced (the last value a seat sends
        counts)."""
        entropy = list(self.entropy)
        entropy[seat] = value
        return replace(self, entropy=tuple(entropy))

    def deck(self, variant: str) -> tuple[int, ...]:
        """The deck this seed and this entropy give."""
        return fairness.fair_deck(variant, self.server_seed, self.entropy)

    def revealed(self) -> dict[str, Any]:
        """What the log keeps with the deal (and the hand's record shows once scored)."""
        return {
            "commitment": self.commitment,
            "server_seed": self.server_seed,
            "entropy": list(self.entropy),
        }

    def to_json(self) -> dict[str, Any]:
        """As the room snapshot stores it (the commitment is recomputed on reading)."""
        return {"server_seed": self.server_seed, "entropy": list(self.entropy)}

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> NextDeal:
        seed = str(body["server_seed"])
        entropy = tuple(None if e is None else str(e) for e in body["entropy"])
        return cls(seed, entropy, fairness.commitment(seed))

    def __repr__(self) -> str:
        # Never let a seed slip into a traceback or a log line through repr().
        return f"NextDeal(commitment={self.commitment!r})"
