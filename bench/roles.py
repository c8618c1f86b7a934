"""The arena's `schmier5` match with bot `a`'s hands split by role: where its seat gains.

    python -m bench.roles --a strong --b normal --deals 16 --seed 1 --json

Plays exactly the games of `bench/arena.py --variant schmier5` with the same arguments
(same deals, seatings and seeds, so the same games and the same summary), and books
every scored hand of the `a` seat by its role: bidder with a called partner, bidder
alone (declared, or a called card that was discarded), partner, defender. Per role it
reports the hands, the bids made, and the seat's score change against the mean change
of the five seats (what being the single highest score at the end is made of).

Why: in `schmier5` a defender's points go to all three defenders alike, so a seat gains
on the table only as bidder or partner; this says which role wins or loses the margin.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from typing import Any

from bench import arena
from schmier import engine

ROLES = ("bidder", "bidder_alone", "partner", "defender")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="strong")
    parser.add_argument("--b", default="normal")
    parser.add_argument("--deals", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    hands: dict[str, int] = defaultdict(int)
    made: dict[str, int] = defaultdict(int)
    gain: dict[str, float] = defaultdict(float)
    book = arena._book_hand

    def book_roles(
        state: engine.State, a_seats: list[int], teams: list[list[int]], stat: dict[str, Any]
    ) -> None:
        book(state, a_seats, teams, stat)
        last = state.last_hand
        assert last is not None
        me = a_seats[0]
        if last.bidder == me:
            role = "bidder_alone" if len(last.sides[0]) == 1 else "bidder"
        else:
            role = "partner" if me in last.sides[0] else "defender"
        hands[role] += 1
        made[role] += int(last.made)
        gain[role] += last.deltas[me] - sum(last.deltas) / len(last.deltas)

    arena._book_hand = book_roles
    result = arena.match(args.a, args.b, "schmier5", args.deals, args.seed, "default", 21, 1)
    roles = {
        r: {
            "hands": hands[r],
            "bids_made": made[r],
            "gain_vs_mean": round(gain[r], 1),
            "gain_per_hand": round(gain[r] / hands[r], 3) if hands[r] else 0.0,
        }
        for r in ROLES
    }
    if args.json:
        print(json.dumps({"match": result, "roles": roles}))
        return
    arena.print_match(result)
    for r in ROLES:
        v = roles[r]
        print(
            f"{r:>13}: {v['hands']:4d} hands, {v['bids_made']:4d} made, "
            f"{v['gain_vs_mean']:+7.1f} against the mean ({v['gain_per_hand']:+.3f} a hand)"
        )


if __name__ == "__main__":
    main()
