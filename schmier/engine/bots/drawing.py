"""Quick rules for what happens between the bidding and the first card in a simulated
hand: the kitty, the exchanges, discarding down to six, the call.

They mirror the heuristic's choices (`discards.py`) on int cards, and always stay
within the engine's rules (docs/rules.md steps 4 and 5): a non-dealer throws up to three
non-trumps, the dealer and the kitty's taker discard down to six, trumps only when
holding more than six (a Schmier dealer never the protected ones).
"""

from __future__ import annotations

from .tables import Tab, bits

#: At most this many cards a Schmier non-dealer exchanges.
MAX_EXCHANGE = 3
#: Cards worth less than this are thrown in an exchange.
_JUNK = 20


def keep_value(tb: Tab, hand: int, c: int, bank: bool) -> int:
    """How much a card is worth keeping (the lowest go first); see `discards._keep_value`."""
    if tb.mask >> c & 1:
        return 100 + tb.power[c]
    rank = c % 13
    guarded = bool(hand >> (c - rank + 12) & 1)
    if rank == 12:
        return 40
    if rank == 8:
        if bank and not guarded:
            return -1
        return 30 if guarded else 8
    if rank == 11:
        return 20 if guarded else 10
    return rank


def take_kitty(hands: list[int], stock: list[int], bidder: int, kitty: int) -> list[int]:
    """The bidder takes the first `kitty` undealt cards; the rest of the stock."""
    for c in stock[:kitty]:
        hands[bidder] |= 1 << c
    return stock[kitty:]


def to_six(tb: Tab, hand: int, bank: bool, dealer: bool = False) -> int:
    """The cards to discard from `hand` to keep six, weakest first (as a mask)."""
    extra = hand.bit_count() - 6
    if extra <= 0:
        return 0
    if (hand & tb.mask).bit_count() > 6:
        allowed = hand & ~tb.protected if dealer else hand
    else:
        allowed = hand & ~tb.mask
    ranked = sorted(bits(allowed), key=lambda c: (keep_value(tb, hand, c, bank), c))
    gone = 0
    for c in ranked[:extra]:
        gone |= 1 << c
    return gone


def exchange(tb: Tab, hand: int) -> int:
    """A non-dealer's exchange: its non-trumps not worth keeping, at most three."""
    junk = [c for c in bits(hand & ~tb.mask) if keep_value(tb, hand, c, False) < _JUNK]
    junk.sort(key=lambda c: (keep_value(tb, hand, c, False), c))
    gone = 0
    for c in junk[:MAX_EXCHANGE]:
        gone |= 1 << c
    return gone


def exchange_all(
    tb: Tab,
    hands: list[int],
    stock: list[int],
    dealer: int,
    discarded: list[int],
    others_done: bool,
    mine: tuple[int, int | None],
) -> None:
    """Every non-dealer exchanges (left of the dealer first), then the dealer takes the
    rest of the stock and discards down to six; `mine` is (viewer, its own discard or
    None for the rule's; the dealer's, or a non-dealer's exchange). With `others_done`
    only the dealer is left to discard, and it holds the stock already: `stock` is then
    what nobody may take (the others' discards, unseen by the dealer), never added to
    its hand."""
    n = len(hands)
    me, my_discard = mine
    if not others_done:
        for i in range(1, n):
            seat = (dealer + i) % n
            gone = exchange(tb, hands[seat]) if seat != me or my_discard is None else my_discard
            k = gone.bit_count()
            hands[seat] &= ~gone
            discarded[seat] = gone
            for c in stock[:k]:
                hands[seat] |= 1 << c
            stock = stock[k:]
        for c in stock:
            hands[dealer] |= 1 << c
    hand = hands[dealer]
    gone = my_discard if dealer == me and my_discard is not None else to_six(tb, hand, False, True)
    hands[dealer] = hand & ~gone
    discarded[dealer] = gone


def call_card(tb: Tab, hand: int, discarded: int) -> int | None:
    """The highest trump the bidder neither holds nor discarded (None: none left)."""
    for c in (*tb.order, *bits(tb.mask & ~tb.naturals)):
        if not (hand | discarded) >> c & 1:
            return c
    return None
