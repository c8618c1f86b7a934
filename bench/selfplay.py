"""Self-play benchmark: the heuristic bot against random play, through the real engine.

For each variant, N seeded games where the heuristic plays some seats and the random
policy the others:

- ``schmier6``: the heuristic team {0, 3} against the random teams {1, 4} and {2, 5};
- ``wisconsin4``: the heuristic team {0, 2} against the random team {1, 3};
- ``schmier5``: one heuristic seat (seat ``game % 5``, so every seat takes its turn)
  against four random players.

Every decision goes through ``engine.view(state, seat)`` and ``bots.choose``, exactly as
the server's bot seats do, so the benchmark also exercises the engine on thousands of
games. Reported per variant: the heuristic side's win rate (against the share a random
player would expect), its bid-made rate when it won the bid (and the random side's,
for contrast), the average number of scored hands per game, and the wall time.

Deterministic: game ``i`` of a run with ``--seed s`` shuffles its decks with
``random.Random(f"deal/{variant}/{s}/{i}")`` and drives its bots with another
``random.Random`` derived the same way, whatever the number of workers.

    python -m bench.selfplay                      # 2000 games of each variant
    python -m bench.selfplay --variant wisconsin4 --games 200 --seed 7 --json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from schmier import engine
from schmier.engine.bots import choose

#: Which seats the heuristic plays, per variant (schmier5 rotates, see `_heuristic_seats`).
HEURISTIC_SEATS: dict[str, tuple[int, ...]] = {
    "schmier6": (0, 3),
    "wisconsin4": (0, 2),
}

#: The share of games a side would win if every seat played randomly.
FAIR_SHARE = {"schmier6": 1 / 3, "schmier5": 1 / 5, "wisconsin4": 1 / 2}

#: A game that has not ended after this many hands is abandoned (and counted): a guard
#: against an engine bug looping forever, never reached by a working engine.
MAX_HANDS = 2000


@dataclass
class Tally:
    """Counts for a batch of games; batches add up."""

    games: int = 0
    wins: int = 0
    hands: int = 0
    abandoned: int = 0
    heuristic_bids: int = 0
    heuristic_made: int = 0
    random_bids: int = 0
    random_made: int = 0
    redeals: int = 0
    decisions: int = 0
    heuristic_points: int = 0
    random_points: int = 0

    def add(self, other: Tally) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)


def _heuristic_seats(variant: str, game: int) -> tuple[int, ...]:
    if variant == "schmier5":
        return (game % 5,)
    return HEURISTIC_SEATS[variant]


def play_game(variant: str, seed: int, game: int) -> Tally:
    """Play one whole game and count what the benchmark reports."""
    deck_rng = random.Random(f"deal/{variant}/{seed}/{game}")
    bot_rng = random.Random(f"bots/{variant}/{seed}/{game}")
    heuristic = set(_heuristic_seats(variant, game))
    n = engine.seat_count(variant)
    policies = ["heuristic" if s in heuristic else "random" for s in range(n)]
    rules = engine.make_rules(variant, None)
    state = engine.new_game(variant, rules, deck_rng.randrange(n))
    tally = Tally(games=1)
    while state.phase != "game_over":
        if engine.needs_deal(state):
            if tally.hands >= MAX_HANDS:
                tally.abandoned += 1
                return tally
            if state.phase == "deal" and tally.decisions:
                tally.redeals += 1  # everybody passed, the same dealer deals again
            deck = engine.full_deck(variant)
            deck_rng.shuffle(deck)
            state = engine.deal(state, deck)
            continue
        before = state.phase
        for seat in engine.turn(state):
            action = choose(policies[seat], engine.view(state, seat), bot_rng)
            state = engine.apply(state, seat, action)
            tally.decisions += 1
        if before == "play" and state.phase in ("hand_over", "game_over"):
            _count_hand(tally, engine.view(state, None)["last_hand"], heuristic)
    winners = engine.view(state, None)["winners"] or []
    teams = engine.teams(variant)
    won = any(heuristic & set(teams[w]) for w in winners)
    tally.wins += int(won)
    return tally


def _count_hand(tally: Tally, last: dict[str, Any], heuristic: set[int]) -> None:
    """Count one scored hand: who bid, whether they made it, the points taken."""
    tally.hands += 1
    sides: list[list[int]] = last["sides"]
    heuristic_side = next(i for i, side in enumerate(sides) if heuristic & set(side))
    if last["bidder"] in heuristic:
        tally.heuristic_bids += 1
        tally.heuristic_made += int(last["made"])
    else:
        tally.random_bids += 1
        tally.random_made += int(last["made"])
    for winner in last["points"].values():
        if winner is None:
            continue
        if winner == heuristic_side:
            tally.heuristic_points += 1
        else:
            tally.random_points += 1


def _batch(job: tuple[str, int, int, int]) -> Tally:
    variant, seed, start, stop = job
    total = Tally()
    for game in range(start, stop):
        total.add(play_game(variant, seed, game))
    return total


def run(variant: str, games: int, seed: int, workers: int) -> dict[str, Any]:
    """Play `games` games of `variant` on up to `workers` processes; a summary dict."""
    started = time.perf_counter()
    step = max(1, min(100, games // (4 * max(1, workers)) or 1))
    jobs = [(variant, seed, i, min(games, i + step)) for i in range(0, games, step)]
    total = Tally()
    if workers > 1 and len(jobs) > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for part in pool.imap_unordered(_batch, jobs):
                total.add(part)
    else:
        for job in jobs:
            total.add(_batch(job))
    elapsed = time.perf_counter() - started
    n = max(1, total.games)
    points = total.heuristic_points + total.random_points
    return {
        "variant": variant,
        "games": total.games,
        "seed": seed,
        "heuristic_seats": "rotating one seat"
        if variant == "schmier5"
        else list(HEURISTIC_SEATS[variant]),
        "heuristic_wins": total.wins,
        "heuristic_win_rate": round(total.wins / n, 4),
        "fair_share": round(FAIR_SHARE[variant], 4),
        "heuristic_bids_won": total.heuristic_bids,
        "heuristic_bid_made_rate": _rate(total.heuristic_made, total.heuristic_bids),
        "random_bids_won": total.random_bids,
        "random_bid_made_rate": _rate(total.random_made, total.random_bids),
        "heuristic_point_share": _rate(total.heuristic_points, points),
        "avg_hands_per_game": round(total.hands / n, 2),
        "redeals": total.redeals,
        "abandoned": total.abandoned,
        "decisions": total.decisions,
        "seconds": round(elapsed, 1),
    }


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _table(rows: Sequence[dict[str, Any]]) -> str:
    head = (
        "| variant | games | heuristic wins | fair share | heuristic bids made "
        "| random bids made | heuristic point share | hands/game | seconds |"
    )
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        lines.append(
            f"| {r['variant']} | {r['games']} "
            f"| {r['heuristic_wins']} ({_pct(r['heuristic_win_rate'])}) "
            f"| {_pct(r['fair_share'])} "
            f"| {_pct(r['heuristic_bid_made_rate'])} ({r['heuristic_bids_won']} bids) "
            f"| {_pct(r['random_bid_made_rate'])} ({r['random_bids_won']} bids) "
            f"| {_pct(r['heuristic_point_share'])} | {r['avg_hands_per_game']} "
            f"| {r['seconds']} |"
        )
    return "\n".join(lines)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.2f}%"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per variant")
    parser.add_argument("--seed", type=int, default=1, help="base seed of the run")
    parser.add_argument(
        "--variant",
        choices=[*engine.VARIANTS, "all"],
        default="all",
        help="one variant, or all three (default)",
    )
    parser.add_argument("--workers", type=int, default=2, help="processes, 1 or 2")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    workers = max(1, min(2, args.workers))  # the machine's cores are shared
    variants = engine.VARIANTS if args.variant == "all" else (args.variant,)
    rows = [run(v, args.games, args.seed, workers) for v in variants]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
