"""Provably fair decks: the deck that follows from a committed server seed and the
players' entropy, by the shuffle every client (and docs/fairness.md's script) can redo.

Pure: the seed and the entropy come in from outside (the server draws the seed from
`secrets`, the players' browsers send their entropy). `hashlib` is the only thing used,
so the same deck comes out on any Python version and in any other language.

The shuffle (docs/protocol.md, "Provably fair deals"):

- `S = sha256(server_seed + ":" + e0 + ":" + ... + ":" + e(n-1))` as raw bytes, `ek`
  seat k's entropy or the empty string;
- a stream of 64-bit integers from `sha256(S + i.to_bytes(8, "big"))`, `i = 0, 1, ...`,
  four big-endian 8-byte integers per digest, in order;
- the variant's deck in canonical order (suits S H D C, ranks low to high, then X1, X2);
  for `i` from `len - 1` down to 1: the next integer `r`, rejected while
  `r >= 2**64 - 2**64 % (i + 1)` (so every position is exactly as likely), then positions
  `i` and `r % (i + 1)` are swapped (Fisher-Yates).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence

from .variants import get_variant

SEED_HEX = re.compile(r"^[0-9a-f]{64}$")
"""A server seed: 32 bytes as 64 lowercase hex characters."""

ENTROPY_HEX = re.compile(r"^[0-9a-f]{16,64}$")
"""A player's entropy: 16 to 64 lowercase hex characters."""

_SPAN = 2**64


def commitment(server_seed: str) -> str:
    """`sha256_hex` of the seed's 64 ASCII characters: what is shown before the deal."""
    return hashlib.sha256(server_seed.encode("ascii")).hexdigest()


def mixed_seed(server_seed: str, entropy: Sequence[str | None]) -> bytes:
    """`S`: the seed and every seat's entropy (None: the empty string), joined by ":"."""
    text = ":".join([server_seed, *(e or "" for e in entropy)])
    return hashlib.sha256(text.encode("ascii")).digest()


def numbers(seed: bytes) -> Iterator[int]:
    """The endless stream of 64-bit integers drawn from `S`."""
    i = 0
    while True:
        digest = hashlib.sha256(seed + i.to_bytes(8, "big")).digest()
        for k in range(0, 32, 8):
            yield int.from_bytes(digest[k : k + 8], "big")
        i += 1


def shuffled(cards: Sequence[int], seed: bytes) -> tuple[int, ...]:
    """`cards` shuffled by the specified Fisher-Yates from the stream of `seed`."""
    deck = list(cards)
    stream = numbers(seed)
    for i in range(len(deck) - 1, 0, -1):
        bound = i + 1
        limit = _SPAN - _SPAN % bound
        r = next(stream)
        while r >= limit:
            r = next(stream)
        j = r % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def canonical_deck(variant: str) -> tuple[int, ...]:
    """The variant's cards in the order the shuffle starts from (the engine's card ints
    sort exactly that way: spades, hearts, diamonds, clubs, low to high, then jokers)."""
    return tuple(sorted(get_variant(variant).deck))


def fair_deck(variant: str, server_seed: str, entropy: Sequence[str | None]) -> tuple[int, ...]:
    """The deck of a hand: the canonical deck shuffled from the seed and the entropy."""
    if not SEED_HEX.match(server_seed):
        raise ValueError("a server seed is 64 lowercase hex characters")
    for value in entropy:
        if value is not None and not ENTROPY_HEX.match(value):
            raise ValueError("entropy is 16 to 64 lowercase hex characters")
    return shuffled(canonical_deck(variant), mixed_seed(server_seed, entropy))
