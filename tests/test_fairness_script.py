"""The checking script of docs/fairness.md, run as a player would run it, on the records of
a real game: from saved files, from standard input and straight from the server's
address. It verifies every honest record and refuses every tampered one."""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.records import FairTable
from tests.support.servers import Player, RunningServer

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


def tampered(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Copies of a record with one thing changed each."""
    out = []
    for change in ("seed", "entropy", "deck", "hand", "dealer"):
        copy = json.loads(json.dumps(record))
        deal = copy["deal"]
        if change == "seed":
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


async def test_the_script_checks_real_records(server: RunningServer, tmp_path: Path) -> None:
    check = script(tmp_path)
    table = await FairTable.start(server, "schmier6", [0, 3], {"target": 5})
    rng = random.Random("script")
    await asyncio.gather(
        *(
            Player(c, rng).play_until(lambda v: v["phase"] == "game_over", 120)
            for c in table.clients.values()
        )
    )
    records = await table.records()
    assert records
    for record in records:
        saved = tmp_path / f"hand-{record['n']}.json"
        saved.write_text(json.dumps(record))
        seat = 3
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
        for bad in tampered(record):
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
