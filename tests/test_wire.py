"""The pipelined commit connection (schmier/store/wire.py) against a real Redis: replies
reach the command that asked, errors stay with their command, scripts survive a Redis
that forgot them, and a killed, hung or missing Redis turns into `StoreError`s followed
by a working connection again."""

from __future__ import annotations

import asyncio
import gc
import socket
import ssl
import time
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis
from redis.asyncio.connection import parse_url

from schmier.store import StoreError
from schmier.store.wire import RedisWire, ReplyError, _tls_context
from tests.support import abandoned


@pytest.fixture
async def wire(redis_url: str) -> AsyncIterator[RedisWire]:
    connection = RedisWire(redis_url, timeout=2)
    yield connection
    await connection.aclose()


async def test_concurrent_commands_each_get_their_own_reply(
    wire: RedisWire, raw_redis: aioredis.Redis, redis_prefix: str
) -> None:
    """500 commands in flight at once on one socket: every caller gets its answer."""
    keys = [f"{redis_prefix}k{i}" for i in range(500)]
    sets = await asyncio.gather(
        *(wire.call("SET", k, f"v{i}" * (i % 7 + 1)) for i, k in enumerate(keys))
    )
    assert sets == [b"OK"] * 500
    values = await asyncio.gather(*(wire.call("GET", k) for k in keys))
    assert values == [f"v{i}".encode() * (i % 7 + 1) for i in range(500)]
    assert await raw_redis.get(keys[123]) == b"v123" * (123 % 7 + 1)
    # Arguments of every kind are sent as bulk strings, binary-safe.
    blob = bytes(range(256)) * 40
    assert await wire.call("SET", keys[0], blob) == b"OK"
    assert await wire.call("GET", keys[0]) == blob
    assert await wire.call("INCRBY", keys[1] + "n", 41) == 41


async def test_an_error_reply_fails_only_its_command(wire: RedisWire, redis_prefix: str) -> None:
    key = f"{redis_prefix}list"
    await wire.call("RPUSH", key, "x")
    wrong, right = await asyncio.gather(
        wire.call("INCR", key), wire.call("LRANGE", key, 0, -1), return_exceptions=True
    )
    assert isinstance(wrong, ReplyError) and isinstance(wrong, StoreError)
    assert "WRONGTYPE" in str(wrong)
    assert right == [b"x"]


async def test_scripts_load_themselves_when_redis_forgot_them(
    wire: RedisWire, raw_redis: aioredis.Redis, redis_prefix: str
) -> None:
    script = "return redis.call('INCRBY', KEYS[1], ARGV[1])"
    key = f"{redis_prefix}n"
    assert await wire.eval(script, [key], [2]) == 2
    await raw_redis.script_flush()  # what a restarted Redis looks like to a script
    assert await wire.eval(script, [key], [3]) == 5
    assert await wire.eval(script, [key], [4]) == 9
    with pytest.raises(ReplyError):
        await wire.eval("return redis.call('NOSUCHCOMMAND')", [], [])


async def test_one_script_for_many_keys_answers_each_call_in_order(
    wire: RedisWire, raw_redis: aioredis.Redis, redis_prefix: str
) -> None:
    """`eval_many` (the lease renewals): one reply per call, in the calls' order, also
    from a Redis that forgot the script; a refusal is raised once all replies are in."""
    script = "if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 end return 0"
    keys = [f"{redis_prefix}lease{i}" for i in range(40)]
    for i, key in enumerate(keys):
        await raw_redis.set(key, "mine" if i % 3 else "theirs")
    calls = [([key], ["mine"]) for key in keys]
    expected = [1 if i % 3 else 0 for i in range(40)]
    assert await wire.eval_many(script, calls) == expected
    await raw_redis.script_flush()
    assert await wire.eval_many(script, calls) == expected
    assert await wire.eval_many(script, []) == []
    await raw_redis.rpush(f"{redis_prefix}list", "x")
    broken = "return redis.call('INCR', KEYS[1])"
    with pytest.raises(ReplyError):
        await wire.eval_many(broken, [([keys[0]], []), ([f"{redis_prefix}list"], [])])
    assert await raw_redis.get(keys[0]) == b"theirs"  # INCR of a non-integer was refused too


