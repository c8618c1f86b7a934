"""Standings and ratings against a computation by hand (docs/archive.md, "Ratings"),
and what each seat's row of an archived game counts."""

from __future__ import annotations

from typing import Any

import pytest

from schmier.ledger.build import IncompleteGame, archived_game
from schmier.ledger.ratings import expected, rate
from schmier.ledger.standings import standings


def seat(
    n: int, unit: int, won: bool, score: int, *, member: str | None = None,
    bot: str | None = None, hands: int = 4, points: int = 0, bids: int = 0, made: int = 0,
) -> dict[str, Any]:  # fmt: skip
    return {
        "seat": n, "unit": unit, "won": won, "score": score, "member": member, "bot": bot,
        "hands": hands, "points": points, "bids": bids, "made": made, "set": bids - made,
    }  # fmt: skip


def names(who: tuple[str, str]) -> str:
    return {"ann": "Ann", "bo": "Bo", "cy": "Cy", "dee": "Dee"}.get(who[1], who[1].title())


# wisconsin4: units 0 = seats 0 and 2, 1 = seats 1 and 3.
GAME_1 = {
    "id": "g1", "finished_at": 1_000, "teams": [[0, 2], [1, 3]], "winners": [0],
    "seats": [
        seat(0, 0, True, 21, member="ann", hands=5, points=14, bids=2, made=2),
        seat(1, 1, False, 15, member="cy", hands=5, points=15, bids=2, made=1),
        seat(2, 0, True, 21, member="bo", hands=5, points=14, bids=1, made=1),
        seat(3, 1, False, 15, bot="strong", hands=5, points=15),
    ],
}  # fmt: skip
# A guest (neither member nor bot) partners Ann; Bo and Cy win.
GAME_2 = {
    "id": "g2", "finished_at": 2_000, "teams": [[0, 2], [1, 3]], "winners": [1],
    "seats": [
        seat(0, 0, False, 9, member="ann", hands=3, points=9, bids=1, made=0),
        seat(1, 1, True, 21, member="bo", hands=3, points=21, bids=2, made=2),
        seat(2, 0, False, 9, hands=3, points=9),
        seat(3, 1, True, 21, member="cy", hands=3, points=21),
    ],
}  # fmt: skip


def test_ratings_of_two_team_games_by_hand() -> None:
    # Game 1: everybody at 1500, so each side expects 0.5: winners +16, losers -16.
    # Game 2: Ann (1516) with a guest (fixed 1500) rate 1508; Bo (1516) and Cy (1484)
    # rate 1500. Ann's side expects 1 / (1 + 10 ** (-8 / 400)) = 0.511510 and loses:
    # -32 * 0.511510 = -16.368; Bo's side +32 * (1 - 0.488490) = +16.368.
    ratings = rate([GAME_1, GAME_2])
    e = 1 / (1 + 10 ** (-8 / 400))
    assert e == pytest.approx(0.511510, abs=1e-6)
    assert ratings.now[("member", "ann")] == pytest.approx(1516 - 32 * e)
    assert ratings.now[("member", "bo")] == pytest.approx(1516 + 32 * e)
    assert ratings.now[("member", "cy")] == pytest.approx(1484 + 32 * e)
    assert ratings.now[("bot", "strong")] == pytest.approx(1484)
    assert len(ratings.now) == 4, "the guest is not rated"
    assert [round(r, 3) for _g, _t, r in ratings.history[("member", "ann")]] == [1516, 1499.632]


def test_three_sides_and_a_bot_level_on_two_of_them() -> None:
    # schmier6: units A = seats 0, 3; B = 1, 4; C = 2, 5. A wins 21; B and C tie at 18.
    # All at 1500: A scores 1 + 1 against B and C: +32 * (0.5 + 0.5) / 2 = +16; B scores
    # 0 against A and 0.5 against C: +32 * (-0.5 + 0) / 2 = -8; C the same, -8.
    # `strong` holds a seat in A and one in B: the mean of +16 and -8, +4.
    game = {
        "id": "s6", "finished_at": 5, "teams": [[0, 3], [1, 4], [2, 5]], "winners": [0],
        "seats": [
            seat(0, 0, True, 21, member="ann"), seat(1, 1, False, 18, member="bo"),
            seat(2, 2, False, 18, member="cy"), seat(3, 0, True, 21, bot="strong"),
            seat(4, 1, False, 18, bot="strong"), seat(5, 2, False, 18, member="dee"),
        ],
    }  # fmt: skip
    now = rate([game]).now
    assert now == {
        ("member", "ann"): 1516,
        ("member", "bo"): 1492,
        ("member", "cy"): 1492,
        ("member", "dee"): 1492,
        ("bot", "strong"): 1504,
    }
    assert expected(1500, 1500) == 0.5


