"""Engine speed: whole hands and games with random players, one core, no I/O.

    python bench/engine.py [--hands 20000] [--variant wisconsin4] [--seed 1] [--json]
                           [--path json|checked|trusted]

A random player picks uniformly among the legal actions (a discard: a random count,
then a random subset), so every phase is exercised: deal, bidding, trump, discards, the
partner call, play and scoring. Random players overbid and get set, so their scores
drift below zero and some games would never reach the target: a game is cut off after
`--max-hands` hands and counted as cut, not as finished.

`--path` picks the way in, from the server's to a search's:

- `json` (the default): `engine.legal_actions` and `engine.apply` on the protocol's
  JSON objects, parsed and checked, as the server receives a player's frame;
- `checked`: `engine.legal_moves` (and `discard_template`) and `engine.apply` on
  `Action`s: checked, nothing parsed;
- `trusted`: the same moves through `engine.apply_trusted`, which checks nothing.

The random draws are the same on every path, so all three play the very same games.
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
from schmier.engine.cards import cards_of

PATHS = ("json", "checked", "trusted")


def random_action(state: engine.State, seat: int, rng: random.Random) -> dict[str, Any]:
    action = rng.choice(engine.legal_actions(state, seat))
    if action["type"] == "discard":
        count = rng.randint(action["min"], action["max"])
        return {"type": "discard", "cards": rng.sample(action["from"], count)}
    return action


def random_move(state: engine.State, seat: int, rng: random.Random) -> engine.Action:
    """`random_action` with the same draws, as an `Action` from `legal_moves`."""
    template = engine.discard_template(state, seat)
    if template is None:
        return rng.choice(engine.legal_moves(state, seat))
    rng.choice((template,))  # the draw `random_action` makes among its one entry
    count = rng.randint(template.min, template.max)
    return engine.Action("discard", tuple(rng.sample(cards_of(template.allowed), count)))


def run(variant: str, hands: int, seed: int, max_hands: int, path: str = "json") -> dict[str, Any]:
    rng = random.Random(seed)
    rules = engine.make_rules(variant)
    seats = engine.seat_count(variant)
    played = actions = finished = cut = 0
    game_hands = 0
    state = engine.new_game(variant, rules, rng.randrange(seats))
    deck: list[Any] = engine.full_deck(variant)
    if path != "json":
        deck = list(engine.get_variant(variant).deck)  # the same order, as card ints
    apply = engine.apply_trusted if path == "trusted" else engine.apply
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
            if path == "json":
                state = engine.deal(state, deck)
            else:
                state = apply(state, None, engine.Action("deal", tuple(deck)))
            continue
        turn = state.turn
        seat = turn[0] if len(turn) == 1 else rng.choice(turn)
        if path == "json":
            state = engine.apply(state, seat, random_action(state, seat, rng))
        else:
            state = apply(state, seat, random_move(state, seat, rng))
        actions += 1
    elapsed = time.process_time() - start
    return {
        "variant": variant,
        "path": path,
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
    parser.add_argument("--path", choices=PATHS, action="append")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [
        run(v, args.hands, args.seed, args.max_hands, path)
        for v in args.variant or engine.VARIANTS
        for path in args.path or PATHS[:1]
    ]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(
        f"{'variant':<12}{'path':<9}{'hands/s':>10}{'actions/s':>12}{'games/s':>10}"
        f"{'finished':>10}{'cut':>6}"
    )
    for r in results:
        print(
            f"{r['variant']:<12}{r['path']:<9}{r['hands_per_second']:>10}"
            f"{r['actions_per_second']:>12}"
            f"{r['games_per_second']:>10}{r['games_finished']:>10}{r['games_cut']:>6}"
        )


if __name__ == "__main__":
    main()
