"""The checking script of docs/fairness.md, run as a player would run it, on the records of
whole games of every variant (players who commit and reveal, and one who withholds):
from saved files, from standard input and straight from the server's address. It
verifies every honest record, commits included, and refuses every tampered one."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from schmier.engine import fairness
from schmier.engine.cards import CARD_NAMES
from schmier.rooms.records import dealt_hands
from tests.support.records import whole_game
from tests.support.servers import ServerFactory

DOC = Path(__file__).resolve().parents[1] / "docs" / "fairness.md"


def script(tmp_path: Path) -> Path:
    """The doc's script, saved as a player would save it."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    (code,) = [b for b in blocks if "def deck_of" in b]
    assert "import schmier" not in code and "from schmier" not in code
    path = tmp_path / "check_hand.py"
    path.write_text(code)
    return path


def run(path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # -I: isolated, so nothing of this repository (or its environment) can be imported.
    return subprocess.run(
        [sys.executable, "-I", str(path), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=path.parent,
    )


def tampered(record: dict[str, Any], revealed: int, withheld: int) -> list[dict[str, Any]]:
    """Copies of a record with one thing changed each (`revealed`, `withheld`: a seat that
    revealed its value and one that withheld it)."""
    out = []
    changes = ("seed", "entropy", "deck", "hand", "dealer", "commit", "withheld", "uncommitted")
    for change in changes:
        copy = json.loads(json.dumps(record))
        deal = copy["deal"]
        if change == "commit":  # a value that does not hash to its commit
            deal["commits"][revealed] = "0" * 64
        elif change == "withheld":  # a withheld seat with a value in its commit's place
            deal["entropy"][withheld] = "ab" * 8
        elif change == "uncommitted":  # a bot's seat with a value
            deal["entropy"][deal["commits"].index(None)] = "ab" * 8
        elif change == "seed":
            deal["server_seed"] = ("0" if deal["server_seed"][0] != "0" else "1") + deal[
                "server_seed"
            ][1:]
        elif change == "entropy":
            deal["entropy"][0] = "ab" * 8 if deal["entropy"][0] != "ab" * 8 else "cd" * 8
        elif change == "deck":
            deal["deck"][0], deal["deck"][1] = deal["deck"][1], deal["deck"][0]
        elif change == "hand":
            hand = copy["hands"][0]
            hand[0], copy["stock"][0] = copy["stock"][0], hand[0]
        else:
            copy["dealer"] = (copy["dealer"] + 1) % len(copy["hands"])
        out.append(copy)
    return out


VARIANTS = [
    ("schmier6", [0, 3], frozenset({0})),
    ("schmier5", [1, 2], frozenset({2})),
    ("wisconsin4", [0, 1], frozenset({1})),
]


@pytest.mark.parametrize(("variant", "humans", "silent"), VARIANTS)
async def test_the_script_checks_real_records(
    server_factory: ServerFactory,
    tmp_path: Path,
    variant: str,
    humans: list[int],
    silent: frozenset[int],
) -> None:
    """Every record of a whole game, with a player who reveals and one who withholds,
    verifies (naming the withheld seat); the revealing player's own value checks out;
    each lie, about the seed, a value, a commit, the deck or the deal, is caught."""
    server = server_factory(reveal_ms=1000)
    check = script(tmp_path)
    table, records = await whole_game(server, variant, humans, {"target": 5}, silent)
    assert records
    seat = next(s for s in humans if s not in silent)
    (quiet,) = silent
    for record in records:
        saved = tmp_path / f"hand-{record['n']}.json"
        saved.write_text(json.dumps(record))
        sent = table.entropy[seat].sent[record["deal"]["commitment"]]
        result = run(
            check,
            str(saved),
            "--commitment",
            record["deal"]["commitment"],
            "--entropy",
            f"{seat}:{sent}",
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.startswith(f"deal verified: hand {record['n']}")
        assert "1 revealed value(s) match their commits" in result.stdout
        assert f"seat {quiet} withheld its value" in result.stdout
    first = records[0]
    saved = tmp_path / f"hand-{first['n']}.json"
    for bad in tampered(first, seat, quiet):
        result = run(check, "-", stdin=json.dumps(bad))
        assert result.returncode == 1, (bad, result.stdout)
        assert "FAILED" in result.stdout
    wrong = run(check, str(saved), "--entropy", f"{seat}:{'ab' * 8}")
    assert wrong.returncode == 1 and "your entropy" in wrong.stdout
    # Straight from the server, as the doc shows.
    url = f"{server.base_url}/api/rooms/{table.code}/hands/{records[-1]['n']}"
    result = await asyncio.to_thread(run, check, url)
    assert result.returncode == 0, result.stdout + result.stderr
    await table.close()


def test_the_script_reads_records_from_before_commit_reveal(tmp_path: Path) -> None:
    """A record whose values were sent openly (no `commits`) is checked as before."""
    seed, entropy = "ab" * 32, ["0123456789abcdef", None, None, None]
    deck = [CARD_NAMES[c] for c in fairness.fair_deck("wisconsin4", seed, entropy)]
    hands, stock = dealt_hands(deck, 0, 4)
    record = {
        "n": 1,
        "variant": "wisconsin4",
        "dealer": 0,
        "deal": {
            "commitment": fairness.commitment(seed),
            "server_seed": seed,
            "entropy": entropy,
            "deck": deck,
        },
        "hands": hands,
        "stock": stock,
    }
    result = run(script(tmp_path), "-", stdin=json.dumps(record))
    assert result.returncode == 0 and "revealed" not in result.stdout, result.stdout
