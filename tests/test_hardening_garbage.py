"""Garbage frames against a live room: a clear error or the documented close, nothing else.

Hypothesis generates what a broken or hostile client could send over a real socket to a
room in the middle of a game: random JSON, protocol frames with wrong or extra fields,
huge numbers, deep nesting, non-JSON text, invalid UTF-8, binary frames and frames over
the size limit. Each must be answered by one `error` frame with a protocol error code,
or by the documented close (1003 binary, 1007 invalid UTF-8, 1009 too big); afterwards a
fresh spectator must see the room exactly as before (same `seq`, same view), and a
second room must keep being served.

The attacking socket is a second connection of a seat that stays connected through a
first one, so that its closes do not change the seat's `connected` flag (which would be
a legitimate change of the room); the seat is not the room's host, so the host's frames
are refused to it too.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from schmier.config import Settings
from schmier.protocol import CLIENT_TYPES, ERROR_CODES
from tests.support import loopback
from tests.support.servers import FAST, RunningServer, start_thread_server

MAX_FRAME = 8192


@pytest.fixture(scope="module")
def live() -> Iterator[RunningServer]:
    running = start_thread_server(Settings(**FAST, max_frame=MAX_FRAME))
    yield running
    running.stop()


#: websockets 17.1 deprecates `connect()` outside a `with` block unless `legacy=True`
#: says it is meant; older releases have no such flag (and no such warning).
_DIRECT: dict[str, Any] = (
    {"legacy": True} if "legacy" in inspect.signature(connect).parameters else {}
)


def raw_socket(server: RunningServer, code: str) -> ClientConnection:
    """A socket that has said nothing yet (closed by the caller, not a `with` block)."""
    return connect(server.ws_url(code), compression=None, max_size=2**22, **_DIRECT)


def open_socket(server: RunningServer, code: str, token: str | None) -> ClientConnection:
    ws = raw_socket(server, code)
    ws.send(json.dumps({"type": "hello", "token": token} if token else {"type": "hello"}))
    first = orjson.loads(ws.recv(timeout=10))
    assert first["type"] == "state", first
    history = orjson.loads(ws.recv(timeout=10))  # the kept chat follows the first state
    assert history["type"] == "chat_history", history
    review = orjson.loads(ws.recv(timeout=10))  # then the room's shared review
    assert review["type"] == "review", review
    return ws


def snapshot(server: RunningServer, code: str) -> tuple[int, dict[str, Any]]:
    """(seq, view) as a fresh spectator sees the room right now."""
    with connect(server.ws_url(code), compression=None, max_size=2**22) as ws:
        ws.send('{"type": "hello"}')
        frame = orjson.loads(ws.recv(timeout=10))
    return int(frame["seq"]), frame["view"]


@dataclass
class Table:
    """A started wisconsin4 game with four seated sockets (nobody acts on their own)."""

    code: str
    tokens: dict[int, str]
    holders: dict[int, ClientConnection] = field(default_factory=dict)
    view: dict[str, Any] = field(default_factory=dict)

    @property
    def turn(self) -> list[int]:
        return list(self.view["turn"])


def start_table(server: RunningServer) -> Table:
    with loopback.client(base_url=server.base_url) as http:
        code = http.post("/api/rooms", json={"variant": "wisconsin4"}).json()["code"]
        tokens = {}
        for seat in range(4):
            answer = http.post(f"/api/rooms/{code}/join", json={"name": f"P{seat}", "seat": seat})
            tokens[seat] = answer.json()["token"]
    table = Table(code, tokens)
    for seat in range(4):
        table.holders[seat] = open_socket(server, code, tokens[seat])
    table.holders[0].send('{"type": "start"}')
    while True:
        frame = orjson.loads(table.holders[0].recv(timeout=10))
        if frame["type"] == "state" and frame["view"]["phase"] == "bidding":
            table.view = frame["view"]
            return table


# ------------------------------------------------------------------ the garbage

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
# Every frame type but the two whose valid forms legitimately change or broadcast
# (`leave` gives up the seat, `chat` talks); for the others any well-formed frame from
# a seat not on turn is refused too, so "an error" is the right answer for all of them.
TYPES = [t for t in CLIENT_TYPES if t not in ("leave", "chat")]
WRONG_FIELDS = st.builds(
    lambda kind, extra: {"type": kind, **extra},
    st.sampled_from(TYPES),
    st.dictionaries(
        st.sampled_from(["amount", "seat", "suit", "card", "cards", "token", "text", "x"]),
        JSON_VALUES,
        max_size=3,
    ),
)
HUGE = st.one_of(
    st.integers(min_value=2**63).map(lambda n: {"type": "bid", "amount": n}),
    st.integers(min_value=100, max_value=4000).map(
        lambda n: '{"type": "bid", "amount": ' + "9" * n + "}"
    ),
    st.just('{"type": "bid", "amount": 1e999}'),
    st.just('{"type": "add_bot", "seat": -99999999999999999999999}'),
)
DEEP = st.integers(min_value=50, max_value=4000).flatmap(
    lambda n: st.sampled_from(
        [
            "[" * n + "]" * n,
            '{"a":' * (n // 5) + "1" + "}" * (n // 5),
            '{"type": "discard", "cards": ' + "[" * n + "]" * n + "}",
        ]
    )
)


@dataclass(frozen=True)
class Garbage:
    """One frame to send: text, bytes sent as a (lying) text frame, or a binary frame."""

    data: str | bytes
    text: bool
    close: int | None
    """The documented close code, or None when an `error` frame is the answer."""


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


GARBAGE = st.one_of(
    JSON_VALUES.map(lambda v: Garbage(json.dumps(v), True, None)),
    WRONG_FIELDS.map(lambda v: Garbage(json.dumps(v), True, None)),
    HUGE.map(lambda v: Garbage(_as_text(v), True, None)),
    DEEP.map(lambda v: Garbage(v, True, None)),
    st.text(max_size=200).map(lambda t: Garbage(t, True, None)),
    st.binary(min_size=1, max_size=300).map(lambda b: Garbage(b, False, 1003)),
    st.binary(max_size=40).map(
        lambda b: Garbage(b'{"type": "chat", "text": "' + b + b'\xff\xc0"}', True, 1007)
    ),
    st.integers(min_value=MAX_FRAME + 1, max_value=4 * MAX_FRAME).map(
        lambda n: Garbage('{"type": "chat", "text": "' + "x" * n + '"}', True, 1009)
    ),
)


def answer_to(ws: ClientConnection, garbage: Garbage) -> tuple[str, Any]:
    """('error', code) or ('close', code): what the server did about one frame."""
    try:
        ws.send(garbage.data, text=garbage.text)
        reply = orjson.loads(ws.recv(timeout=10))
    except ConnectionClosed as closed:
        return "close", closed.rcvd.code if closed.rcvd else None
    assert reply["type"] == "error", f"{garbage!r} was answered by {reply}"
    assert isinstance(reply["message"], str) and reply["message"]
    assert len(reply["message"]) <= 300
    return "error", reply["code"]


def test_garbage_gets_an_error_or_the_documented_close(live: RunningServer) -> None:
    table = start_table(live)
    other = start_table(live)
    before = snapshot(live, table.code)
    (turn,) = table.turn
    # Not on turn, and not the host (seat 0, the first to sit down), whose well-formed
    # `pause` would rightly be taken.
    attacker_seat = next(s for s in ((turn + k) % 4 for k in (1, 2, 3)) if s != 0)
    token = table.tokens[attacker_seat]
    current: list[ClientConnection] = [open_socket(live, table.code, token)]
    seen: dict[tuple[str, Any], int] = {}

    @settings(
        max_examples=150,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(garbage=GARBAGE)
    def one(garbage: Garbage) -> None:
        ws = current[0]
        kind, code = answer_to(ws, garbage)
        seen[kind, code] = seen.get((kind, code), 0) + 1
        if garbage.close is None:
            assert kind == "error", f"{garbage!r} closed the socket with {code}"
            assert code in ERROR_CODES and code != "rate_limited"
        else:
            assert (kind, code) == ("close", garbage.close), garbage
            current[0] = open_socket(live, table.code, token)
        assert snapshot(live, table.code) == before, f"{garbage!r} changed the room"

    try:
        one()
        # Every kind of answer was exercised, not just one.
        assert {k for k, _ in seen} == {"error", "close"}
        assert {c for k, c in seen if k == "close"} == {1003, 1007, 1009}
        assert ("error", "bad_message") in seen and ("error", "not_your_turn") in seen
        # The attacked room still plays: the seat on turn passes and everybody sees it.
        table.holders[turn].send('{"type": "pass"}')
        assert snapshot(live, table.code)[0] > before[0]
        # And the other room was served all along.
        (other_turn,) = other.turn
        other_before = snapshot(live, other.code)
        other.holders[other_turn].send('{"type": "pass"}')
        assert snapshot(live, other.code)[0] > other_before[0]
    finally:
        for ws in [current[0], *table.holders.values(), *other.holders.values()]:
            ws.close()


def test_garbage_before_hello_is_refused_and_hello_still_works(live: RunningServer) -> None:
    """Before its hello a socket may say nothing else; garbage gets `bad_message` (or the
    documented close) and the socket can still say hello afterwards."""
    table = start_table(live)
    before = snapshot(live, table.code)

    @settings(
        max_examples=40,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(garbage=GARBAGE.filter(lambda g: not (isinstance(g.data, str) and "hello" in g.data)))
    def one(garbage: Garbage) -> None:
        with connect(live.ws_url(table.code), compression=None, max_size=2**22) as ws:
            kind, code = answer_to(ws, garbage)
            if garbage.close is None:
                assert (kind, code) == ("error", "bad_message"), garbage
                ws.send('{"type": "hello"}')
                assert orjson.loads(ws.recv(timeout=10))["type"] == "state"
            else:
                assert (kind, code) == ("close", garbage.close), garbage

    try:
        one()
        assert snapshot(live, table.code) == before
    finally:
        for ws in table.holders.values():
            ws.close()
