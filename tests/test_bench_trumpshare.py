"""`bench/trumpshare.py`, which measures the sampler's trump weights against true deals
(docs/bots.md): its counts mean something only if every seat the sampler could be
asked about is booked, under the role the bidding gave it, and the sampled worlds
place the same unseen trumps as the deal does.
"""

from __future__ import annotations

import pytest

from bench import trumpshare


@pytest.mark.parametrize("variant", ["schmier6", "schmier5"])
def test_every_seat_is_booked_and_every_unseen_trump_placed(variant: str) -> None:
    games, n = 3, {"schmier6": 6, "schmier5": 5}[variant]
    roles = trumpshare.measure(variant, games, worlds=4, seed=7)
    assert set(roles) <= set(trumpshare.ROLES) and {"bidder", "dealer", "passed"} <= set(roles)
    # Trump is public in the Schmier games: every viewer books every other seat, and
    # each hand has one bidder, seen by the other n - 1 viewers.
    positions = games * trumpshare.HANDS_PER_GAME * n * (n - 1)
    assert sum(r["positions"] for r in roles.values()) == positions
    assert roles["bidder"]["positions"] == positions // n
    # Every unseen trump lies in some other hand (discards hold none but the rare
    # trumps of a dealer with more than six), in the deal as in the sampled worlds.
    true = sum(r["true"] * r["positions"] for r in roles.values())
    sampled = sum(r["sampled"] * r["positions"] for r in roles.values())
    assert true > 0 and abs(sampled - true) <= 0.03 * true


def test_wisconsin4_books_only_the_viewers_that_know_the_trump() -> None:
    """Before the first lead only the bidder knows the trump: it books the three others."""
    games = 3
    roles = trumpshare.measure("wisconsin4", games, worlds=4, seed=7)
    assert "bidder" not in roles and "dealer" not in roles
    assert sum(r["positions"] for r in roles.values()) == games * trumpshare.HANDS_PER_GAME * 3
