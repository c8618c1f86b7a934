"""The archive behind the games, when its database goes away and when the server dies.

Each test runs a PostgreSQL of its own (initdb into a temporary directory, on a free
port, stopped and started by its PID) so that it can take the database away:

- two instances on one Redis and that one PostgreSQL, the database stopped for 30 s
  while games are played on both: no table waits for it (games end during the outage),
  `/readyz` stays ready, the outbox's metrics show the waiting games, and once the
  database is back every game of that time is archived, exactly once;
- the server killed with SIGKILL after a game ended but before it could be archived
  (its database was down): the restarted server archives it, exactly once.
"""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from schmier.ledger.urls import database_url
from tests.support import loopback
from tests.support.clubs import ClubApi, club_table, join_room, play_to_end
from tests.support.postgres import PostgresServer
from tests.support.servers import Client, RunningServer, ServerFactory, start_subprocess_server

OUTAGE_SECONDS = 30


async def archived_ids(url: str) -> list[str]:
    """Every game id in the archive, as often as it is there (straight from SQL)."""
    engine = create_async_engine(database_url(url, "."))
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(sa.text("SELECT id FROM games ORDER BY id"))
            return [row[0] for row in rows]
    finally:
        await engine.dispose()


async def metric(server: RunningServer, name: str) -> float:
    async with loopback.async_client(base_url=server.base_url) as http:
        text = (await http.get("/metrics")).text
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name}")


async def gauge_reaches(
    server: RunningServer, name: str, value: float, timeout: float = 15
) -> None:
    """Wait until a metric shows `value` (gauges follow each round of the archiver)."""
    deadline = time.monotonic() + timeout
    while (seen := await metric(server, name)) != value:
        assert time.monotonic() < deadline, f"{name} stayed {seen}, not {value}"
        await asyncio.sleep(0.1)


async def status(server: RunningServer, path: str) -> int:
    async with loopback.async_client(base_url=server.base_url) as http:
        return (await http.get(path)).status_code


async def rematch_and_play(clients: dict[int, Client], seed: str) -> dict[str, Any]:
    for client in clients.values():  # every seated person confirms the rematch
        await client.send({"type": "rematch"})
    for client in clients.values():
        await client.wait_state(lambda v: v["phase"] not in ("game_over", "lobby"))
    return await play_to_end(clients, seed)


async def test_database_away_for_30_s_two_instances(
    own_postgres: PostgresServer, server_factory: ServerFactory, redis_url: str, redis_prefix: str
) -> None:
    pg = own_postgres.database_url("schmier")
    common = {"database_url": pg, "redis_url": redis_url, "redis_prefix": redis_prefix}
    a, b = server_factory(**common), server_factory(**common)
    api_a, api_b = ClubApi(a), ClubApi(b)
    club, admin = await api_a.create("Outage club")
    ann = await api_b.join(club, "Ann")
    bo = await api_a.join(club, "Bo")
    room_a = await api_a.room(club, ann[1], "wisconsin4", {"target": 5})
    room_b = await api_b.room(club, bo[1], "schmier5", {"target": 5})
    # A guest's join through A makes A the owner of room_a; Ann's, with her member key,
    # then goes through B, which forwards it (and the member) to A over the bus.
    guest = await join_room(a, room_a, "Guest", 2, None)
    assert guest.status_code == 200, guest.text
    guest_socket = await Client.seated(a, room_a, guest.json()["token"])
    table_a = await club_table(b, room_a, {0: ann[1]}, "wisconsin4", taken=frozenset({2}))
    table_a[2] = guest_socket
    table_b = await club_table(b, room_b, {1: bo[1]}, "schmier5")

    own_postgres.stop()
    stopped = time.monotonic()
    # The tables go on without their archive: two games each, to the end.
    finals = await asyncio.gather(play_to_end(table_a, "out-a"), play_to_end(table_b, "out-b"))
    finals += await asyncio.gather(
        rematch_and_play(table_a, "out-a2"), rematch_and_play(table_b, "out-b2")
    )
    assert all(f["winners"] for f in finals)
    assert time.monotonic() - stopped < OUTAGE_SECONDS, "the games ended while it was away"
    for server in (a, b):
        assert await status(server, "/readyz") == 200, "a database outage is no reason"
        assert await status(server, "/healthz") == 200
    answer = await api_b.call("GET", f"/api/clubs/{club}", admin)
    assert answer.status_code == 503
    await gauge_reaches(a, "schmier_archive_outbox_pending", 4)
    assert await metric(a, "schmier_archive_outbox_oldest_seconds") > 0
    failures = await metric(a, "schmier_archive_failures_total")
    failures += await metric(b, "schmier_archive_failures_total")
    assert failures > 0
    await asyncio.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped)))

    own_postgres.start()
    listed = await api_a.archived(club, admin, 4, timeout=60)
    ids = [g["id"] for g in listed]
    assert len(ids) == len(set(ids)) == 4
    assert {g["room"] for g in listed} == {room_a, room_b}
    assert sorted({g["game"] for g in listed}) == [1, 2]
    for game in listed:
        if game["room"] == room_a:
            seats = {p["seat"]: p for p in game["players"]}
            assert seats[0]["member"] == ann[0] and seats[0]["name"] == "Ann"
            assert seats[2]["member"] is None and seats[2]["name"] == "Guest"
    assert await archived_ids(pg) == sorted(ids), "each game once, nothing else"
    for server in (a, b):
        await gauge_reaches(server, "schmier_archive_outbox_pending", 0)
    written = await metric(a, "schmier_archive_games_total")
    written += await metric(b, "schmier_archive_games_total")
    assert written == 4, "no game was written twice"
    for client in [*table_a.values(), *table_b.values()]:
        await client.close()


