"""The HTTP API over a real socket: rooms, joins, limits, headers, health, metrics."""

from __future__ import annotations

import asyncio
import gc
import hashlib
import re

import httpx
import pytest

from schmier.rooms.codes import CODE_ALPHABET, CODE_LENGTH
from tests.support import loopback
from tests.support.servers import Client, RunningServer, ServerFactory, free_port


@pytest.fixture
async def http(server: RunningServer) -> httpx.AsyncClient:
    async with loopback.async_client(base_url=server.base_url) as client:
        yield client  # type: ignore[misc]


async def test_create_fills_every_rule(http: httpx.AsyncClient) -> None:
    answer = await http.post("/api/rooms", json={"variant": "wisconsin4"})
    assert answer.status_code == 201
    body = answer.json()
    assert body["variant"] == "wisconsin4"
    assert body["rules"] == {
        "target": 21,
        "stick_the_dealer": False,
        "trump_anytime": True,
        "kitty": 2,
        "joker_order": "first_high",
        "hints": True,
        "turn_seconds": 0,
    }
    assert re.fullmatch(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}", body["code"])
    assert CODE_LENGTH * 5 >= 40
    answer = await http.post(
        "/api/rooms",
        json={
            "variant": "schmier5",
            "rules": {"target": 11, "trump_anytime": True, "turn_seconds": 45},
        },
    )
    assert answer.status_code == 201
    assert answer.json()["rules"] == {
        "target": 11,
        "stick_the_dealer": False,
        "trump_anytime": True,
        "hints": True,
        "turn_seconds": 45,
    }


@pytest.mark.parametrize(
    "body",
    [
        {"variant": "poker"},
        {},
        {"variant": "schmier6", "rules": {"kitty": 2}},
        {"variant": "schmier6", "rules": {"target": 4}},
        {"variant": "schmier6", "rules": {"target": 100}},
        {"variant": "wisconsin4", "rules": {"kitty": 4}},
        {"variant": "wisconsin4", "rules": {"joker_order": "random"}},
        {"variant": "schmier6", "rules": {"colour": "red"}},
        {"variant": "schmier6", "extra": 1},
    ],
)
async def test_create_refuses_bad_rooms(http: httpx.AsyncClient, body: dict[str, object]) -> None:
    assert (await http.post("/api/rooms", json=body)).status_code == 422


async def test_room_info_and_case_insensitive_codes(http: httpx.AsyncClient) -> None:
    code = (await http.post("/api/rooms", json={"variant": "schmier6"})).json()["code"]
    info = await http.get(f"/api/rooms/{code.upper()}")
    assert info.status_code == 200
    body = info.json()
    assert body["code"] == code and body["phase"] == "lobby" and body["variant"] == "schmier6"
    assert body["seats"] == [
        {"seat": k, "name": None, "kind": "empty", "connected": False} for k in range(6)
    ]
    assert (await http.get("/api/rooms/aaaaaaaaaa")).status_code == 404
    assert (await http.get("/api/rooms/x")).status_code == 404
    joined = await http.post(f"/api/rooms/{code.upper()}/join", json={"name": "Ann"})
    assert joined.status_code == 200


async def test_join_names_seats_tokens(server: RunningServer, http: httpx.AsyncClient) -> None:
    code = (await http.post("/api/rooms", json={"variant": "wisconsin4"})).json()["code"]
    url = f"/api/rooms/{code}/join"
    for bad in ("", "   ", "\x00\x07", "x" * 25, "\u200b"):
        assert (await http.post(url, json={"name": bad})).status_code == 422, bad
    for seat in (-1, 4, 99):
        assert (await http.post(url, json={"name": "A", "seat": seat})).status_code == 422
    assert (await http.post(url, json={"name": "A", "seat": "1"})).status_code == 422
    assert (await http.post("/api/rooms/aaaaaaaaaa/join", json={"name": "A"})).status_code == 404

    answer = await http.post(url, json={"name": "  Ann\x00 \t Lee\u200b  ", "seat": 2})
    assert answer.status_code == 200
    seat, token = answer.json()["seat"], answer.json()["token"]
    assert seat == 2
    assert len(token) >= 22  # at least 128 bits of URL-safe base64
    info = (await http.get(f"/api/rooms/{code}")).json()
    assert info["seats"][2]["name"] == "Ann Lee" and info["seats"][2]["kind"] == "human"
    # The token is stored only as its hash.
    stored = await server.app.state.rooms.store.load(code)
    assert token.encode() not in stored.snapshot
    assert hashlib.sha256(token.encode()).hexdigest().encode() in stored.snapshot


