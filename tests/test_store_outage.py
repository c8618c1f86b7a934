"""A server whose Redis is away says so once, not with a traceback twice a second.

Under a compose stack whose Redis comes up after the app (podman-compose ignores
`depends_on: condition: service_healthy`), the server starts without its store: it answers
503 on `/healthz` and recovers by itself. Its cluster listener retries the subscription
every half second, and used to log every failed attempt with a full traceback. Here the
real thing: `python -m schmier` on a port where no Redis listens yet, then a real
`redis-server` started on that port, then stopped again. The lease renewals of the rooms
an instance owns fail the same way for as long as Redis is away (every third of the
lease time). However many parts of the server find Redis gone, the store's health says
it once (`store.unavailable`) and once when it is back (`store.available`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import loopback
from tests.support.requirements import missing
from tests.support.servers import REPO, Client, RunningServer, free_port

pytestmark = pytest.mark.redis


def lines(log: Path) -> list[dict[str, object]]:
    """The server's JSON log lines (uvicorn's own plain lines are skipped)."""
    found = []
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            found.append(json.loads(line))
    return found


def named(log: Path, event: str) -> list[dict[str, object]]:
    return [line for line in lines(log) if line["event"] == event]


def wait_for(check: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def health(port: int) -> int | None:
    try:
        return loopback.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code
    except httpx.HTTPError:
        return None


@pytest.fixture
def redis_binary() -> str:
    found = shutil.which("redis-server")
    if found is None:
        missing("redis", "no redis-server binary to start a Redis of this test's own")
    return str(found)


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in reversed(started):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def start_redis(binary: str, port: int) -> subprocess.Popen[bytes]:
    own = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    return subprocess.Popen([binary, *own], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_server(log: Path, port: int, redis_port: int, **settings: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "SCHMIER_HOST": "127.0.0.1",
        "SCHMIER_PORT": str(port),
        "SCHMIER_REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "SCHMIER_LOG_JSON": "1",
        "PYTHONUNBUFFERED": "1",
        **settings,
    }
    with log.open("wb") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "schmier"], cwd=REPO, env=env, stdout=sink, stderr=sink
        )


def test_redis_away_at_start_then_back_then_away(
    tmp_path: Path, redis_binary: str, processes: list[subprocess.Popen[bytes]]
) -> None:
    redis_port, port = free_port(), free_port()
    log = tmp_path / "server.log"
    processes.append(start_server(log, port, redis_port))
    wait_for(lambda: health(port) == 503, "the server to answer 503 without its Redis")
    wait_for(lambda: bool(named(log, "store.unavailable")), "the warning")
    # The listener retries every 0.5 s: give it a handful of attempts to log again.
    time.sleep(3)
    away = named(log, "store.unavailable")
    assert len(away) == 1, away
    assert away[0]["level"] == "warning"
    assert "onnect" in str(away[0]["error"]), away[0]
    assert "exc" not in away[0]
    assert not [line for line in lines(log) if line["level"] == "error"], log.read_text()
    assert "Traceback" not in log.read_text()

    redis = start_redis(redis_binary, redis_port)
    processes.append(redis)
    wait_for(lambda: health(port) == 200, "the server to answer 200 once Redis is up")
    wait_for(lambda: bool(named(log, "store.available")), "the all-clear")
    back = named(log, "store.available")
    assert len(back) == 1 and back[0]["level"] == "warning", back
    room = loopback.post(f"http://127.0.0.1:{port}/api/rooms", json={"variant": "schmier6"})
    assert room.status_code == 201, room.text

    redis.terminate()
    redis.wait(timeout=15)
    wait_for(lambda: len(named(log, "store.unavailable")) == 2, "the second warning")
    time.sleep(2)
    assert len(named(log, "store.unavailable")) == 2
    assert len(named(log, "store.available")) == 1
    assert "Traceback" not in log.read_text()


async def test_renewals_of_an_owned_room_while_redis_is_away(
    tmp_path: Path, redis_binary: str, processes: list[subprocess.Popen[bytes]]
) -> None:
    redis_port, port = free_port(), free_port()
    log = tmp_path / "server.log"
    redis = start_redis(redis_binary, redis_port)
    processes.append(redis)
    # A short lease: renewals every half second.
    processes.append(start_server(log, port, redis_port, SCHMIER_LEASE_MS="1500"))
    wait_for(lambda: health(port) == 200, "the server to answer 200")
    server = RunningServer(port)
    code = await server.create_room("wisconsin4")
    _, token = await server.join(code, "P0", 0)
    client = await Client.seated(server, code, token)  # its actor now holds the lease
    try:
        redis.terminate()
        redis.wait(timeout=15)
        wait_for(lambda: bool(named(log, "store.unavailable")), "the warning")
        time.sleep(3)  # half a dozen renewals
        failing = named(log, "store.unavailable")
        assert len(failing) == 1 and failing[0]["level"] == "warning", failing
        assert not [line for line in lines(log) if line["level"] == "error"], log.read_text()
        assert "Traceback" not in log.read_text()

        # Redis back, empty: the renewals answer again, and that is said once too.
        processes.append(start_redis(redis_binary, redis_port))
        wait_for(lambda: bool(named(log, "store.available")), "the all-clear")
        time.sleep(2)
        assert len(named(log, "store.available")) == 1
        assert len(named(log, "store.unavailable")) == 1
        assert "Traceback" not in log.read_text()
    finally:
        await client.close()
