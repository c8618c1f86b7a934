"""The wire contract as pydantic models: every client frame, server frame and HTTP body.

One module per direction (`client`, `server`, `http`) and the words they share
(`vocabulary`); everything is importable from here.
`protocol_schema` is the JSON Schema of all of it, served at `GET /api/protocol.json`.
"""

from __future__ import annotations

from typing import Any

from schmier.protocol.client import (
    ACTION_FRAMES,
    CLIENT_FRAME,
    CLIENT_TYPES,
    ActionFrame,
    AddBot,
    Bid,
    Call,
    Chat,
    ClientFrame,
    Discard,
    Hello,
    Leave,
    Pass,
    Play,
    Rematch,
    RemoveBot,
    Start,
    Trump,
    parse_client_frame,
)
from schmier.protocol.http import (
    CreateRoom,
    Joined,
    JoinRoom,
    RoomCreated,
    RoomInfo,
    SeatInfo,
    clean_name,
)
from schmier.protocol.server import (
    SERVER_FRAME,
    SERVER_TYPES,
    BidView,
    ChatFrame,
    ErrorFrame,
    LastHand,
    PausedFrame,
    Played,
    ResumedFrame,
    SeatView,
    ServerFrame,
    StateFrame,
    TrickView,
    View,
)
from schmier.protocol.vocabulary import (
    CHAT_MAX,
    ERROR_CODES,
    NAME_MAX,
    Card,
    CloseCode,
    ErrorCode,
    Phase,
    SeatKind,
    Suit,
    Variant,
)


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of every message, served at `GET /api/protocol.json`."""
    return {
        "title": "Schmier protocol",
        "client_frames": CLIENT_FRAME.json_schema(),
        "server_frames": SERVER_FRAME.json_schema(),
        "error_codes": list(ERROR_CODES),
        "close_codes": {c.name.lower(): int(c) for c in CloseCode},
        "http": {
            "create_room": CreateRoom.model_json_schema(),
            "room_created": RoomCreated.model_json_schema(),
            "room_info": RoomInfo.model_json_schema(),
            "join_room": JoinRoom.model_json_schema(),
            "joined": Joined.model_json_schema(),
        },
    }


__all__ = [
    "ACTION_FRAMES",
    "CHAT_MAX",
    "CLIENT_FRAME",
    "CLIENT_TYPES",
    "ERROR_CODES",
    "NAME_MAX",
    "SERVER_FRAME",
    "SERVER_TYPES",
    "ActionFrame",
    "AddBot",
    "Bid",
    "BidView",
    "Call",
    "Card",
    "Chat",
    "ChatFrame",
    "ClientFrame",
    "CloseCode",
    "CreateRoom",
    "Discard",
    "ErrorCode",
    "ErrorFrame",
    "Hello",
    "JoinRoom",
    "Joined",
    "LastHand",
    "Leave",
    "Pass",
    "PausedFrame",
    "Phase",
    "Play",
    "Played",
    "Rematch",
    "RemoveBot",
    "ResumedFrame",
    "RoomCreated",
    "RoomInfo",
    "SeatInfo",
    "SeatKind",
    "SeatView",
    "ServerFrame",
    "Start",
    "StateFrame",
    "Suit",
    "TrickView",
    "Trump",
    "Variant",
    "View",
    "clean_name",
    "parse_client_frame",
    "protocol_schema",
]
