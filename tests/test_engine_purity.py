"""The engine is pure (architecture.md): no asyncio, no I/O, no clock, randomness only
from outside. Checked in a fresh interpreter, so that what other tests imported
cannot hide what `import schmier.engine` pulls in, and what it does at run time."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Modules whose presence would mean the engine does I/O, networking, concurrency,
#: reads a clock or draws its own randomness, or reaches into the server's layers.
FORBIDDEN = (
    "asyncio",
    "fastapi",
    "starlette",
    "uvicorn",
    "redis",
    "websockets",
    "httpx",
    "anyio",
    "socket",
    "ssl",
    "select",
    "selectors",
    "http",
    "urllib.request",
    "subprocess",
    "multiprocessing",
    "concurrent",
    "threading",
    "secrets",
    "datetime",
    "sqlite3",
    "logging",
    "schmier.api",
    "schmier.rooms",
    "schmier.store",
    "schmier.protocol",
)


def run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_import_pulls_in_nothing_impure() -> None:
    out = run(
        """
        import importlib, importlib.util, json, sys
        before = set(sys.modules)
        import schmier.engine
        if importlib.util.find_spec("schmier.engine.bots") is not None:
            importlib.import_module("schmier.engine.bots")  # the bots are engine code too
        print(json.dumps({"before": sorted(before), "after": sorted(sys.modules)}))
        """
    )
    mods = json.loads(out)
    added = set(mods["after"]) - set(mods["before"])
    assert "schmier.engine" in added
    bad = sorted(m for m in added if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))
    assert not bad, f"import schmier.engine imported {bad}"


def test_a_whole_game_runs_without_clock_io_or_own_randomness() -> None:
    """A random game (randomness passed in) with the clock, the file system, sockets and
    the global random source all made to raise: the engine touches none of them."""
    out = run(
        """
        import builtins, os, random, socket, time
        import schmier.engine as engine

        rng = random.Random(7)

        def refuse(*args, **kwargs):
            raise AssertionError("the engine reached outside itself")

        for name in ("time", "monotonic", "perf_counter", "time_ns", "sleep"):
            setattr(time, name, refuse)
        for name in ("random", "randint", "randrange", "shuffle", "choice", "sample"):
            setattr(random, name, refuse)
        os.urandom = refuse
        builtins.open = refuse
        socket.socket = refuse

        games = 0
        for variant in engine.VARIANTS:
            rules = engine.make_rules(variant, {"target": 5})
            state = engine.new_game(variant, rules, 0)
            steps = 0
            while state.phase != "game_over" and steps < 3000:
                steps += 1
                if engine.needs_deal(state):
                    deck = engine.full_deck(variant)
                    rng.shuffle(deck)
                    state = engine.apply(state, None, {"type": "deal", "deck": deck})
                    continue
                seat = rng.choice(engine.turn(state))
                legal = engine.legal_actions(state, seat)
                passes = [a for a in legal if a["type"] == "pass"]
                action = passes[0] if passes and rng.random() < 0.7 else rng.choice(legal)
                if action["type"] == "discard":
                    cards = rng.sample(action["from"], action["min"])
                    action = {"type": "discard", "cards": cards}
                state = engine.apply(state, seat, action)
                for k in range(engine.seat_count(variant)):
                    engine.view(state, k)
                engine.state_from_json(engine.state_to_json(state))
            games += 1
        print(games)
        """
    )
    assert out.strip() == "3"
