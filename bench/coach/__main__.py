"""The coach measured (see `bench/coach/__init__.py` for the commands).

    python -m bench.coach cost   --variant schmier6 --hands 4 [--effort 100] [--seed 1]
    python -m bench.coach agree  --variant wisconsin4 --hands 3 [--effort 100]
    python -m bench.coach levels --variant wisconsin4 --hands 6 [--levels strong,normal,easy]

Each prints one JSON object per variant (`--variant all`: the three games).
"""

from __future__ import annotations

import argparse
import json

from bench.coach import measure
from schmier import engine


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.coach")
    parser.add_argument("what", choices=("cost", "agree", "levels"))
    parser.add_argument("--variant", default="wisconsin4")
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--effort", type=int, default=100, help="percent of the coach's budget")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", default="strong,normal,easy")
    args = parser.parse_args()
    variants = engine.VARIANTS if args.variant == "all" else (args.variant,)
    for variant in variants:
        if args.what == "cost":
            out = measure.cost(variant, args.hands, args.effort, args.seed)
        elif args.what == "agree":
            out = measure.agree(variant, args.hands, args.effort, args.seed)
        else:
            names = [n for n in args.levels.split(",") if n]
            out = measure.levels(variant, args.hands, args.effort, args.seed, names)
        print(json.dumps(out, sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