def subprocess_env(redis_url: str, prefix: str, pg: str) -> dict[str, str]:
    return {
        "SCHMIER_REDIS_URL": redis_url,
        "SCHMIER_REDIS_PREFIX": prefix,
        "SCHMIER_DATABASE_URL": pg,
        "SCHMIER_BOT_DELAY": "0",
        "SCHMIER_HAND_PAUSE": "0",
        "SCHMIER_TRICK_PAUSE": "0",
        "SCHMIER_BOT_WORKERS": "0",
        "SCHMIER_DEFAULT_BOT": "normal",
        "SCHMIER_LEASE_MS": "1500",
        "SCHMIER_FRAME_RATE": "1000",
        "SCHMIER_FRAME_BURST": "1000",
        "SCHMIER_LOG_LEVEL": "WARNING",
    }


async def test_sigkill_between_a_games_end_and_its_archiving(
    own_postgres: PostgresServer, redis_url: str, redis_prefix: str
) -> None:
    pg = own_postgres.database_url("schmier")
    env = subprocess_env(redis_url, redis_prefix, pg)
    server, process = start_subprocess_server(env)
    try:
        api = ClubApi(server)
        club, admin = await api.create("Kill club")
        _ann, key = await api.join(club, "Ann")
        room = await api.room(club, key, "wisconsin4", {"target": 5})
        table = await club_table(server, room, {0: key}, "wisconsin4")
        # The database goes: the game's end reaches the outbox but not the archive.
        own_postgres.stop()
        final = await play_to_end(table, "killed")
        assert final["winners"]
        await gauge_reaches(server, "schmier_archive_outbox_pending", 1)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        server.stop()
    for client in table.values():
        await client.close()

    own_postgres.start()
    assert await archived_ids(pg) == [], "nothing was archived before the kill"
    again, _process = start_subprocess_server(env)
    try:
        listed = await ClubApi(again).archived(club, admin, 1, timeout=60)
        assert [g["room"] for g in listed] == [room]
        assert listed[0]["winners"] == final["winners"]
        assert listed[0]["scores"] == final["scores"]
        await asyncio.sleep(1.5)  # a second attempt, if any, would land by now
        assert await archived_ids(pg) == [listed[0]["id"]], "archived exactly once"
        await gauge_reaches(again, "schmier_archive_outbox_pending", 0)
    finally:
        again.stop()