def test_standings_rows_partnerships_and_head_to_head() -> None:
    table = standings([GAME_1, GAME_2], names)
    rows = {r["name"]: r for r in table["players"]}
    assert set(rows) == {"Ann", "Bo", "Cy", "Strong"}
    ann = rows["Ann"]
    assert (ann["games"], ann["wins"], ann["hands"]) == (2, 1, 8)
    assert ann["points_per_hand"] == round((14 + 9) / 8, 3)
    assert (ann["bids"], ann["made"], ann["set"]) == (3, 2, 1)
    assert ann["win_rate"] == 0.5
    assert ann["rating"] == 1499.6
    assert rows["Bo"]["rating"] == 1532.4
    assert [r["name"] for r in table["players"]] == ["Bo", "Cy", "Ann", "Strong"]
    pairs = {tuple(p["names"]): (p["games"], p["wins"]) for p in table["partnerships"]}
    # Game 1: Ann & Bo won, Cy & strong lost; game 2: Bo & Cy won (Ann's partner was a
    # guest: no partnership).
    assert pairs == {("Ann", "Bo"): (1, 1), ("Cy", "Strong"): (1, 0), ("Bo", "Cy"): (1, 1)}
    versus = {
        tuple(p["name"] for p in row["players"]): (row["games"], row["ahead"], row["even"])
        for row in table["head_to_head"]
    }
    assert versus[("Ann", "Cy")] == (2, [1, 1], 0)
    assert versus[("Ann", "Bo")] == (1, [0, 1], 0)  # game 2 only: partners in game 1
    assert versus[("Bo", "Strong")] == (1, [1, 0], 0)
    history = {h["name"]: [p["rating"] for p in h["points"]] for h in table["history"]}
    assert history["Strong"] == [1484.0]
    assert history["Cy"] == [1484.0, 1500.4]


def record(n: int, game: int, bidder: int, made: bool, deltas: list[int], winners: Any) -> dict:
    return {
        "n": n, "game": game, "winners": winners,
        "result": {"bidder": bidder, "made": made, "deltas": deltas},
    }  # fmt: skip


def test_an_archived_game_counts_each_seat() -> None:
    entry = {
        "id": "abc-2-x", "room": "abc", "created": 1.5, "game": 2, "club": None,
        "variant": "wisconsin4", "rules": {}, "finished_at": 9, "teams": [[0, 2], [1, 3]],
        "scores": [11, 5], "winners": [0],
        "players": [
            {"seat": 0, "name": "Ann", "kind": "human", "member": "m1", "bot": None},
            {"seat": 1, "name": "Bot 2", "kind": "bot", "member": None, "bot": "easy"},
            {"seat": 2, "name": "Guest", "kind": "human", "member": None, "bot": None},
            {"seat": 3, "name": "Bot 4", "kind": "bot", "member": None, "bot": "easy"},
        ],
    }  # fmt: skip
    records = [
        record(1, 1, 0, True, [4, 2], [1]),  # the room's first game: not this one
        record(2, 2, 0, True, [4, 2], None),
        record(3, 2, 1, False, [3, -4], None),
        record(4, 2, 0, False, [-5, 6], None),
        record(5, 2, 2, True, [9, 1], [0]),
    ]
    game = archived_game(entry, records)
    assert [r["n"] for r in game.records] == [2, 3, 4, 5]
    rows = {s.seat: s for s in game.seats}
    assert (rows[0].hands, rows[0].points, rows[0].bids, rows[0].made, rows[0].set) == (
        4, 4 + 3 - 5 + 9, 2, 1, 1,
    )  # fmt: skip
    assert (rows[1].points, rows[1].bids, rows[1].set) == (2 - 4 + 6 + 1, 1, 1)
    assert rows[2].bids == 1 and rows[2].made == 1
    assert rows[0].won and not rows[1].won and rows[0].score == 11
    assert rows[1].bot == "easy" and rows[1].member is None and rows[0].member == "m1"
    with pytest.raises(IncompleteGame):
        archived_game({**entry, "game": 3}, records)
    with pytest.raises(IncompleteGame):
        archived_game(entry, records[:-1])  # the game's last hand is missing
