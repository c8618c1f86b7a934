"""What instances say to each other over the bus: every message, one encoder, one decoder.

Each instance listens on a pub/sub channel of its own (`{prefix}bus:<instance>`). A
follower (an instance holding sockets of a room it does not own) sends the owner
operations; the owner answers each with `Done` (a join with `Joined`), publishes every
committed snapshot as `State`, and sends single sockets an `error`, a chat line or the chat history
(`Send`) or a close (`Close`). `Released` tells a follower that the sender does not (or
no longer) serve the room, so it looks the owner up again or takes the room over.

On the wire a message is one JSON object whose `"t"` names its kind; the field names
below are exactly the JSON keys (`sender` is written `"from"`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

import orjson

OpKind = Literal["connect", "frame", "disconnect", "join"]


@dataclass(frozen=True, slots=True)
class Op:
    """An operation of a follower's socket for the owner; applied at most once (by `id`)."""

    room: str
    id: str
    sender: str
    """The instance the operation came from (its answers go there)."""
    kind: OpKind
    peer: str
    """The socket's id on the sending instance ("" for a join, which has no socket)."""
    hash: str | None = None
    """connect: the hash of the token the socket said hello with (None: a spectator)."""
    seat: int | None = None
    """frame: the seat the follower saw the socket hold."""
    frame: str | None = None
    """frame: the frame's text exactly as the socket sent it (parsed by the owner once)."""
    name: str | None = None
    """join: the newcomer's name."""
    wanted: int | None = None
    """join: the seat asked for (None: the first empty one)."""
    member: str | None = None
    """join: the club member joining with a member key (sent only when set, so an
    instance of the release before clubs still reads every other join)."""


@dataclass(frozen=True, slots=True)
class State:
    """A committed snapshot (`RoomRecord.to_bytes`, as text) and its version."""

    room: str
    seq: int
    snap: str


@dataclass(frozen=True, slots=True)
class Send:
    """A frame for one socket only (an error, a chat line, the chat history)."""

    room: str
    peer: str
    data: str


@dataclass(frozen=True, slots=True)
class Close:
    """Close one socket (it flooded the room, say)."""

    room: str
    peer: str
    code: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Done:
    """An operation is settled: `ok`, `bad_token` (connect) or `failed` (store error)."""

    room: str
    id: str
    result: str


@dataclass(frozen=True, slots=True)
class Joined:
    """The answer to a join: the seat and token, or the HTTP status and why."""

    room: str
    id: str
    seat: int | None = None
    token: str | None = None
    status: int | None = None
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class Released:
    """The sender does not (or no longer) own the room."""

    room: str


Message = Op | State | Send | Close | Done | Joined | Released

_TAGS: dict[type[Any], str] = {
    Op: "op",
    State: "state",
    Send: "send",
    Close: "close",
    Done: "done",
    Joined: "joined",
    Released: "released",
}
_KINDS = {tag: cls for cls, tag in _TAGS.items()}
_NAMES = {cls: tuple(f.name for f in fields(cls)) for cls in _TAGS}
_OP_KINDS = frozenset(("connect", "frame", "disconnect", "join"))


class BadMessage(ValueError):
    """Bytes on the bus that are no message of this module."""


def encode(message: Message) -> bytes:
    """The message as the bytes published on the bus."""
    body = asdict(message)
    if isinstance(message, Op):
        body["from"] = body.pop("sender")
        if body["member"] is None:
            del body["member"]
    return orjson.dumps({"t": _TAGS[type(message)], **body})


def decode(data: bytes | str) -> Message:
    """The message `data` holds; BadMessage for anything else."""
    try:
        body = orjson.loads(data)
        cls = _KINDS[body.pop("t")]
        if cls is Op:
            body["sender"] = body.pop("from")
            if body.get("kind") not in _OP_KINDS:
                raise BadMessage(f"unknown operation {body.get('kind')!r}")
        unknown = set(body) - set(_NAMES[cls])
        if unknown:
            raise BadMessage(f"unknown fields {sorted(unknown)}")
        message: Message = cls(**body)
    except BadMessage:
        raise
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise BadMessage(str(exc)) from None
    return message
