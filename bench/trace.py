"""A trace of bot decisions, hashed: proof that a change kept every decision the same.

Every decision of `strong` (its default budget and a small one), `normal` (the
heuristic) and `easy` over the first six hands of whole games of all three variants,
half of them under random house rules (`trump_anytime` and `joker_order` each played
both ways, `kitty`, `stick_the_dealer`, `target`), every random source seeded:

    python -m bench.trace [--games 6] [--out trace.jsonl]

prints `{"decisions": n, "sha256": ...}`. Run it on the commit before a change meant
to keep the bots' behaviour and on the change itself: the same hash says so (for the
one definition of the trick rules: 2,027 decisions at `--games 6`, the same hash on
both sides). `--out` keeps the decision lines, to find where two runs part.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from typing import Any

from schmier import engine
from schmier.engine.bots import choose, search

SMALL = search.Budget(playouts=120, min_worlds=6, max_worlds=24, hand_worlds=10)


def house(variant: str, rng: random.Random) -> tuple[dict[str, Any], bool]:
    rules: dict[str, Any] = {
        "target": rng.randint(5, 9),
        "stick_the_dealer": rng.random() < 0.5,
        "trump_anytime": rng.random() < 0.5,
    }
    flip = rng.random() < 0.5
    if variant == "wisconsin4":
        rules["kitty"] = rng.randint(0, 3)
        rules["joker_order"] = rng.choice(["first_high", "second_high"])
    return rules, flip


def act(policy: str, view: Any, rng: random.Random) -> dict[str, Any]:
    if policy == "strong-small":
        return search.act(view, view["legal"], rng, SMALL)
    return choose(policy, view, rng)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--out")
    a = ap.parse_args()
    lines: list[str] = []
    mix = ["strong", "heuristic", "strong-small", "easy"]
    for variant in engine.VARIANTS:
        for g in range(a.games):
            rng = random.Random(f"trace/{variant}/{g}")
            rules, _ = house(variant, rng) if g % 2 else ({"target": 7}, False)
            if g % 2:
                # Each trick-play house rule both ways across the odd games.
                rules["trump_anytime"] = g % 4 == 1
                if "joker_order" in rules:
                    rules["joker_order"] = "second_high" if g % 4 == 1 else "first_high"
            n = engine.seat_count(variant)
            policies = [mix[(g + s) % len(mix)] for s in range(n)]
            state = engine.new_game(variant, engine.make_rules(variant, rules), g % n)
            hands = 0
            while state.phase != "game_over" and hands < 6:
                if engine.needs_deal(state):
                    if state.phase == "hand_over":
                        hands += 1
                        if hands >= 6:
                            break
                    deck = engine.full_deck(variant)
                    rng.shuffle(deck)
                    state = engine.deal(state, deck)
                    continue
                seat = engine.turn(state)[0]
                view = engine.view(state, seat)
                k = len(lines)
                answer = act(policies[seat], view, random.Random(f"{variant}/{g}/{k}"))
                lines.append(json.dumps([variant, g, seat, policies[seat], answer], sort_keys=True))
                state = engine.apply(state, seat, answer)
            lines.append(json.dumps([variant, g, "end", list(state.scores)]))
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    decisions = sum(1 for line in lines if '"end"' not in line)
    print(json.dumps({"decisions": decisions, "sha256": digest}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
