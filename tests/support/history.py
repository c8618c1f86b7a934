"""A checker of whole histories (Jepsen's method): what every client sent and received,
and what the store committed, read after a run full of faults.

`Socket` is one client socket's history: its room, its seat, and its frames in the
order that side saw them (`bench.kit.client.Client.transcript`). `StoreHistory` records
what Redis executed (its `MONITOR` stream): which lease each room's lease key was given,
and which lease every successful commit carried. `check` reads it all with the rooms'
final records and raises `HistoryError` naming the first violation of:

- every play and bid a client was shown (its `state` frames: the tricks and the bids of
  the hand with that deal's commitment) is in the room's final log, once, in that order;
- no socket sees `seq` go backwards (nor a seat over its successive sockets), and no two
  frames of one room show different game states under the same `seq`;
- no commit is made under a lease but the room's latest one (two instances never both
  commit to one room: a stale owner's write is refused by the store's fencing check);
- every game is finished, or answers a fresh `hello` at the stored `seq` (resumable);
- no seat is shown a card it may not see: every state frame is the engine's view of one
  of the true states the log replays to, in order, and passes the direct secrecy check.
"""

from __future__ import annotations

import re
import socket
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import orjson

from schmier import engine
from schmier.rooms.record import RoomRecord
from tests.support.secrecy import check_view, engine_part, true_view


class HistoryError(AssertionError):
    """The history breaks one of the checked properties."""


@dataclass
class Socket:
    """One client socket: its room, its seat (None: a spectator), its frames in order."""

    room: str
    seat: int | None
    transcript: list[tuple[str, dict[str, Any]]]

    def states(self) -> list[dict[str, Any]]:
        return [f for way, f in self.transcript if way == "in" and f["type"] == "state"]


@dataclass
class Final:
    """A room after the run: its stored record and log, and the state a fresh `hello`
    got after every fault healed (None when none was asked or none answered)."""

    record: RoomRecord
    version: int
    log: list[bytes]
    resumed: dict[str, Any] | None = None


# ------------------------------------------------------------------ the store's history

TOKEN = re.compile(rb'"((?:[^"\\]|\\.)*)"')
ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"a": b"\a", b"b": b"\b"}


def unquote(raw: bytes) -> bytes:
    """One argument of a MONITOR line, its escapes (`\\xHH`, `\\n`, `\\"`...) undone."""
    out = bytearray()
    i = 0
    while i < len(raw):
        char = raw[i : i + 1]
        if char != b"\\":
            out += char
            i += 1
            continue
        nxt = raw[i + 1 : i + 2]
        if nxt == b"x":
            out.append(int(raw[i + 2 : i + 4], 16))
            i += 4
        else:
            out += ESCAPES.get(nxt, nxt)
            i += 2
    return bytes(out)


def room_of(key: bytes) -> str | None:
    found = re.search(rb"\{([^}]*)\}$", key)
    return found.group(1).decode() if found else None


@dataclass
class StoreEvent:
    """`acquire` (the lease key set to `lease`), `release` (deleted) or `commit` (a
    successful commit under `lease`, writing `version`)."""

    kind: str
    room: str
    lease: str = ""
    version: int = 0


@dataclass
class StoreHistory:
    """The leases and commits of every room under `prefix`, in Redis's own order."""

    prefix: str
    events: list[StoreEvent] = field(default_factory=list)
    _lease: str | None = None

    def feed(self, line: bytes) -> None:
        """One line of the MONITOR stream. A script's own commands (`[n lua]`) follow
        the EVALSHA that ran them at once, so a commit's HSET is paired with its lease."""
        head, _, rest = line.partition(b"] ")
        args = [unquote(m.group(1)) for m in TOKEN.finditer(rest)]
        if not args:
            return
        command = args[0].upper()
        prefix = self.prefix.encode()
        if not head.endswith(b"lua"):
            self._lease = None
            if command == b"EVALSHA" and len(args) > 8 and int(args[2]) in (4, 6):
                keys = args[3 : 3 + int(args[2])]
                if keys[0].startswith(prefix + b"room:") and keys[2].startswith(prefix + b"lease:"):
                    self._lease = args[3 + int(args[2]) + 3].decode()
            return
        if len(args) < 2 or not args[1].startswith(prefix):
            return
        room = room_of(args[1])
        if room is None:
            return
        if command == b"SET" and args[1].startswith(prefix + b"lease:"):
            self.events.append(StoreEvent("acquire", room, args[2].decode()))
        elif command == b"DEL" and args[1].startswith(prefix + b"lease:"):
            self.events.append(StoreEvent("release", room))
        elif (
            command == b"HSET"
            and args[1].startswith(prefix + b"room:")
            and args[2] == b"version"
            and self._lease is not None
        ):
            self.events.append(StoreEvent("commit", room, self._lease, int(args[3])))


