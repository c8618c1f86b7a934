"""Table talk: what a chat line may hold, and the frame that carries it.

Control and format characters (bidi overrides, zero-width joiners, escapes) could garble
other players' screens, so they are dropped; line breaks are the only ones kept. The
per-seat rate limit is `schmier.limits.SlidingWindow`, with every other limit.
"""

from __future__ import annotations

import unicodedata

import orjson

from schmier.rooms.peers import Refused


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
