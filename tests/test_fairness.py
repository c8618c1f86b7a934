"""Provably fair decks: the shuffle exactly as docs/protocol.md specifies it, and the room's
commitments (a seed for every deck, shown before its deal, never the seed itself).

The reference below is written from the specification's words, independently of
`schmier.engine.fairness`, with card names rather than the engine's ints; the engine
must agree with it for every variant and any entropy.
"""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schmier import engine
from schmier.engine import fairness
from schmier.engine.cards import CARD_NAMES
from schmier.rooms import table
from schmier.rooms.fairness import NextDeal, new_seed
from schmier.rooms.frames import room_view
from schmier.rooms.record import RoomRecord

RANKS = {"schmier6": "23456789TJQKA", "schmier5": "456789TJQKA", "wisconsin4": "789TJQKA"}
JOKERS = {"schmier6": ["X1"], "schmier5": ["X1"], "wisconsin4": ["X1", "X2"]}


def reference_deck(variant: str, server_seed: str, entropy: list[str | None]) -> list[str]:
    """docs/protocol.md, "Provably fair deals", step 3, word for word."""
    joined = server_seed + "".join(":" + (e or "") for e in entropy)
    s = hashlib.sha256(joined.encode()).digest()
    stream: list[int] = []

    def draw() -> int:
        if not stream:
            i = draw.count  # type: ignore[attr-defined]
            digest = hashlib.sha256(s + i.to_bytes(8, "big")).digest()
            stream.extend(int.from_bytes(digest[k : k + 8], "big") for k in (0, 8, 16, 24))
            draw.count += 1  # type: ignore[attr-defined]
        return stream.pop(0)

    draw.count = 0  # type: ignore[attr-defined]
    deck = [rank + suit for suit in "SHDC" for rank in RANKS[variant]] + JOKERS[variant]
    for i in range(len(deck) - 1, 0, -1):
        r = draw()
        while r >= 2**64 - (2**64 % (i + 1)):
            r = draw()
        j = r % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def names(cards: tuple[int, ...]) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


HEX = st.text("0123456789abcdef", min_size=16, max_size=64)


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(engine.VARIANTS),
    seed=st.text("0123456789abcdef", min_size=64, max_size=64),
    entropy=st.lists(st.none() | HEX, min_size=6, max_size=6),
)
def test_the_deck_is_the_specified_shuffle(
    variant: str, seed: str, entropy: list[str | None]
) -> None:
    entropy = entropy[: engine.seat_count(variant)]
    deck = fairness.fair_deck(variant, seed, entropy)
    assert names(deck) == reference_deck(variant, seed, entropy)
    assert sorted(deck) == sorted(engine.get_variant(variant).deck)


def test_the_canonical_order_is_the_protocols() -> None:
    for variant in engine.VARIANTS:
        expected = [r + s for s in "SHDC" for r in RANKS[variant]] + JOKERS[variant]
        assert names(fairness.canonical_deck(variant)) == expected
        assert engine.full_deck(variant) == expected


def test_every_input_changes_the_deck() -> None:
    seed = "ab" * 32
    base = fairness.fair_deck("schmier6", seed, [None] * 6)
    assert fairness.fair_deck("schmier6", seed, [None] * 6) == base  # deterministic
    assert fairness.fair_deck("schmier6", "ac" + seed[2:], [None] * 6) != base
    for seat in range(6):
        entropy: list[str | None] = [None] * 6
        entropy[seat] = "00" * 8
        assert fairness.fair_deck("schmier6", seed, entropy) != base
    # An empty string and no value are the same: the entropy of a seat that sent none.
    assert fairness.mixed_seed(seed, [None, "ff" * 8]) == fairness.mixed_seed(seed, ["", "ff" * 8])
    assert fairness.mixed_seed(seed, []) == hashlib.sha256(seed.encode()).digest()


def test_the_stream_and_the_rejection(monkeypatch: pytest.MonkeyPatch) -> None:
    s = bytes(32)
    stream = fairness.numbers(s)
    first = [next(stream) for _ in range(5)]
    digest = hashlib.sha256(s + (0).to_bytes(8, "big")).digest()
    assert first[:4] == [int.from_bytes(digest[k : k + 8], "big") for k in (0, 8, 16, 24)]
    digest = hashlib.sha256(s + (1).to_bytes(8, "big")).digest()
    assert first[4] == int.from_bytes(digest[:8], "big")
    # 2**64 % 3 == 1: for three cards 2**64 - 1 is rejected and the next number taken;
    # for two, nothing is (2**64 % 2 == 0).
    monkeypatch.setattr(fairness, "numbers", lambda seed: iter([2**64 - 1, 5, 4]))
    assert fairness.shuffled([0, 1, 2], s) == (1, 0, 2)


