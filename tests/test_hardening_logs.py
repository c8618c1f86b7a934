"""Logs: no token, no token hash, no card, no server seed in any line the server writes, at DEBUG.

`tests/test_secrecy_server.py` captures the server's own logger in-process. This runs
the real thing instead: `python -m schmier` as a child process on Redis with
`SCHMIER_LOG_JSON=1` and `SCHMIER_LOG_LEVEL=DEBUG`, everything it writes to stderr
(uvicorn's lines and anything a library prints included) captured to a file, through a
whole evening: joins, bots, a game to its end, a player leaving mid-game, wrong tokens,
garbage frames, chat, a rematch. Every card of every hand is in the Redis log of the
room (the deals), so "no card" is checked as "no card-like word at all", which is
stricter.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
import redis

from schmier.rooms.codes import hash_token
from tests.support import loopback
from tests.support.clubs import ClubApi, join_room
from tests.support.servers import REPO, Client, RunningServer, free_port

CARD_WORD = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][SHDC]|X[12])(?![A-Za-z0-9])")


@pytest.fixture
def logged_server(
    redis_url: str, redis_prefix: str, tmp_path: Path
) -> Iterator[tuple[RunningServer, Path]]:
    port = free_port()
    log = tmp_path / "server.log"
    env = {
        **os.environ,
        "SCHMIER_HOST": "127.0.0.1",
        "SCHMIER_PORT": str(port),
        "SCHMIER_REDIS_URL": redis_url,
        "SCHMIER_REDIS_PREFIX": redis_prefix,
        "SCHMIER_LOG_JSON": "1",
        "SCHMIER_LOG_LEVEL": "DEBUG",
        "SCHMIER_BOT_DELAY": "0",
        "SCHMIER_HAND_PAUSE": "0",
        "SCHMIER_TRICK_PAUSE": "0",
        "SCHMIER_AUTOPLAY_AFTER": "0.2",
        "SCHMIER_DATA_DIR": str(tmp_path / "data"),
        "PYTHONUNBUFFERED": "1",
    }
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "schmier"],
            cwd=REPO,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        running = RunningServer(port)
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, log.read_text()[-2000:]
            try:
                if loopback.get(running.base_url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)
        try:
            yield running, log
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def test_a_whole_evening_logs_no_secret(
    logged_server: tuple[RunningServer, Path], redis_url: str, redis_prefix: str
) -> None:
    server, log = logged_server
    code = await server.create_room("wisconsin4", {"target": 5})
    _, ann_token = await server.join(code, "Ann", 0)
    _, bob_token = await server.join(code, "Bob", 1)
    ann = await Client.seated(server, code, ann_token)
    bob = await Client.seated(server, code, bob_token)
    for seat in (2, 3):
        await ann.send({"type": "add_bot", "seat": seat})
    await ann.wait_state(lambda v: {"type": "start"} in v["legal"])
    await ann.send({"type": "start"})
    await ann.wait_state(lambda v: v["phase"] != "lobby")
    hand = ann.state["view"]["hand"]  # type: ignore[index]
    await ann.send({"type": "chat", "text": f"I hold {hand[0]} and {hand[1]}"})
    for garbage in ("not json", '{"type": "play", "card": "AS", "x": 1}', '{"type": "play"}'):
        await bob.send(garbage)
        assert (await bob.next_error())["code"] == "bad_message"
    await bob.send({"type": "leave"})
    await bob.wait_state(lambda v: v["seats"][1]["kind"] == "bot")
    binary = await Client.connect(server.ws_url(code))
    await binary.send(b"\x00binary")
    assert await binary.closed() == 1003
    # A token one character off (never the same one: a token may itself end in "x").
    off_by_one = ann_token[:-1] + ("y" if ann_token.endswith("x") else "x")
    for wrong in (off_by_one, bob_token):
        intruder = await Client.connect(server.ws_url(code))
        await intruder.send({"type": "hello", "token": wrong})
        assert await intruder.closed() == 4401
    await ann.close()  # the autoplay finishes Ann's game for her
    watcher = await Client.seated(server, code, None)
    await watcher.wait_state(lambda v: v["phase"] == "game_over", timeout=120)
    await watcher.close()
    ann = await Client.seated(server, code, ann_token)
    await ann.send({"type": "rematch"})
    await ann.wait_state(lambda v: v["phase"] not in ("game_over", "lobby"))
    await ann.close()
    await bob.close()
    await server.room(code)

    # A club: its admin key and member keys never reach a line either.
    clubs = ClubApi(server)
    club, admin_key = await clubs.create("Log club")
    _member, member_key = await clubs.join(club, "Cleo")
    club_room = await clubs.room(club, member_key, "wisconsin4", {"target": 5})
    assert (await join_room(server, club_room, "x", 0, member_key)).status_code == 200
    assert (await join_room(server, club_room, "x", 1, admin_key + "x")).status_code == 403
    for key in (admin_key, member_key, member_key + "x"):
        await clubs.call("GET", f"/api/clubs/{club}", key)
    keys = (admin_key, member_key)

    store = redis.Redis.from_url(redis_url)
    try:
        entries = store.lrange(f"{redis_prefix}log:{{{code}}}", 0, -1)
    finally:
        store.close()
    dealt = {
        card
        for raw in entries
        if (entry := orjson.loads(raw))["action"]["type"] == "deal"
        for card in entry["action"]["deck"]
    }
    assert len(dealt) == 34  # two deals of the whole wisconsin4 deck were stored
    seeds = [
        entry["deal"]["server_seed"] for raw in entries if "deal" in (entry := orjson.loads(raw))
    ]
    assert seeds  # the deals' seeds (and the next one's, never logged either)
    # The club's game reaches the archive behind the table (the outbox): wait for its
    # line, then let the last lines reach the file (neither is a timing assertion).
    deadline = time.monotonic() + 60
    while '"archive.game"' not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.3)
    lines = log.read_text().splitlines()
    assert len(lines) > 20
    events = set()
    levels = set()
    for line in lines:
        entry = orjson.loads(line)  # JSON lines only: nothing else reached stderr
        events.add(entry.get("event"))
        levels.add((entry["logger"], entry["level"]))
        for token in (ann_token, bob_token, *keys):
            assert token[:10] not in line, line
            assert hash_token(token)[:16] not in line, line
        assert not CARD_WORD.findall(line), line
        # No server seed, nor anything that looks like one (or a commitment).
        assert not re.search(r"[0-9a-f]{64}", line), line
        assert not [seed for seed in seeds if seed[:16] in line], line
        assert "I hold" not in line, line
    assert {"room.created", "room.join", "room.start", "socket.bad_token", "room.leave"} <= events
    assert {"club.created", "club.joined", "archive.game"} <= events
    assert ("uvicorn.error", "debug") in levels  # uvicorn's debug output was on, and clean