class StoreRecorder:
    """Reads Redis's MONITOR stream at `host:port` in a thread of its own into a
    `StoreHistory` until `stop`."""

    def __init__(self, host: str, port: int, prefix: str) -> None:
        self.history = StoreHistory(prefix)
        self._address = (host, port)
        # The last line `stop` waits for: everything executed before it has been read.
        self._marker = f"{prefix}end-of-history".encode()
        self._marked = threading.Event()
        self._conn = socket.create_connection((host, port), timeout=5)
        self._conn.sendall(b"MONITOR\r\n")
        self._buffer = b""
        while b"\r\n" not in self._buffer:
            self._buffer += self._conn.recv(4096)
        assert self._buffer.startswith(b"+OK"), self._buffer
        self._buffer = self._buffer.split(b"\r\n", 1)[1]
        self._conn.settimeout(0.2)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                chunk = self._conn.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError:
                return
            if not chunk:
                return
            self._buffer += chunk
            *lines, self._buffer = self._buffer.split(b"\r\n")
            for line in lines:
                if self._marker in line:
                    self._marked.set()
                    continue
                self.history.feed(line[1:] if line.startswith(b"+") else line)

    def stop(self) -> StoreHistory:
        """The history so far: all Redis executed before this call. MONITOR's stream
        runs behind the commands, so a marker command is sent and read back first (a
        stop without it once lost the last commit); a Redis that cannot be reached any
        more gets no marker, and the history is what was read."""
        try:
            with socket.create_connection(self._address, timeout=5) as conn:
                marker = b"$%d\r\n%s\r\n" % (len(self._marker), self._marker)
                conn.sendall(b"*2\r\n$4\r\nECHO\r\n" + marker)
                conn.recv(4096)
            self._marked.wait(10)
        except OSError:
            pass
        self._stopping.set()
        self._thread.join(5)
        self._conn.close()
        return self.history


# ------------------------------------------------------------------ the checks


def fail(message: str) -> None:
    raise HistoryError(message)


def check_store(history: StoreHistory) -> int:
    """Every commit carries the room's latest lease and none older: the count."""
    latest: dict[str, str | None] = {}
    fences: dict[str, int] = defaultdict(int)
    commits = 0
    for event in history.events:
        if event.kind == "acquire":
            latest[event.room] = event.lease
        elif event.kind == "release":
            latest[event.room] = None
        else:
            holder = latest.get(event.room)
            if event.lease != holder:
                fail(
                    f"room {event.room}: version {event.version} committed under lease "
                    f"{event.lease!r} while the lease was {holder!r} (two owners)"
                )
            fence = int(event.lease.rsplit(":", 1)[1])
            if fence < fences[event.room]:
                fail(f"room {event.room}: a commit under fence {fence} after a newer one")
            fences[event.room] = fence
            commits += 1
    return commits


def replay(final: Final) -> tuple[list[Any], dict[str, list[tuple[str, Any]]]]:
    """The true states the room's log replays to, and per deal commitment its plays
    (`("play", (seat, card))`) and bids (`("bid", (seat, amount or None))`) in order."""
    record = final.record
    state = engine.new_game(record.variant, record.rules, record.first_dealer or 0)
    states = [state]
    by_deal: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    deal = ""
    for number, raw in enumerate(final.log):
        entry = orjson.loads(raw)
        if entry.get("deal"):
            deal = entry["deal"]["commitment"]
        action = entry["action"]
        if action["type"] == "play":
            by_deal[deal].append(("play", (entry["seat"], action["card"])))
        elif action["type"] in ("bid", "pass"):
            by_deal[deal].append(("bid", (entry["seat"], action.get("amount"))))
        try:
            state = engine.apply(state, entry["seat"], action)
        except engine.EngineError as exc:
            fail(f"room {record.code}: log entry {number} does not replay: {exc}")
        states.append(state)
    for deal, moves in by_deal.items():
        plays = [m for kind, m in moves if kind == "play"]
        if len({card for _, card in plays}) != len(plays):
            fail(f"room {record.code}: a card played twice in the hand of deal {deal[:12]}")
    return states, by_deal


