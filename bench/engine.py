"""Engine speed: whole hands and games with random players, one core, no I/O.

    python -m bench.engine [--hands 20000] [--variant wisconsin4] [--seed 1] [--json]
                           [--path json|checked|trusted]
    python -m bench.engine --playouts [--hands 20000] [--variant V] [--json]

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

`--playouts` measures what the search bot lives on instead: its own playout simulator
(`schmier/engine/bots/playout.py`, the engine's rules on int cards and bit masks, checked
against the engine by `tests/test_bots_search.py`) plays hands from the deal (six cards
each, a random bidder naming a random suit it holds) to their scoring, every card
uniformly random among the legal ones (`playouts_per_second`), and again with the
search's rollout policy choosing every card (`rollout_playouts_per_second`).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

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


def playouts(variant: str, hands: int, seed: int) -> dict[str, Any]:
    """Hands per CPU second of the search's playouts, random and with its rollout policy."""
    from schmier.engine.bots.playout import Tally, outcome, play_out
    from schmier.engine.bots.tables import card_int, tab
    from schmier.engine.tricks import trick_rules

    book = engine.describe(variant)
    n = int(book["seats"])
    deck = [card_int(c) for c in book["deck"]]
    teams = len(book["teams"])
    suit_masks = [sum(1 << c for c in deck if c < 52 and c // 13 == i) for i in range(4)]
    out: dict[str, Any] = {"variant": variant, "path": "playout", "hands": hands}
    for key, smart, count in (
        ("playouts_per_second", False, hands),
        ("rollout_playouts_per_second", True, max(1, hands // 4)),
    ):
        rng = random.Random(seed)
        start = time.process_time()
        for _ in range(count):
            rng.shuffle(deck)
            hs = [0] * n
            for s in range(n):
                for c in deck[6 * s : 6 * s + 6]:
                    hs[s] |= 1 << c
            bidder = rng.randrange(n)
            trump = rng.choice([i for i in range(4) if hs[bidder] & suit_masks[i]])
            tb = tab(trick_rules(variant, trump, bool(rng.random() < 0.5), "first_high"))
            if book["fixed_teams"]:
                side_of = [(s - bidder) % teams for s in range(n)]
            else:
                side_of = [0 if s == bidder else 1 for s in range(n)]
            tally = Tally(n, len(tb.specials))
            play_out(tb, hs, [], bidder, 0, tally, side_of, rng, smart)
            outcome(tally, side_of, max(side_of) + 1, 3, 0)
        elapsed = time.process_time() - start
        out[key] = round(count / elapsed)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--variant", choices=engine.VARIANTS, action="append")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-hands", type=int, default=100)
    parser.add_argument("--path", choices=PATHS, action="append")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--playouts", action="store_true", help="the search's playouts")
    args = parser.parse_args()
    if args.playouts:
        rows = [playouts(v, args.hands, args.seed) for v in args.variant or engine.VARIANTS]
        if args.json:
            print(json.dumps(rows, indent=2))
            return
        print(f"{'variant':<12}{'random playouts/s':>19}{'rollout playouts/s':>20}")
        for r in rows:
            print(
                f"{r['variant']:<12}{r['playouts_per_second']:>19}"
                f"{r['rollout_playouts_per_second']:>20}"
            )
        return
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
