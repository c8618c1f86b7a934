"""Live rooms: one actor per room, a registry to find them, the stored room record."""

from __future__ import annotations

from schmier.rooms.actor import RoomActor
from schmier.rooms.peers import JoinRefused, Peer, Refused, RoomGone
from schmier.rooms.registry import LiveRoom, RoomOpener, Rooms, ShuttingDown, UnknownRoom

__all__ = [
    "JoinRefused",
    "LiveRoom",
    "Peer",
    "Refused",
    "RoomActor",
    "RoomGone",
    "RoomOpener",
    "Rooms",
    "ShuttingDown",
    "UnknownRoom",
]
