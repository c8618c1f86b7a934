"""The reconnect storm after the window (`--storm`): every socket dropped at once, every
one back at once; the time until each has its state again."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

from bench.load import probes
from bench.load.players import Crowd, Player


async def storm(crowd: Crowd, players: list[Player]) -> dict[str, Any]:
    """Drop every socket at once, reconnect every one at once; time until all have
    their state again."""
    crowd.stopping = True  # the drops are ours, not the server's
    for p in players:
        p.drop()
    await asyncio.gather(
        *(p.reader for p in players if p.reader is not None), return_exceptions=True
    )
    crowd.stopping = False
    done: list[float] = []
    failed: Counter[str] = Counter()
    started = time.perf_counter()

    async def again(player: Player) -> None:
        try:
            await player.connect()
        except Exception as exc:
            failed[type(exc).__name__] += 1
            return
        if player.view is None or not player.has_state.is_set():
            failed["no_state"] += 1
            return
        done.append(time.perf_counter() - started)

    await asyncio.gather(*(again(p) for p in players))
    total = time.perf_counter() - started
    done.sort()
    return {
        "sockets": len(players),
        "reconnected": len(done),
        "failed": dict(failed),
        "all_seconds": round(total, 3),
        "p50_ms": probes.pct(done, 50),
        "p99_ms": probes.pct(done, 99),
    }
