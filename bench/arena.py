"""Bots against bots on duplicate deals: who wins, by how much, and how fast they think.

    python -m bench.arena --a strong --b normal --variant wisconsin4 --deals 100
    python -m bench.arena --ladder --deals 40            # Elo over every level + random
    python -m bench.arena --ladder --levels normal,easy,random --deals 100
    [--house-rules random] [--target 21] [--seed 1] [--workers 2] [--paired] [--json]

`--a` and `--b` are level names (`schmier/engine/bots/levels.py`) or policy names, or
`oracle` (`bench/oracle.py`: the search shown every hidden card, a ceiling to measure
targets against, never a bot for players). A
*deal set* is one sequence of shuffled decks (hand k of every game gets the same deck)
played once per seating: with two teams the sides swap; with three teams (`schmier6`)
`a`'s pair sits at each team in turn against `b` at the other two; where the bidder
calls its partner (`schmier5`) one `a` seat sits at each of the five seats among four
`b` seats. So every deck is played by both bots from every seat, and the luck of the
cards cancels. Every decision is `bots.choose` on `engine.view(state, seat)`, with its
own seeded random source; the same command gives the same games. The source is seeded
with the bots' names, so `strong:FIELD=N` draws other numbers than `strong`; with
`--paired` it is seeded with the level's name only (`strong`), so a budget variant draws
the same numbers as its level and plays the same games up to the first decision the
change alters (common random numbers: the per-game results, `game_wins`, of the two
runs can then be compared game by game, with much less noise than two independent
draws).

Reported for `a`: games won with a 95% Wilson interval against its fair share (what it
would win if it were as strong as `b`), points per hand of each bot's side (its score
change, the bid subtracted when set), bids won, made and set, and CPU milliseconds per
decision (median and 99th percentile, of all decisions and of the unforced ones, as
`time.process_time` of the worker: one core). The ladder plays every pair of levels and
fits Elo ratings to the results (`normal` at 1500).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import multiprocessing
import random
import sys
import time
from typing import Any

from bench import oracle
from bench.kit.stats import percentile
from schmier import engine
from schmier.engine.bots import PLAYERS, choose, search
from schmier.engine.bots.levels import BY_NAME, LEVELS
from schmier.rooms import budget

#: A game still running after this many hands is stopped and won by nobody.
MAX_HANDS = 200


def policy_of(name: str) -> str:
    return BY_NAME[name].policy if name in BY_NAME else name


def budget_of(spec: str) -> search.Budget:
    """The search's budget from `FIELD=N,...` (empty: the default budget); `step=NAME`
    starts from a step of the server's budgets under load (`schmier/rooms/budget.py`:
    `half`, `quarter`, `eighth`), which other fields then change."""
    fields: dict[str, Any] = {}
    base = search.DEFAULT_BUDGET
    for item in filter(None, spec.split(",")):
        key, _, value = item.partition("=")
        if key == "step":
            base = budget.scaled(next(s.ratio for s in budget.STEPS[1:-1] if s.name == value))
            continue
        flag = isinstance(getattr(search.DEFAULT_BUDGET, key), bool)
        fields[key] = bool(int(value)) if flag else int(value)
    return dataclasses.replace(base, **fields)


def decide(
    name: str, view: dict[str, Any], rng: random.Random, state: engine.State
) -> dict[str, Any]:
    """`bots.choose` for a level or policy; `strong:playouts=1200,smart=0` is the search
    with another budget (for measuring what the budget and the rollouts are worth;
    `strong:step=half`: a step of the server's budgets under load), and
    the names of `oracle.SEES` (optionally with a budget too) the search shown `state`."""
    base, _, spec = name.partition(":")
    if base in oracle.SEES:
        return oracle.decide(base, budget_of(spec), state, view, rng)
    if not spec:
        return choose(policy_of(name), view, rng)
    return search.act(view, view["legal"], rng, budget_of(spec))


def random_house_rules(variant: str, rng: random.Random) -> dict[str, Any]:
    rules: dict[str, Any] = {
        "stick_the_dealer": rng.random() < 0.5,
        "trump_anytime": rng.random() < 0.5,
    }
    if engine.describe(variant)["kitty"]:
        rules["kitty"] = rng.randint(0, 3)
    if len(engine.describe(variant)["jokers"]) > 1:
        rules["joker_order"] = rng.choice(["first_high", "second_high"])
    return rules


def seatings(variant: str) -> list[list[int]]:
    """For each game of a deal set, the seats bot `a` takes."""
    book = engine.describe(variant)
    if book["fixed_teams"]:
        return [list(t) for t in book["teams"]]
    return [[s] for s in range(book["seats"])]


def deal_from(
    state: engine.State, decks: list[list[str]], k: int, deck_rng: random.Random
) -> engine.State:
    """Deal hand `k` of a deal set: its `k`-th deck, the `k`-th shuffle of `deck_rng`
    (seeded by the deal set, so every game of the set deals the same decks), made when
    first needed and kept in `decks`."""
    while len(decks) <= k:
        deck = engine.full_deck(state.variant.name)
        deck_rng.shuffle(deck)
        decks.append(deck)
    return engine.deal(state, decks[k])


def play_game(
    job: tuple[str, str, str, dict[str, Any], int, int, list[int], int],
) -> dict[str, Any]:
    """One game; `a` sits at `a_seats`, `b` everywhere else."""
    variant, a, b, rules, target, deal_seed, a_seats, game_seed = job
    n = engine.seat_count(variant)
    names = [a if s in a_seats else b for s in range(n)]
    deck_rng = random.Random(deal_seed)
    decks: list[list[str]] = []
    state = engine.new_game(
        variant, engine.make_rules(variant, {**rules, "target": target}), deck_rng.randrange(n)
    )
    teams = engine.teams(variant)
    stat: dict[str, Any] = {
        "won": None,
        "hands": 0,
        "points": {"a": 0, "b": 0},
        "units": {"a": 0, "b": 0},
        "bids": {x: {"won": 0, "made": 0} for x in ("a", "b")},
        "ms": {"a": [], "b": []},
        "forced": {"a": 0, "b": 0},
    }
    for team in teams:
        key = "a" if team[0] in a_seats else "b"
        stat["units"][key] += 1
    decision = 0
    dealt = 0
    while state.phase != "game_over" and stat["hands"] < MAX_HANDS:
        if engine.needs_deal(state):
            if state.last_hand is not None and state.phase == "hand_over":
                _book_hand(state, a_seats, teams, stat)
            state = deal_from(state, decks, dealt, deck_rng)
            dealt += 1
            continue
        for seat in engine.turn(state):
            view = engine.view(state, seat)
            key = "a" if seat in a_seats else "b"
            rng = random.Random(f"{game_seed}/{decision}")
            start = time.process_time()
            action = decide(names[seat], view, rng, state)
            elapsed = (time.process_time() - start) * 1000
            if len(view["legal"]) == 1 and view["legal"][0]["type"] != "discard":
                stat["forced"][key] += 1
            stat["ms"][key].append(round(elapsed, 3))
            state = engine.apply(state, seat, action)
            decision += 1
    if state.phase == "game_over":
        _book_hand(state, a_seats, teams, stat)
        winners = state.winners or ()
        stat["won"] = "a" if any(teams[w][0] in a_seats for w in winners) else "b"
    return stat


def _book_hand(
    state: engine.State, a_seats: list[int], teams: list[list[int]], stat: dict[str, Any]
) -> None:
    lh = state.last_hand
    assert lh is not None
    stat["hands"] += 1
    for i, team in enumerate(teams):
        key = "a" if team[0] in a_seats else "b"
        stat["points"][key] += lh.deltas[i]
    key = "a" if lh.bidder in a_seats else "b"
    stat["bids"][key]["won"] += 1
    stat["bids"][key]["made"] += int(lh.made)


def wilson(wins: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    z = 1.96
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def match(
    a: str,
    b: str,
    variant: str,
    deals: int,
    seed: int,
    house: str,
    target: int,
    workers: int,
    paired: bool = False,
) -> dict[str, Any]:
    """`deals` deal sets of `a` against `b` in `variant` (`paired`: the random sources
    seeded by the levels' names, without their budgets)."""
    sa, sb = (a.partition(":")[0], b.partition(":")[0]) if paired else (a, b)
    jobs = []
    rules_rng = random.Random(f"rules/{seed}/{variant}")
    for d in range(deals):
        rules = random_house_rules(variant, rules_rng) if house == "random" else {}
        deal_seed = random.Random(f"deal/{seed}/{variant}/{d}").randrange(2**32)
        for g, a_seats in enumerate(seatings(variant)):
            game_seed = f"{seed}/{variant}/{d}/{g}/{sa}/{sb}"
            jobs.append((variant, a, b, rules, target, deal_seed, a_seats, game_seed))
    start = time.time()
    if workers > 1:
        with multiprocessing.Pool(workers) as pool:
            games = pool.map(play_game, jobs, chunksize=1)
    else:
        games = [play_game(j) for j in jobs]
    wall = time.time() - start
    return summarise(a, b, variant, house, games, wall)


def summarise(
    a: str, b: str, variant: str, house: str, games: list[dict[str, Any]], wall: float
) -> dict[str, Any]:
    n = len(games)
    wins = sum(1 for g in games if g["won"] == "a")
    unfinished = sum(1 for g in games if g["won"] is None)
    hands = sum(g["hands"] for g in games)
    fair = len(seatings(variant)[0]) / engine.seat_count(variant)
    lo, hi = wilson(wins, n)
    out: dict[str, Any] = {
        "variant": variant,
        "a": a,
        "b": b,
        "house_rules": house,
        "games": n,
        "a_wins": wins,
        "a_win_share": round(wins / n, 4) if n else 0.0,
        "a_win_95": [round(lo, 4), round(hi, 4)],
        "fair_share": round(fair, 4),
        "unfinished": unfinished,
        "hands": hands,
        "wall_seconds": round(wall, 1),
        # Game by game, in deal-set and seating order: 1 won by a, 0 by b, - unfinished.
        "game_wins": "".join("-" if g["won"] is None else str(int(g["won"] == "a")) for g in games),
    }
    for key, name in (("a", a), ("b", b)):
        units = sum(g["units"][key] for g in games) / max(1, n)
        pts = sum(g["points"][key] for g in games)
        won = sum(g["bids"][key]["won"] for g in games)
        made = sum(g["bids"][key]["made"] for g in games)
        ms = [x for g in games for x in g["ms"][key]]
        out[key + "_stats"] = {
            "name": name,
            "points_per_hand_per_unit": round(pts / max(1, hands) / max(units, 1), 3),
            "bids_won": won,
            "bids_made": made,
            "bids_set": won - made,
            "made_share": round(made / won, 4) if won else None,
            "decisions": len(ms),
            "ms_median": round(percentile(ms, 0.5), 2),
            "ms_p99": round(percentile(ms, 0.99), 2),
            "ms_max": round(max(ms, default=0.0), 2),
        }
    return out


def elo_diff(share: float, fair: float) -> float:
    """The Elo difference whose odds of winning, scaled by the fair odds, give `share`."""
    share = min(max(share, 0.005), 0.995)
    odds = (share / (1 - share)) / (fair / (1 - fair))
    return 400 * math.log10(odds)


def ladder(results: list[dict[str, Any]], names: list[str]) -> dict[str, float]:
    """Least-squares Elo from the pairwise differences, `normal` (or the first) at 1500."""
    rating = dict.fromkeys(names, 0.0)
    pairs = [(r["a"], r["b"], elo_diff(r["a_win_share"], r["fair_share"])) for r in results]
    for _ in range(2000):
        for x in names:
            terms = [rating[b] + d for a, b, d in pairs if a == x]
            terms += [rating[a] - d for a, b, d in pairs if b == x]
            if terms:
                rating[x] = sum(terms) / len(terms)
    anchor = "normal" if "normal" in rating else names[0]
    shift = 1500 - rating[anchor]
    return {x: round(v + shift) for x, v in rating.items()}


def print_match(r: dict[str, Any]) -> None:
    sa, sb = r["a_stats"], r["b_stats"]
    lo, hi = r["a_win_95"]
    print(
        f"{r['variant']:<11} {r['a']:>8} vs {r['b']:<8} games {r['games']:>4}  "
        f"{r['a']} wins {100 * r['a_win_share']:5.1f}% [{100 * lo:4.1f}-{100 * hi:4.1f}] "
        f"(fair {100 * r['fair_share']:.0f}%)  unfinished {r['unfinished']}"
    )
    for s in (sa, sb):
        made = "-" if s["made_share"] is None else f"{100 * s['made_share']:.1f}%"
        print(
            f"    {s['name']:<9} pts/hand {s['points_per_hand_per_unit']:+.2f}  bids won "
            f"{s['bids_won']:>5} made {made:>6} set {s['bids_set']:>4}  ms median "
            f"{s['ms_median']:.1f} p99 {s['ms_p99']:.1f} max {s['ms_max']:.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [lv.name for lv in LEVELS] + [p for p in PLAYERS if p not in BY_NAME]
    parser.add_argument("--a", default="strong", help=f"one of {names}, or strong:FIELD=N,...")
    parser.add_argument("--b", default="normal", help=f"one of {names}, or strong:FIELD=N,...")
    parser.add_argument("--variant", choices=engine.VARIANTS, action="append")
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--house-rules", choices=("default", "random"), default="default")
    parser.add_argument("--target", type=int, default=21)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ladder", action="store_true", help="every pair of levels")
    parser.add_argument("--levels", help="the ladder's levels, comma-separated (default: all)")
    parser.add_argument(
        "--paired",
        action="store_true",
        help="seed by the levels' names only: a budget variant draws what its level draws",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    variants = args.variant or list(engine.VARIANTS)
    if args.ladder:
        levels = args.levels.split(",") if args.levels else [lv.name for lv in LEVELS]
        pairs = list(itertools.combinations(levels, 2))
    else:
        levels = [args.a, args.b]
        pairs = [(args.a, args.b)]
    results = []
    for variant in variants:
        for a, b in pairs:
            r = match(
                a,
                b,
                variant,
                args.deals,
                args.seed,
                args.house_rules,
                args.target,
                args.workers,
                args.paired,
            )
            results.append(r)
            if not args.json:
                print_match(r)
                sys.stdout.flush()
    out: dict[str, Any] = {"matches": results}
    if args.ladder:
        out["elo"] = {
            v: ladder([r for r in results if r["variant"] == v], levels) for v in variants
        }
        out["elo"]["all"] = ladder(results, levels)
    if args.json:
        print(json.dumps(out, indent=2))
    elif args.ladder:
        for v, table in out["elo"].items():
            print(f"Elo {v:<11} " + "  ".join(f"{k} {x}" for k, x in table.items()))


if __name__ == "__main__":
    main()
