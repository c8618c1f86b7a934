"""A long random schedule of network faults, every game's history checked.

    python -m bench.netfaults [--minutes 10] [--seed netfaults]
    python -m bench.netfaults --long     # the owner cut off from Redis for 60 s
    python -m bench.netfaults --split    # the primary cut off, with and without strict WAIT
    python -m bench.netfaults --split-schedule [--minutes 10]   # primary cuts among the rest

Runs the random-schedule scenario of `tests/test_netfaults.py` for `--minutes` instead
of the suite's 30 seconds: Redis and two instances each in a network namespace of its
own, games of every variant one after another (one person on each instance, bots
elsewhere), and one fault after another, each 1-8 s long (an instance cut off from
Redis, the instances cut off from each other, the players' links to an instance cut,
5% loss on them, 200 ms ± 50 ms on every player's link: the players go through the
delaying relay all along, its delay switched on for that fault only). Then every
game's history is checked (`tests/support/history.py`). The harness and the checker
live in the test suite, so this runs the suite's own test with
`SCHMIER_NETFAULTS_SECONDS` and `SCHMIER_NETFAULTS_SEED` set, printing its `netfaults`
lines (the games, the faults, the frames and commits checked), with the suite's
per-test timeout raised to fit. Needs root (namespaces, iptables); exits with pytest's
status.

`--long` runs the longest of the suite's scenarios alone instead: an owner cut off from
Redis for 60 s. `--split` runs the Redis primary cut off from its
sentinels and its replica (`tests/test_netsplit.py`) with `SCHMIER_REDIS_WAIT_STRICT`
and without it (`SCHMIER_NETFAULTS_LAX`), printing its `netsplit` lines: how soon the
replica was promoted, and without strict waiting how many accepted states the players
saw taken back. `--split-schedule` runs a random schedule for `--minutes` on that
set-up (primary, replica, three sentinels, one instance; strict waiting) alternating
the current primary cut off from its sentinels and replica (each one failing over, the
old primary rejoining as a replica before the next fault) with the instance cut off
from the primary and the players' links cut or lossy (`SCHMIER_NETFAULTS_SPLIT_SCHEDULE`),
printing its `netsplit schedule` lines.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from bench.kit.servers import REPO


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", default="netfaults")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--long", action="store_true", help="the owner cut off for 60 s")
    which.add_argument("--split", action="store_true", help="the primary cut off")
    which.add_argument(
        "--split-schedule", action="store_true", help="primary cuts among the other faults"
    )
    args = parser.parse_args(argv)
    env = {
        **os.environ,
        "SCHMIER_NETFAULTS_SECONDS": str(args.minutes * 60),
        "SCHMIER_NETFAULTS_SEED": args.seed,
        "SCHMIER_TEST_REQUIRE": "netns,redis",
        "SCHMIER_NETFAULTS_LAX": "1",
        "SCHMIER_NETFAULTS_SPLIT_SCHEDULE": "1",
    }
    chosen = ["tests/test_netfaults.py", "-k", "random_schedule"]
    if args.long:
        chosen = ["tests/test_netfaults.py", "-k", "owner_cut_off_from_redis and 60"]
    elif args.split:
        chosen = ["tests/test_netsplit.py", "-k", "not split_schedule"]
    elif args.split_schedule:
        chosen = ["tests/test_netsplit.py", "-k", "split_schedule"]
    command = [
        sys.executable, "-m", "pytest", *chosen, "-n", "0", "-s", "-q", "-p", "no:cacheprovider",
        "--timeout", str(int(args.minutes * 60 + 600)),
    ]  # fmt: skip
    return subprocess.run(command, cwd=REPO, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