def shown_moves(view: dict[str, Any]) -> tuple[str, list[Any], list[Any]]:
    """The deal commitment of a view, the plays it shows in order, and its bids."""
    plays = [(p["seat"], p["card"]) for t in view["tricks"] for p in t["cards"]]
    plays += [(p["seat"], p["card"]) for p in view["trick"]]
    bids = [(b["seat"], b["amount"]) for b in view["bids"]]
    return (view["deal"] or {}).get("commitment", ""), plays, bids


PUBLIC = ("phase", "turn", "bids", "trick", "tricks", "scores", "dealer", "bidder", "bid")


def public_part(view: dict[str, Any]) -> bytes:
    """What every viewer of one game state sees alike."""
    seats = [(s["kind"], s["cards"]) for s in view["seats"]]
    return orjson.dumps([view.get(k) for k in PUBLIC] + [seats, view["deal"]])


def check_sockets(sockets: list[Socket], finals: dict[str, Final]) -> int:
    """The per-frame checks of every socket; the number of state frames checked."""
    replays = {code: replay(final) for code, final in finals.items()}
    by_seq: dict[tuple[str, int], tuple[bytes, int]] = {}
    last_of_seat: dict[tuple[str, int | None], int] = {}
    checked = 0
    for number, sock in enumerate(sockets):
        states, by_deal = replays[sock.room]
        seq = -1
        index = 0
        for frame in sock.states():
            view = frame["view"]
            if frame["seq"] < seq:
                fail(f"socket {number}: seq went back from {seq} to {frame['seq']}")
            seq = frame["seq"]
            if sock.seat is not None:
                before = last_of_seat.get((sock.room, sock.seat), -1)
                if seq < before:
                    fail(f"socket {number}: seat {sock.seat} saw seq {before}, now {seq}")
                last_of_seat[(sock.room, sock.seat)] = seq
            if view["phase"] == "lobby":
                continue
            public = public_part(view)
            seen = by_seq.setdefault((sock.room, seq), (public, number))
            if seen[0] != public:
                fail(
                    f"room {sock.room}: two different states with seq {seq} "
                    f"(sockets {seen[1]} and {number})"
                )
            deal, plays, bids = shown_moves(view)
            recorded = by_deal.get(deal, [])
            if plays != [m for k, m in recorded if k == "play"][: len(plays)]:
                fail(f"socket {number}: seq {seq} shows plays {plays} the log does not have")
            if bids != [m for k, m in recorded if k == "bid"][: len(bids)]:
                fail(f"socket {number}: seq {seq} shows bids {bids} the log does not have")
            target = engine_part(view)
            while index < len(states) and true_view(states[index], sock.seat, target) != target:
                index += 1
            if index == len(states):
                fail(f"socket {number}: seat {sock.seat}'s frame {seq} is no true state")
            try:
                check_view(view, states[index], sock.seat)
            except AssertionError as exc:
                fail(f"socket {number}: frame {seq}: {exc}")
            checked += 1
    return checked


def check_finals(sockets: list[Socket], finals: dict[str, Final]) -> None:
    """Every game is over, or a fresh hello got the stored state."""
    for code, final in finals.items():
        seen = [f["seq"] for s in sockets if s.room == code for f in s.states()]
        if max(seen, default=-1) > final.version:
            fail(f"room {code}: a client saw seq {max(seen)}, the store has {final.version}")
        if final.record.phase == "game_over":
            continue
        if final.resumed is None:
            fail(f"room {code}: the game is neither over nor resumed")
        elif final.resumed["seq"] != final.version:
            fail(f"room {code}: resumed at seq {final.resumed['seq']}, stored {final.version}")


def check(sockets: list[Socket], finals: dict[str, Final], store: StoreHistory | None) -> int:
    """Every check above; the number of state frames checked."""
    if store is not None:
        check_store(store)
    checked = check_sockets(sockets, finals)
    check_finals(sockets, finals)
    return checked
