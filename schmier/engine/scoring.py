"""The six points of a hand, the score, and the end of the game."""

from __future__ import annotations

from .cards import GAME_VALUE, cards_of
from .ranking import trumps
from .state import LastHand, State, evolve


def sides_of(state: State) -> tuple[tuple[int, ...], ...]:
    """The sides of this hand, the bidder's first.

    Fixed teams in schmier6 and wisconsin4; in schmier5 the bidder and the holder of the
    called card (if any) against everyone else.
    """
    v = state.variant
    assert state.bidder is not None
    if v.called_partner:
        ours = tuple(
            sorted({state.bidder} | ({state.partner} if state.partner is not None else set()))
        )
        theirs = tuple(s for s in range(v.seats) if s not in ours)
        return (ours, theirs)
    mine = v.team_of(state.bidder)
    return (v.teams[mine], *(t for i, t in enumerate(v.teams) if i != mine))


def finish_hand(state: State) -> State:
    """Score the hand just played and decide whether the game is over."""
    v = state.variant
    assert state.trump is not None and state.bidder is not None and state.bid is not None
    sides = sides_of(state)
    side_of = [0] * v.seats
    for i, side in enumerate(sides):
        for seat in side:
            side_of[seat] = i
    by, totals = _earners(state, side_of, len(sides))
    best = max(totals)
    game_side = totals.index(best) if totals.count(best) == 1 else None
    points = tuple(game_side if name == "game" else _side(side_of, by[name]) for name in v.points)
    taken = [points.count(i) for i in range(len(sides))]
    made = taken[0] >= state.bid
    result = [-state.bid if i == 0 and not made else taken[i] for i in range(len(sides))]
    if v.called_partner:
        deltas = tuple(result[side_of[seat]] for seat in range(v.seats))
    else:
        deltas = tuple(result[side_of[team[0]]] for team in v.teams)
    scores = tuple(s + d for s, d in zip(state.scores, deltas, strict=True))
    last = LastHand(
        sides=sides,
        points=points,
        by=tuple(by[name] for name in v.points),
        game_totals=tuple(totals),
        bidder=state.bidder,
        bid=state.bid,
        made=made,
        deltas=deltas,
        called=state.called,
    )
    winners = game_winners(state, scores, sides[0])
    return evolve(
        state,
        scores=scores,
        last_hand=last,
        winners=winners,
        phase="hand_over" if winners is None else "game_over",
        turn=(),
    )


def _side(side_of: list[int], seat: int | None) -> int | None:
    return None if seat is None else side_of[seat]


def _earners(
    state: State, side_of: list[int], n_sides: int
) -> tuple[dict[str, int | None], list[int]]:
    """The seat that earned each point (None: the card was not in play; game is earned
    by a side, never a seat), and each side's count towards game."""
    v = state.variant
    assert state.trump is not None and state.bidder is not None
    t = trumps(v.name, state.trump)
    played_by: dict[int, int] = {}
    won_by: dict[int, int] = {}
    totals = [0] * n_sides
    for plays, winner in state.tricks:
        for seat, c in plays:
            played_by[c] = seat
            won_by[c] = winner
            totals[side_of[winner]] += GAME_VALUE[c]
    if v.bidder_banks_discards:
        totals[0] += sum(GAME_VALUE[c] for c in cards_of(state.discards[state.bidder]))

    in_play_trumps = [c for c in played_by if t.mask >> c & 1]
    high = max(in_play_trumps, key=t.power.__getitem__)
    naturals = [c for c in in_play_trumps if t.naturals >> c & 1]
    low = min(naturals, key=t.power.__getitem__)
    by: dict[str, int | None] = {"high": played_by[high], "low": played_by[low], "game": None}
    # The other points are the captured cards', in the same order (ranking.Trumps).
    captured = [name for name in v.points if name not in by]
    for name, c in zip(captured, t.captured, strict=True):
        by[name] = won_by.get(c)
    return by, totals


def game_winners(
    state: State, scores: tuple[int, ...], bidder_side: tuple[int, ...]
) -> tuple[int, ...] | None:
    """The winning scoring units once someone has reached the target, else None.

    The single highest score wins. A tie for the highest is broken in favour of the
    bidder's side (in schmier5: the tied players who were on it win together); a tie
    among others means another hand.
    """
    if max(scores) < state.rules.target:
        return None
    best = max(scores)
    tied = [i for i, s in enumerate(scores) if s == best]
    if len(tied) == 1:
        return (tied[0],)
    v = state.variant
    bidder_units = {v.team_of(seat) for seat in bidder_side}
    ours = tuple(i for i in tied if i in bidder_units)
    return ours or None
