"""The arena's paired mode (`bench/arena.py --paired`): a budget variant of a level draws
the random numbers its level draws, so the two play the same games until the variant's
change first alters a decision, and their per-game results can be compared game by game.

The figures of bench/results/ that compare variants of `strong` rest on that: a variant
whose change never fires must play exactly the games of the level itself.
"""

from __future__ import annotations

from bench import arena

#: A small search, so that a few games take seconds; the same budget with its default
#: bid threshold written out is the same bot under another name.
SMALL = "strong:playouts=40,hand_worlds=6,exact_worlds=4"
SAME = SMALL + ",make_pct=60"


def games(a: str, paired: bool) -> str:
    result = arena.match(a, "normal", "wisconsin4", 2, 7, "default", 11, 1, paired)
    assert result["games"] == 4 and len(result["game_wins"]) == 4
    assert set(result["game_wins"]) <= {"0", "1", "-"}
    assert result["game_wins"].count("1") == result["a_wins"]
    played = [
        {k: v for k, v in result[side].items() if k != "name" and not k.startswith("ms_")}
        for side in ("a_stats", "b_stats")
    ]
    return str(result["game_wins"]) + repr(played)


def test_a_variant_that_changes_nothing_plays_its_levels_games_when_paired() -> None:
    assert games(SAME, paired=True) == games(SMALL, paired=True)
    # Unpaired, the other name draws other numbers: other games (why pairing is needed).
    assert games(SAME, paired=False) != games(SMALL, paired=False)