def test_bad_seeds_and_entropy_are_refused() -> None:
    with pytest.raises(ValueError):
        fairness.fair_deck("schmier6", "AB" * 32, [None] * 6)
    with pytest.raises(ValueError):
        fairness.fair_deck("schmier6", "ab" * 31, [None] * 6)
    with pytest.raises(ValueError):
        fairness.fair_deck("schmier6", "ab" * 32, ["abc"] + [None] * 5)


def test_a_seed_comes_from_secrets_and_commits() -> None:
    seeds = {new_seed() for _ in range(200)}
    assert len(seeds) == 200 and all(fairness.SEED_HEX.match(s) for s in seeds)
    pending = NextDeal.fresh(4)
    assert pending.commitment == hashlib.sha256(pending.server_seed.encode()).hexdigest()
    assert pending.server_seed not in repr(pending)
    assert NextDeal.from_json(pending.to_json()) == pending
    assert pending.with_entropy(2, "aa" * 8).entropy == (None, None, "aa" * 8, None)
    assert pending.with_entropy(2, "aa" * 8).with_entropy(2, "bb" * 8).entropy[2] == "bb" * 8


class Stacked:
    """A shuffler whose seeds are known in advance (the deck still follows from them)."""

    def __init__(self) -> None:
        self.rng = random.Random(5)
        self.seeds: list[str] = []

    def first_dealer(self, seats: int) -> int:
        return 0

    def server_seed(self) -> str:
        seed = f"{self.rng.getrandbits(256):064x}"
        self.seeds.append(seed)
        return seed


@pytest.mark.parametrize("variant", engine.VARIANTS)
def test_every_deal_uses_the_seed_shown_before_it(variant: str) -> None:
    """Through the table's rules: the lobby already shows a commitment; the start deals
    from it at once; each deal shows its own and commits the next; a redeal after
    everybody passed uses the one shown during the bidding; entropy goes in."""
    shuffler = Stacked()
    record = RoomRecord.new("abcdefghij", variant, engine.make_rules(variant))
    for seat in range(len(record.seats)):
        record = table.add_bot(record, seat).record
    shown = room_view(record, None)["next_deal"]["commitment"]
    assert shown == record.next_deal.commitment  # type: ignore[union-attr]
    assert record.next_deal.server_seed not in str(room_view(record, 0))  # type: ignore[union-attr]
    record = table.entropy(record, 1, "12" * 10).record
    pending = record.next_deal
    assert pending is not None
    change = table.start(record, shuffler)
    record = change.record
    (deal,) = change.entries
    assert deal.seat is None and deal.notes is not None
    assert deal.notes["deal"] == {
        "commitment": shown,
        "server_seed": pending.server_seed,
        "entropy": [None, "12" * 10] + [None] * (len(record.seats) - 2),
    }
    assert deal.action.arg == fairness.fair_deck(variant, pending.server_seed, pending.entropy)
    view = room_view(record, None)
    assert view["deal"] == {"commitment": shown}
    assert view["next_deal"]["commitment"] != shown
    assert record.next_deal is not None and record.next_deal.server_seed == shuffler.seeds[-1]
    assert record.next_deal.entropy == (None,) * len(record.seats)
    # Everybody passes: the redeal comes with the last pass, from the seed shown now.
    upcoming = record.next_deal.commitment
    state = record.state
    assert state is not None
    while True:
        seat = state.turn[0]
        assert {"type": "pass"} in engine.legal_actions(state, seat)  # no stick the dealer
        change = table.act(record, seat, engine.parse_action({"type": "pass"}), shuffler)
        record, state = change.record, change.record.state
        assert state is not None
        if change.entries[-1].action.kind == "deal":
            assert change.entries[-1].notes["deal"]["commitment"] == upcoming  # type: ignore[index]
            assert record.dealt == upcoming
            break


def test_a_format_1_room_gets_its_first_seed_with_its_next_change() -> None:
    """Rooms stored before provably fair deals are still read; reading draws nothing
    (every instance reads the same record), the next change adds a committed seed."""
    import orjson

    record = RoomRecord.new("abcdefghij", "schmier5", engine.make_rules("schmier5"))
    body = orjson.loads(record.to_bytes())
    del body["next_deal"], body["dealt"]
    body["format"] = 1
    old = RoomRecord.from_bytes(orjson.dumps(body))
    assert old.next_deal is None and old.dealt is None
    assert RoomRecord.from_bytes(orjson.dumps(body)) == old
    assert room_view(old, None)["next_deal"] is None
    stored = table.add_bot(old, 0).stored()
    assert stored.next_deal is not None
    assert RoomRecord.from_bytes(stored.to_bytes()) == stored
    # A deal with no committed seed (the change that adds one is the deal) still deals
    # from a fresh seed, and commits the one after.
    for seat in range(5):
        old = table.add_bot(old, seat).record
    change = table.start(old, Stacked())
    assert change.entries[0].notes is not None
    assert change.record.next_deal is not None and change.record.dealt is not None
