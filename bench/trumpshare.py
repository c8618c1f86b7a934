"""Where the unseen trumps lie: the search's sampled worlds against the true deals.

    python -m bench.trumpshare --variant schmier5 --games 200 --json

Plays seeded games with `normal` at every seat. At the first card of each of a game's
first three hands, every seat in turn is the viewer: its view is read (`worlds.Know`)
and `--worlds` worlds are sampled from it, and each other seat is booked by what the
bidding made of it (the bidder; the Schmier dealer, who picked its six from the whole
stock; a seat that bid and was outbid; a seat that passed). Per role it reports the
unseen trumps the seat truly holds and how many the sampled worlds give it, on average.

Why: the sampler deals the unseen trumps by weights (`worlds.Know.trump_weight`: the
bidder twice as likely as a seat that was outbid, a seat that passed 0.6 times as
likely), set by the arena, not measured against deals. This measures them. The viewer
here is `normal` like the other seats, so the counts are those a `strong` seat among
`normal` ones meets; other bidders make other counts.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from typing import Any

from schmier import engine
from schmier.engine.bots import choose
from schmier.engine.bots.worlds import Know, sample

ROLES = ("bidder", "dealer", "outbid", "passed")

#: Hands looked at per game: the first ones, while every seat's score is still far from
#: the target (the race changes nothing in the sampler, but keeps the games short).
HANDS_PER_GAME = 3


def role_of(state: engine.State, seat: int) -> str:
    """What the bidding made of `seat`: public, so the same for every viewer."""
    if seat == state.bidder:
        return "bidder"
    if seat == state.dealer and engine.describe(state.variant.name)["discards"] == "all":
        return "dealer"
    amount = dict(state.bids).get(seat)
    return "passed" if amount is None else "outbid"


def measure(variant: str, games: int, worlds: int, seed: int) -> dict[str, dict[str, float]]:
    """Per role: positions booked, the true and the sampled unseen trumps a seat holds."""
    n = engine.seat_count(variant)
    count: dict[str, int] = defaultdict(int)
    true: dict[str, float] = defaultdict(float)
    sampled: dict[str, float] = defaultdict(float)
    for game in range(games):
        deck_rng = random.Random(f"trumpshare/deal/{variant}/{seed}/{game}")
        bot_rng = random.Random(f"trumpshare/bots/{variant}/{seed}/{game}")
        world_rng = random.Random(f"trumpshare/worlds/{variant}/{seed}/{game}")
        rules = engine.make_rules(variant, None)
        state = engine.new_game(variant, rules, deck_rng.randrange(n))
        looked = 0
        while state.phase != "game_over" and looked < HANDS_PER_GAME:
            if engine.needs_deal(state):
                deck = engine.full_deck(variant)
                deck_rng.shuffle(deck)
                state = engine.deal(state, deck)
                continue
            if state.phase == "play" and not state.tricks and not state.trick:
                looked += 1
                _book(state, worlds, world_rng, count, true, sampled)
            for seat in engine.turn(state):
                action = choose("heuristic", engine.view(state, seat), bot_rng)
                state = engine.apply(state, seat, action)
    return {
        role: {
            "positions": count[role],
            "true": round(true[role] / count[role], 3),
            "sampled": round(sampled[role] / count[role], 3),
            "ratio": round(sampled[role] / true[role], 3) if true[role] else 0.0,
        }
        for role in ROLES
        if count[role]
    }


def _book(
    state: engine.State,
    worlds: int,
    rng: random.Random,
    count: dict[str, int],
    true: dict[str, float],
    sampled: dict[str, float],
) -> None:
    """Book every seat but the viewer, for every viewer that knows the trump."""
    n = len(state.hands)
    roles = [role_of(state, seat) for seat in range(n)]
    for me in range(n):
        know = Know(engine.view(state, me))
        tmask = know.tb.mask
        if not tmask:
            continue  # the trump is still secret to this viewer (`wisconsin4`)
        drawn = [sample(know, rng) for _ in range(worlds)]
        for seat in range(n):
            if seat == me:
                continue
            role = roles[seat]
            count[role] += 1
            true[role] += (state.hands[seat] & tmask & know.unseen).bit_count()
            sampled[role] += sum((w.hands[seat] & tmask).bit_count() for w in drawn) / worlds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=engine.VARIANTS, default="schmier5")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--worlds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report: dict[str, Any] = {
        "variant": args.variant,
        "games": args.games,
        "roles": measure(args.variant, args.games, args.worlds, args.seed),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for role, row in report["roles"].items():
        print(
            f"{args.variant} {role:7s} {row['positions']:6d} positions: "
            f"holds {row['true']:.2f} unseen trumps, sampled {row['sampled']:.2f} "
            f"({row['ratio']:.2f}x)"
        )


if __name__ == "__main__":
    main()