async def test_a_script_still_unknown_after_its_load_is_refused_plainly(
    wire: RedisWire, raw_redis: aioredis.Redis, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If Redis forgets the script again between the load and the retry, `eval_many`
    raises Redis's NOSCRIPT refusal (a `StoreError` the store handles), not a
    `RuntimeError` out of an empty search."""
    script = "return 7 -- forgotten twice"
    await raw_redis.script_flush()

    async def forgetful_load(*args: bytes | str | int) -> None:
        await raw_redis.script_flush()

    monkeypatch.setattr(wire, "call", forgetful_load)
    with pytest.raises(ReplyError, match="NOSCRIPT"):
        await wire.eval_many(script, [([f"{redis_prefix}k"], [])])


async def test_a_killed_connection_fails_its_commands_then_reconnects(
    wire: RedisWire, raw_redis: aioredis.Redis, redis_prefix: str
) -> None:
    key = f"{redis_prefix}blocked"
    my_id = await wire.call("CLIENT", "ID")
    # A command that is still waiting when the connection dies (BLPOP blocks).
    pending = asyncio.ensure_future(wire.call("BLPOP", key, 5))
    await asyncio.sleep(0.1)
    assert await raw_redis.client_kill_filter(_id=my_id) == 1
    with pytest.raises(StoreError):
        await pending
    # The next command opens a new connection.
    assert await wire.call("PING") == b"PONG"
    assert await wire.call("CLIENT", "ID") != my_id


async def test_an_unanswered_command_drops_the_connection_after_the_timeout(
    wire: RedisWire,
    redis_prefix: str,
) -> None:
    started = time.monotonic()
    with pytest.raises(StoreError, match="did not answer"):
        await wire.call("BLPOP", f"{redis_prefix}never", 30)  # timeout=2 in the fixture
    waited = time.monotonic() - started
    assert 2 <= waited < 10
    assert await wire.call("PING") == b"PONG"


@pytest.fixture
def refused_url() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"redis://127.0.0.1:{sock.getsockname()[1]}/0"


async def test_no_redis_is_a_store_error(refused_url: str) -> None:
    connection = RedisWire(refused_url)
    try:
        with pytest.raises(StoreError, match="connect"):
            await connection.call("PING")
        with pytest.raises(StoreError):
            await connection.eval("return 1", [], [])
    finally:
        await connection.aclose()


async def test_a_connect_failing_after_its_caller_left_is_not_logged(refused_url: str) -> None:
    """A caller cancelled while the connection is being opened (a room pausing) leaves
    the connect's failure to nobody: it must not reach asyncio's handler as a "Task
    exception was never retrieved" traceback in the server's log."""
    connection = RedisWire(refused_url)
    try:
        with abandoned.reports() as reported:
            await abandoned.abandon(connection.call("PING"))
            # The connect fails with nobody waiting; the next caller replaces the failed
            # task, which is collected.
            await abandoned.ended_unseen(connection._connecting)
            with pytest.raises(StoreError, match="connect"):
                await connection.call("PING")
            gc.collect()
            assert reported == []
    finally:
        await connection.aclose()


async def test_a_connect_failing_by_a_fault_is_logged_even_with_nobody_waiting(
    refused_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Only a refused or timed-out connect is left to its callers: a fault in it is
    logged with its traceback, also when no caller is left to see it."""
    connection = RedisWire(refused_url)
    go_on, broken = abandoned.held_fault("a fault in the connect")
    monkeypatch.setattr(connection, "_open", broken)
    try:
        with abandoned.reports() as reported:
            await abandoned.abandon(connection.call("PING"))
            await abandoned.ended_unseen(connection._connecting, go_on)
            connection._connecting = None
            gc.collect()
            assert reported == []
        assert [r.getMessage() for r in caplog.records].count("store.connect_failed") == 1
        assert "ValueError: a fault in the connect" in caplog.text
    finally:
        await connection.aclose()


async def test_the_database_of_the_url_is_selected(redis_url: str, redis_prefix: str) -> None:
    base = redis_url.rsplit("/", 1)[0]
    connection = RedisWire(f"{base}/3")
    other = aioredis.Redis.from_url(f"{base}/3")
    key = f"{redis_prefix}db3"
    try:
        assert await connection.call("SET", key, "here") == b"OK"
        assert await other.get(key) == b"here"
    finally:
        await other.delete(key)
        await other.aclose()
        await connection.aclose()


async def test_a_password_in_the_url_is_sent(redis_url: str) -> None:
    """The test Redis has no password, so AUTH with one must be refused by Redis: that
    refusal proves the URL's password went out before any command."""
    host = redis_url.split("//", 1)[1].rsplit("/", 1)[0]
    connection = RedisWire(f"redis://:not-the-password@{host}/0")
    try:
        with pytest.raises(StoreError):
            await connection.call("PING")
    finally:
        await connection.aclose()


async def test_commands_of_one_loop_turn_go_out_in_one_write(
    wire: RedisWire, raw_redis: aioredis.Redis, redis_prefix: str
) -> None:
    """200 rooms committing in the same turn cost Redis a handful of reads, not 200.

    Redis counts the read events it handles (`total_reads_processed`); the plain
    client's own INFO calls add one each.
    """
    await wire.call("PING")  # connected before counting
    before = int((await raw_redis.info("stats"))["total_reads_processed"])
    replies = await asyncio.gather(
        *(wire.call("SET", f"{redis_prefix}c{i}", i) for i in range(200))
    )
    after = int((await raw_redis.info("stats"))["total_reads_processed"])
    assert replies == [b"OK"] * 200
    assert after - before < 20


async def test_a_command_on_a_connection_that_just_died_fails_at_once(wire: RedisWire) -> None:
    """The connection may die between `call`'s check and the write (a Redis restart
    in between): the command must fail, not wait for a reply that cannot come."""
    await wire.call("PING")
    protocol = wire._protocol
    assert protocol is not None and protocol.transport is not None
    protocol.transport.abort()  # connection_lost only runs on a later turn
    with pytest.raises(StoreError):
        await asyncio.wait_for(protocol.send(b"*1\r\n$4\r\nPING\r\n"), 1)
    assert await wire.call("PING") == b"PONG"  # and the next call reconnects


def test_tls_settings_of_the_url_are_honoured() -> None:
    strict = _tls_context(dict(parse_url("rediss://redis.example:6380/0")))
    assert strict.verify_mode == ssl.CERT_REQUIRED and strict.check_hostname
    lax = _tls_context(
        dict(parse_url("rediss://redis.example:6380/0?ssl_cert_reqs=none&ssl_check_hostname=false"))
    )
    assert lax.verify_mode == ssl.CERT_NONE and not lax.check_hostname
