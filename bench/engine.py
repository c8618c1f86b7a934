"""Engine speed: whole hands and games with random players, one core, no I/O.

    python bench/engine.py [--hands 20000] [--variant wisconsin4] [--seed 1] [--json]

A random player picks uniformly among `engine.legal_actions` (a discard: a random
count, then a random subset), so every phase is exercised: deal, bidding, trump,
discards, the partner call, play and scoring. Random players overbid and get set, so
their scores drift below zero and some games would never reach the target: a game is
cut off after `--max-hands` hands and counted as cut, not as finished.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from schmier import engine


def random_action(state: engine.State, seat: int, rng: random.Random) -> dict[str, Any]:
    action = rng.choice(engine.legal_actions(state, seat))
    if action["type"] == "discard":
        count = rng.randint(action["min"], action["max"])
        return {"type": "discard", "cards": rng.sample(action["from"], count)}
    return action


def run(variant: str, hands: int, seed: int, max_hands: int) -> dict[str, Any]:
    rng = random.Random(seed)
    rules = engine.make_rules(variant)
    seats = engine.seat_count(variant)
    played = actions = finished = cut = 0
    game_hands = 0
    state = engine.new_game(variant, rules, rng.randrange(seats))
    deck = engine.full_deck(variant)
    start = time.process_time()
    while played < hands:
        if state.phase == "game_over" or game_hands >= max_hands:
            if state.phase == "game_over":
                finished += 1
            else:
                cut += 1
            state = engine.new_game(variant, rules, rng.randrange(seats))
            game_hands = 0
        if engine.needs_deal(state):
            if state.phase == "hand_over":
                played += 1
                game_hands += 1
            rng.shuffle(deck)
            state = engine.deal(state, deck)
            continue
        turn = state.turn
        seat = turn[0] if len(turn) == 1 else rng.choice(turn)
        state = engine.apply(state, seat, random_action(state, seat, rng))
        actions += 1
    elapsed = time.process_time() - start
    return {
        "variant": variant,
        "hands": played,
        "actions": actions,
        "games_finished": finished,
        "games_cut": cut,
        "cpu_seconds": round(elapsed, 3),
        "hands_per_second": round(played / elapsed),
        "actions_per_second": round(actions / elapsed),
        "games_per_second": round(finished / elapsed, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--variant", choices=engine.VARIANTS, action="append")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-hands", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [
        run(v, args.hands, args.seed, args.max_hands) for v in args.variant or engine.VARIANTS
    ]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(
        f"{'variant':<12}{'hands/s':>10}{'actions/s':>12}{'games/s':>10}{'finished':>10}{'cut':>6}"
    )
    for r in results:
        print(
            f"{r['variant']:<12}{r['hands_per_second']:>10}{r['actions_per_second']:>12}"
            f"{r['games_per_second']:>10}{r['games_finished']:>10}{r['games_cut']:>6}"
        )


if __name__ == "__main__":
    main()