async def test_rate_limits(server_factory: ServerFactory) -> None:
    server = server_factory(create_rate=3, join_rate=2, lookup_fail_rate=2)
    async with loopback.async_client(base_url=server.base_url) as http:
        codes = []
        for _ in range(3):
            answer = await http.post("/api/rooms", json={"variant": "schmier6"})
            assert answer.status_code == 201
            codes.append(answer.json()["code"])
        assert (await http.post("/api/rooms", json={"variant": "schmier6"})).status_code == 429

        for name in ("A", "B"):
            assert (
                await http.post(f"/api/rooms/{codes[0]}/join", json={"name": name})
            ).status_code == 200
        assert (
            await http.post(f"/api/rooms/{codes[0]}/join", json={"name": "C"})
        ).status_code == 429

        for _ in range(2):
            assert (await http.get("/api/rooms/bbbbbbbbbb")).status_code == 404
        assert (await http.get("/api/rooms/bbbbbbbbbb")).status_code == 429
        assert (await http.get(f"/api/rooms/{codes[1]}")).status_code == 429
        assert (
            await http.post("/api/rooms/bbbbbbbbbb/join", json={"name": "D"})
        ).status_code == 429


async def test_pages_and_security_headers(http: httpx.AsyncClient) -> None:
    home = await http.get("/")
    room = await http.get("/r/abcdefghij")
    replay = await http.get("/r/abcdefghij/h/3")  # the review of a finished hand
    assert home.status_code == room.status_code == replay.status_code == 200
    assert home.text == room.text == replay.text and "<html" in home.text.lower()
    pages = (home, room, replay, await http.get("/static/index.html"), await http.get("/healthz"))
    for answer in pages:
        csp = answer.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"


async def test_health_metrics_and_schema(http: httpx.AsyncClient) -> None:
    assert (await http.get("/healthz")).status_code == 200
    await http.post("/api/rooms", json={"variant": "schmier6"})
    metrics = (await http.get("/metrics")).text
    for name in (
        "schmier_live_rooms",
        "schmier_connected_sockets",
        "schmier_actions_applied_total",
        "schmier_action_latency_seconds_bucket",
        "schmier_store_errors_total",
    ):
        assert name in metrics
    schema = (await http.get("/api/protocol.json")).json()
    text = str(schema)
    for frame in ("hello", "chat", "add_bot", "remove_bot", "start", "bid", "pass", "trump"):
        assert f"'{frame}'" in text
    for frame in ("discard", "call", "play", "rematch", "leave", "state", "error"):
        assert f"'{frame}'" in text
    assert schema["close_codes"]["unknown_room"] == 4404


async def test_the_version_is_said_in_one_voice(http: httpx.AsyncClient) -> None:
    """The package metadata, `/api/version`, `/healthz` and the build-info metric all
    name the one version written in the package."""
    import platform
    from importlib.metadata import version

    from schmier import __version__

    assert version("schmier") == __version__
    assert (await http.get("/api/version")).json() == {"version": __version__}
    assert (await http.get("/healthz")).json()["version"] == __version__
    metrics = (await http.get("/metrics")).text
    info = re.search(r"^schmier_build_info\{(.*)\} 1\.0$", metrics, re.M)
    assert info is not None, metrics
    labels = dict(re.findall(r'(\w+)="([^"]*)"', info.group(1)))
    assert labels == {
        "version": __version__,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
    }


async def test_health_fails_without_the_store(server_factory: ServerFactory) -> None:
    server = server_factory(redis_url=f"redis://127.0.0.1:{free_port()}/0")
    async with loopback.async_client(base_url=server.base_url) as http:
        assert (await http.get("/healthz")).status_code == 503
        assert (await http.post("/api/rooms", json={"variant": "schmier6"})).status_code == 503
        # The process lives on (a supervisor must not restart it); it is not ready.
        assert (await http.get("/livez")).json() == {"status": "ok"}
        ready = await http.get("/readyz")
        assert ready.status_code == 503 and ready.json()["status"] == "store unavailable"
        text = (await http.get("/metrics")).text
    assert re.search(r"^schmier_store_up 0\.0$", text, re.M), text


async def test_ready_and_alive(http: httpx.AsyncClient) -> None:
    assert (await http.get("/livez")).status_code == 200
    ready = await http.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"


async def test_operators_metrics(redis_server: RunningServer) -> None:
    """The process, platform and GC collectors, the commit connection, the leases."""
    code = await redis_server.create_room("schmier6")
    await redis_server.join(code, "Ann")
    async with loopback.async_client(base_url=redis_server.base_url) as http:
        text = (await http.get("/metrics")).text
        ready = await http.get("/readyz")
    assert ready.status_code == 200
    for name in (
        "process_resident_memory_bytes",
        "process_cpu_seconds_total",
        "process_open_fds",
        "python_info",
        "python_gc_collections_total",
        "schmier_store_up 1.0",
        "schmier_store_outages_total 0.0",
        "schmier_commit_wire_in_flight 0.0",
        "schmier_commit_wire_reconnects_total 0.0",
        "schmier_commits_unreplicated_total 0.0",
        "schmier_leases_held 1.0",
        "schmier_lease_takeovers_total 0.0",
        "schmier_lease_renewal_failures_total 0.0",
        "schmier_lease_regains_total 0.0",
        "schmier_leases_lost_total 0.0",
        "schmier_bus_messages_dropped_total 0.0",
        "schmier_limit_fallbacks_total 0.0",
        # The bots' budgets (schmier/rooms/budget.py): nothing decided yet, full strength.
        "schmier_bot_budget_ratio 1.0",
        "schmier_bot_degraded 0.0",
        "schmier_bot_degraded_seconds_total 0.0",
        'schmier_bot_decisions_total{budget="full"} 0.0',
        'schmier_bot_queue_depth{kind="move"} 0.0',
        # The longest full collection so far (none yet).
        "schmier_gc_full_longest_seconds 0.0",
    ):
        assert name in text, name
    # Not counted unless asked for (SCHMIER_GC_COUNT_OBJECTS): counting the frozen
    # objects stops the server for tens of milliseconds at every scrape.
    assert "schmier_gc_frozen_objects" not in text


