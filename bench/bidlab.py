"""What each bid of a `schmier5` seat would really have been worth: every option tried.

    python -m bench.bidlab --a strong --b normal --deals 8 --seed 1 --out bids.jsonl

Plays the arena's `schmier5` games (one `a` seat among four `b` seats, the same deals
and seeds as `bench/arena.py`). At every bidding turn of the `a` seat with a choice,
the hand is played out once per legal option (pass, each amount) from that moment to
its scoring by the very bots of the game, and each option's score changes are written
as one JSON line with what the seat's search saw (its simulated distribution of the
points its side takes). Then the game goes on with the seat's own choice.

Why: the search bids by how often its simulated hands make a bid. Whether a pass or a
bid would have paid more against these opponents is a question the arena's win rate
answers only over hundreds of games; the forks answer it per decision.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
from typing import Any

from bench import arena
from schmier import engine
from schmier.engine.bots import handsim
from schmier.engine.bots.worlds import Know, sample

VARIANT = "schmier5"


def seen(view: dict[str, Any], worlds: int, rng: random.Random) -> dict[str, Any]:
    """The search's picture of the bid, as `handsim.bid` makes it: the trump it would
    name, the points its side takes in each world with it, and whether the hand holds
    a card that commands it."""
    know = Know(view)
    per_suit: list[list[handsim.Result | None]] = [[] for _ in range(4)]
    for _ in range(worlds):
        world = sample(know, rng)
        for suit in range(4):
            per_suit[suit].append(
                handsim.simulate(
                    know, world, suit, know.me, 0, rng, kitty_taken=False, discards_done=False
                )
            )
    best = handsim._best_suit(per_suit)
    dist = [0 if r is None else r[0][0] for r in per_suit[best]]
    return {"suit": best, "dist": dist, "power": handsim._power(know, best)}


def finish_hand(
    state: engine.State, names: list[str], seed: str
) -> tuple[list[int], int | None, bool]:
    """Play on to the hand's scoring: (score change per seat, bidder, made)."""
    step = 0
    n = engine.seat_count(VARIANT)
    while state.phase not in ("hand_over", "game_over", "deal"):
        for seat in engine.turn(state):
            view = engine.view(state, seat)
            action = arena.decide(names[seat], view, random.Random(f"{seed}/{step}"), state)
            state = engine.apply(state, seat, action)
            step += 1
    if state.phase == "deal":
        return [0] * n, None, False
    lh = state.last_hand
    assert lh is not None
    return list(lh.deltas), lh.bidder, lh.made


def play_game(job: tuple[str, str, int, int, str, int]) -> list[dict[str, Any]]:
    a, b, deal_seed, a_seat, game_seed, worlds = job
    n = engine.seat_count(VARIANT)
    names = [a if s == a_seat else b for s in range(n)]
    deck_rng = random.Random(deal_seed)
    decks: list[list[str]] = []
    state = engine.new_game(
        VARIANT, engine.make_rules(VARIANT, {"target": 21}), deck_rng.randrange(n)
    )
    records: list[dict[str, Any]] = []
    decision = 0
    dealt = 0
    while state.phase != "game_over" and dealt < arena.MAX_HANDS:
        if engine.needs_deal(state):
            state = arena.deal_from(state, decks, dealt, deck_rng)
            dealt += 1
            continue
        for seat in engine.turn(state):
            view = engine.view(state, seat)
            rng = random.Random(f"{game_seed}/{decision}")
            action = arena.decide(names[seat], view, rng, state)
            if seat == a_seat and state.phase == "bidding" and len(view["legal"]) > 1:
                record: dict[str, Any] = {
                    "game": game_seed,
                    "hand": dealt,
                    "seat": seat,
                    "dealer": state.dealer,
                    "order": (seat - state.dealer - 1) % n,
                    "scores": list(state.scores),
                    "bids": view["bids"],
                    "choice": action,
                    **seen(view, worlds, random.Random(f"seen/{game_seed}/{decision}")),
                    "options": [],
                }
                for option in view["legal"]:
                    after = engine.apply(state, seat, option)
                    deltas, bidder, made = finish_hand(after, names, f"{game_seed}/fork/{decision}")
                    record["options"].append(
                        {"action": option, "deltas": deltas, "bidder": bidder, "made": made}
                    )
                records.append(record)
            state = engine.apply(state, seat, action)
            decision += 1
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="strong")
    parser.add_argument("--b", default="normal")
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=80)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    jobs = []
    for d in range(args.deals):
        deal_seed = random.Random(f"deal/{args.seed}/{VARIANT}/{d}").randrange(2**32)
        for a_seat in range(engine.seat_count(VARIANT)):
            game_seed = f"{args.seed}/{VARIANT}/{d}/{a_seat}/{args.a}/{args.b}"
            jobs.append((args.a, args.b, deal_seed, a_seat, game_seed, args.worlds))
    with open(args.out, "w") as out, multiprocessing.Pool(args.workers) as pool:
        for records in pool.imap_unordered(play_game, jobs):
            for r in records:
                out.write(json.dumps(r) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
