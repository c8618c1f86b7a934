"""Live rooms: one actor per room, a registry to find them, the stored room record."""

from __future__ import annotations

from schmier.rooms.actor import JoinRefused, Peer, Refused, RoomActor, RoomGone
from schmier.rooms.registry import LiveRoom, Rooms, ShuttingDown, UnknownRoom

__all__ = [
    "JoinRefused",
    "LiveRoom",
    "Peer",
    "Refused",
    "RoomActor",
    "RoomGone",
    "Rooms",
    "ShuttingDown",
    "UnknownRoom",
]
