"""Provably fair decks: the shuffle exactly as docs/protocol.md specifies it, and the room's
commitments (a seed for every deck, shown before its deal, never the seed itself).

The reference below is written from the specification's words, independently of
`schmier.engine.fairness`, with card names rather than the engine's ints; the engine
must agree with it for every variant and any entropy.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schmier import engine
from schmier.engine import fairness
from schmier.engine.cards import CARD_NAMES
from schmier.protocol import Entropy
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
    h, v = fairness.entropy_commit("aa" * 8), "aa" * 8
    assert h == hashlib.sha256(b"aa" * 8).hexdigest()
    committed = pending.with_commit(2, fairness.entropy_commit("bb" * 8)).with_commit(2, h)
    assert committed.commits == (None, None, h, None) and committed.committed() == [2]
    assert committed.entropy() == (None, None, h, None)  # not revealed: the commit
    assert committed.waiting() == [] and not committed.complete()  # nothing asked yet
    opened = committed.opened({0, 2})
    assert opened.revealing and opened.waiting() == [2] and opened.withheld() == [2]
    revealed = opened.with_value(2, v)
    assert revealed.complete() and revealed.entropy() == (None, None, v, None)
    assert revealed.withheld() == []
    # Stored and read back, the window's end included; never a secret in repr().
    timed = replace(revealed, reveal_until=1234.5)
    assert NextDeal.from_json(timed.to_json()) == timed
    assert v not in repr(timed) and h not in repr(timed)
    # A commit of a seat no person holds is dropped when the reveal opens.
    assert not committed.opened({0, 1}).revealing
    assert committed.opened({0, 1}).commits == (None,) * 4


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
    """Through the table's rules: the lobby already shows a commitment; the start opens
    the reveal of the one player who committed and deals from it once the value is in;
    each deal shows its own and commits the next; a redeal after everybody passed
    uses the one shown during the bidding (with nobody committed, at once)."""
    shuffler = Stacked()
    record = RoomRecord.new("abcdefghij", variant, engine.make_rules(variant))
    record = table.join(record, "Ann", 1, present=lambda seat: True).change.record
    for seat in range(len(record.seats)):
        if seat != 1:
            record = table.add_bot(record, seat).record
    shown = room_view(record, None)["next_deal"]["commitment"]
    assert shown == record.next_deal.commitment  # type: ignore[union-attr]
    assert record.next_deal.server_seed not in str(room_view(record, 0))  # type: ignore[union-attr]
    value = "12" * 10
    commit = Entropy(type="entropy", commit=fairness.entropy_commit(value))
    record = table.entropy(record, 1, commit, shuffler).record
    assert room_view(record, None)["next_deal"] == {
        "commitment": shown,
        "committed": [1],
        "revealing": False,
    }
    pending = record.next_deal
    assert pending is not None
    change = table.start(record, shuffler)
    assert change.entries == () and change.record.state is not None
    assert change.record.state.phase == "deal" and change.record.dealt is None
    assert change.record.next_deal is not None and change.record.next_deal.revealing
    reveal = Entropy(type="entropy", value=value)
    change = table.entropy(change.record, 1, reveal, shuffler)
    record = change.record
    (deal,) = change.entries
    assert deal.seat is None and deal.notes is not None
    entropy = [None, value] + [None] * (len(record.seats) - 2)
    assert deal.notes["deal"] == {
        "commitment": shown,
        "server_seed": pending.server_seed,
        "entropy": entropy,
        "commits": [None, commit.commit] + [None] * (len(record.seats) - 2),
        "withheld": [],
    }
    assert deal.action.arg == fairness.fair_deck(variant, pending.server_seed, entropy)
    view = room_view(record, None)
    assert view["deal"] == {"commitment": shown}
    assert view["next_deal"]["commitment"] != shown
    assert record.next_deal is not None and record.next_deal.server_seed == shuffler.seeds[-1]
    assert record.next_deal.commits == (None,) * len(record.seats)
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


def test_a_room_stored_before_commit_reveal_keeps_no_open_value() -> None:
    """A snapshot whose next deal holds values sent openly (before commit-reveal) is read
    with no commit and no value: such values were never committed to."""
    import orjson

    record = RoomRecord.new("abcdefghij", "schmier5", engine.make_rules("schmier5"))
    body = orjson.loads(record.to_bytes())
    seed = body["next_deal"]["server_seed"]
    body["next_deal"] = {"server_seed": seed, "entropy": ["ab" * 8, None, None, None, None]}
    old = RoomRecord.from_bytes(orjson.dumps(body))
    assert old.next_deal is not None and old.next_deal.server_seed == seed
    assert old.next_deal.commits == (None,) * 5 and old.next_deal.values == (None,) * 5
    assert old.next_deal.entropy() == (None,) * 5 and not old.next_deal.revealing


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


def test_the_clock_keeps_the_reveal_window_in_the_record() -> None:
    """The window's end is stamped, as a wall-clock time, on the change that opens it,
    and kept after; the deal is due at its end (in the clock's own time), right away in
    a `deal` phase with no reveal, after the hand pause between hands; a room loaded
    with an open window gives the players at least a whole window from the load."""
    from schmier.config import Settings
    from schmier.rooms.clock import Clock

    settings = Settings(reveal_ms=2000, hand_pause=5.0)
    clock = Clock(settings, now=100.0, wall_offset=1000.0)  # wall = loop + 1000
    record = RoomRecord.new("abcdefghij", "wisconsin4", engine.make_rules("wisconsin4"))
    record = table.join(record, "Ann", 0, present=lambda seat: True).change.record
    for seat in (1, 2, 3):
        record = table.add_bot(record, seat).record
    commit = Entropy(type="entropy", commit=fairness.entropy_commit("ab" * 8))
    record = table.entropy(record, 0, commit, Stacked()).record
    opened = table.start(record, Stacked()).record
    assert opened.next_deal is not None and opened.next_deal.reveal_until is None
    stamped = clock.timed(record, opened, wall=1100.0)
    assert stamped.next_deal is not None and stamped.next_deal.reveal_until == 1102.0
    assert clock.timed(stamped, stamped, wall=1101.0) == stamped  # kept
    assert stamped.state is not None
    assert clock.due(stamped, lambda seat: True) == [(102.0, None)]
    # Loaded again later (a restart, a take-over): at least a window from the load.
    later = clock.resumed(stamped, wall=1500.0)
    assert later.next_deal is not None and later.next_deal.reveal_until == 1502.0
    soon = clock.resumed(stamped, wall=1099.0)
    assert soon.next_deal is not None and soon.next_deal.reveal_until == 1102.0
    # No reveal open: right away in the engine's `deal` phase, after the pause otherwise.
    plain = replace(stamped, next_deal=NextDeal.fresh(4))
    clock.state_changed(None, plain.state, 100.0)
    assert clock.due(plain, lambda seat: True) == [(100.0, None)]