async def test_metrics_follow_the_rooms(server_factory: ServerFactory) -> None:
    server = server_factory(gc_count_objects=True)
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann")
    client = await Client.seated(server, code, token)
    async with loopback.async_client(base_url=server.base_url) as http:
        text = (await http.get("/metrics")).text
    values = dict(re.findall(r"^(schmier_\w+) ([0-9.e+]+)$", text, re.M))
    assert float(values["schmier_live_rooms"]) == 1
    assert float(values["schmier_connected_sockets"]) == 1
    assert float(values["schmier_actions_applied_total"]) >= 2  # the join, the connection
    # The collector freezes what lives on: the room and the socket are among it.
    assert float(values["schmier_gc_frozen_objects"]) > 0
    await client.close()


async def test_proxy_headers_decide_the_client_address(server_factory: ServerFactory) -> None:
    server = server_factory(proxy_headers=True, forwarded_allow_ips="127.0.0.1", create_rate=1)
    body = {"variant": "schmier6"}
    async with loopback.async_client(base_url=server.base_url) as http:
        first = {"X-Forwarded-For": "203.0.113.7"}
        assert (await http.post("/api/rooms", json=body, headers=first)).status_code == 201
        assert (await http.post("/api/rooms", json=body, headers=first)).status_code == 429
        second = {"X-Forwarded-For": "198.51.100.2"}
        assert (await http.post("/api/rooms", json=body, headers=second)).status_code == 201


async def test_a_running_server_collects_garbage_on_its_own_schedule(
    server: RunningServer,
) -> None:
    """The collector runs inside the server (schmier/collector.py): CPython's automatic
    collection is off, and the server's own young-generation collections are counted."""
    await asyncio.sleep(0.3)  # several 50 ms steps
    async with loopback.async_client(base_url=server.base_url) as http:
        text = (await http.get("/metrics")).text
    found = re.search(r'^schmier_gc_pause_seconds_count\{generation="0"\} ([0-9.e+]+)$', text, re.M)
    assert found is not None and float(found.group(1)) >= 2
    assert not gc.isenabled()  # the test server runs in this process


async def test_the_games_are_served_as_data(http: httpx.AsyncClient) -> None:
    """`GET /api/variants`: the rule book a client or bot reads instead of game names."""
    answer = await http.get("/api/variants")
    assert answer.status_code == 200
    books = {book["name"]: book for book in answer.json()}
    assert list(books) == ["schmier6", "schmier5", "wisconsin4"]
    six, five, four = books["schmier6"], books["schmier5"], books["wisconsin4"]
    # Hand-worked from docs/rules.md: spades trump in the Schmier games has the jack of clubs
    # (the left bauer) under the jack of spades and the joker at the bottom; wisconsin4
    # has no left bauer, stops at the 7 and ends with both jokers.
    assert six["trump_order"]["S"] == [
        "AS", "KS", "QS", "JS", "JC", "TS", "9S", "8S", "7S", "6S", "5S", "4S", "3S", "2S", "X1",
    ]  # fmt: skip
    assert five["trump_order"]["H"][-3:] == ["5H", "4H", "X1"]
    assert four["trump_order"]["D"] == ["AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "X1", "X2"]
    assert four["plain_order"] == ["A", "K", "Q", "J", "T", "9", "8", "7"]
    assert (six["seats"], five["seats"], four["seats"]) == (6, 5, 4)
    assert len(six["deck"]) == 53 and len(five["deck"]) == 45 and len(four["deck"]) == 34
    assert five["fixed_teams"] is False and five["called_partner"] is True
    assert six["points"] == ["high", "low", "right", "left", "joker", "game"]
    assert four["points"] == ["high", "low", "jack", "joker1", "joker2", "game"]
    assert (six["discards"], four["discards"]) == ("all", "bidder")
    assert (six["banks_discards"], four["banks_discards"]) == (False, True)
    assert four["bids"] == {"min": 2, "max": 6} and six["bids"] == {"min": 3, "max": 6}
    for name, book in books.items():
        # The rules listed are exactly those a room of that game accepts, defaults and all.
        created = await http.post("/api/rooms", json={"variant": name})
        assert {rule["name"]: rule["default"] for rule in book["rules"]} == created.json()["rules"]
