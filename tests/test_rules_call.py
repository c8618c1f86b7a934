"""Calling a partner in schmier5 (docs/rules.md 5): by card or alone; the partner is hidden
until the called card is played, except from the partner; a discarded called card
means the bidder plays alone, which the table learns at the end of the hand."""

from __future__ import annotations

import pytest

from schmier import engine
from tests.support.engine_helpers import (
    SCHMIER5_S,
    SCHMIER5_STOCK,
    Table,
    play_rows,
)


def at_call(bidder_discards: tuple[str, ...] = ()) -> Table:
    """SCHMIER5_S dealt by seat 0; seat 1 bids 3, names hearts; discards as given."""
    t = Table("schmier5")
    t.deal_stacked(SCHMIER5_S, SCHMIER5_STOCK)
    t.bidding({1: 3})
    t.trump(1, "H")
    t.discard(1, *bidder_discards)
    for seat in (2, 3, 4):
        t.discard(seat)
    t.keep(0, SCHMIER5_S[0])
    assert t.phase == "call"
    return t


def test_call_options_are_every_card_not_in_hand_and_alone() -> None:
    t = at_call()
    assert t.turn() == [1]
    hand = set(t.hand(1))
    legal = t.legal(1)
    called = {a["card"] for a in legal}
    assert all(a["type"] == "call" for a in legal)
    assert called == (set(engine.full_deck("schmier5")) - hand) | {None}
    assert "X1" in called, "a joker may be called"
    with pytest.raises(engine.IllegalAction):
        t.call(1, "AH")  # in the bidder's own hand
    with pytest.raises(engine.NotYourTurn):
        t.call(2, "KH")


def test_partner_is_hidden_until_the_called_card_is_played() -> None:
    t = at_call()
    t.call(1, "KH")
    assert t.phase == "play"
    for seat in (None, 0, 1, 2, 3, 4):
        assert t.view(seat)["called"] == "KH"
    assert t.view(3)["partner"] == 3, "the partner sees themself"
    for seat in (None, 0, 1, 2, 4):
        assert t.view(seat)["partner"] is None
    for card in ("AH", "4H", "5H", "6H", "7H", "QH", "8H"):  # trick 1, then QH 8H
        t.play_next(card)
    for seat in (None, 0, 1, 2, 4):
        assert t.view(seat)["partner"] is None
    t.play_next("KH")
    for seat in (None, 0, 1, 2, 3, 4):
        assert t.view(seat)["partner"] == 3


def test_playing_alone() -> None:
    t = at_call()
    t.call(1, None)
    for seat in (None, 0, 1, 2, 3, 4):
        assert t.view(seat)["called"] is None
        assert t.view(seat)["partner"] is None
    play_rows(t, SCHMIER5_S)
    assert [set(s) for s in t.view(None)["last_hand"]["sides"]] == [{1}, {0, 2, 3, 4}]


def test_calling_a_card_the_bidder_discarded_means_alone() -> None:
    """The bidder discards TD (drawing 4S, the top of the stock) and calls TD."""
    t = at_call(("TD",))
    assert "TD" in {a["card"] for a in t.legal(1)}
    t.call(1, "TD")
    rows = {**SCHMIER5_S, 1: ["AH", "QH", "AS", "6C", "JC", "4S"]}
    for seat in (None, 0, 1, 2, 3, 4):
        assert t.view(seat)["partner"] is None
    winners = play_rows(t, rows)
    assert winners[:5] == [1, 3, 3, 3, 2]
    last = t.view(None)["last_hand"]
    assert [set(s) for s in last["sides"]] == [{1}, {0, 2, 3, 4}]


def test_calling_a_card_the_dealer_discarded_means_alone() -> None:
    """9S is in the stock, taken by the dealer and discarded: nobody holds it. During
    the hand nobody learns that the bidder is alone; the sides show it at the end."""
    t = at_call()
    t.call(1, "9S")
    for _ in range(10):  # a few plays: still nobody's partner
        t.play_next(SCHMIER5_S[t.turn()[0]][len(t.view(None)["tricks"])])
        for seat in (None, 0, 1, 2, 3, 4):
            assert t.view(seat)["partner"] is None
    while t.phase == "play":
        (seat,) = t.turn()
        t.play(seat, SCHMIER5_S[seat][len(t.view(None)["tricks"])])
    last = t.view(None)["last_hand"]
    assert [set(s) for s in last["sides"]] == [{1}, {0, 2, 3, 4}]
    assert last["made"] is False
    assert t.view(None)["scores"] == [5, -3, 5, 5, 5]
