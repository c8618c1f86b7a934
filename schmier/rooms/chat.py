"""Table talk: what a chat line may hold, the frames that carry it, and the lines a room
keeps.

Control and format characters (bidi overrides, zero-width joiners, escapes) could garble
other players' screens, so they are dropped; line breaks are the only ones kept. The
per-seat rate limit is `schmier.limits.SlidingWindow`, with every other limit.

A room keeps its last `CHAT_KEPT` lines in the store beside its snapshot
(`RoomStore.add_chat`), so a reload or a late joiner sees the conversation: every socket
gets them as one `chat_history` frame right after its first `state`.
"""

from __future__ import annotations

import unicodedata
from collections import deque
from collections.abc import Iterable

import orjson

from schmier.config import Settings
from schmier.limits import SlidingWindow
from schmier.protocol import CHAT_KEPT
from schmier.rooms.peers import Refused
from schmier.store import RoomStore

HISTORY_PREFIX = b'{"type":"chat_history"'
"""How every `chat_history` frame starts (orjson keeps the key order and writes no
spaces): a follower recognises, and drops, the history a new owner of the room sends
again for a socket that already had its own."""


def clean(raw: str) -> str:
    """The text of a chat line as others will see it; Refused when nothing visible is left."""
    text = "".join(
        ch for ch in raw if ch == "\n" or not unicodedata.category(ch).startswith("C")
    ).strip()
    if not text:
        raise Refused("bad_message", "a chat message needs some visible text")
    return text


def chat_frame(seat: int, name: str, text: str) -> bytes:
    """The protocol's `chat` frame."""
    return orjson.dumps({"type": "chat", "seat": seat, "name": name, "text": text})


def line(seat: int, name: str, text: str) -> bytes:
    """One chat line as the store keeps it (`{"seat", "name", "text"}`)."""
    return orjson.dumps({"seat": seat, "name": name, "text": text})


def history_frame(lines: Iterable[bytes]) -> bytes:
    """The protocol's `chat_history` frame of kept lines (`line`), oldest first."""
    return HISTORY_PREFIX + b',"lines":[' + b",".join(lines) + b"]}"


class Talk:
    """The chat of one live room: the seats' rate limit and the kept lines (a copy of
    the store's, read when the room is loaded, so a new socket costs no store read)."""

    def __init__(
        self, store: RoomStore, code: str, settings: Settings, lease: str | None = None
    ) -> None:
        self._store = store
        self._code = code
        self._lease = lease
        self._window = SlidingWindow(settings.chat_burst, settings.chat_window)
        self._lines: deque[bytes] = deque(maxlen=CHAT_KEPT)

    async def load(self) -> None:
        """Take the lines the store kept (the room was just loaded)."""
        self._lines = deque(await self._store.read_chat(self._code), maxlen=CHAT_KEPT)

    async def say(self, seat: int, name: str, raw: str, now: float) -> bytes:
        """Keep a seat's line with the room, then the `chat` frame for everyone.

        Refused when nothing visible is left or the seat is past its budget; the store's
        `LeaseLost` (another instance owns the room now) and `StoreError` pass through,
        and then the line is neither kept nor said.
        """
        text = clean(raw)
        if not self._window.allow(seat, now):
            raise Refused("rate_limited", "too many chat messages; wait a moment")
        kept = line(seat, name, text)
        await self._store.add_chat(self._code, kept, keep=CHAT_KEPT, lease=self._lease)
        self._lines.append(kept)
        return chat_frame(seat, name, text)

    def history_frame(self) -> bytes:
        """The `chat_history` frame a socket gets after its first state."""
        return history_frame(self._lines)
