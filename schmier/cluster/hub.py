"""What a follower needs of this instance's node, as a protocol (so the follower and the
take-over never import the node, which imports them), and the lease value's format."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from schmier.cluster import bus
from schmier.config import Settings
from schmier.rooms.actor import RoomActor
from schmier.rooms.registry import Rooms
from schmier.store import RedisStore


def instance_of(lease: str) -> str:
    """The instance named in a lease value `instance:fence`."""
    return lease.rpartition(":")[0]


class Served(Protocol):
    """A room this instance serves without owning it (a follower), as the node keeps it."""

    @property
    def code(self) -> str: ...


class Hub(Protocol):
    """This instance's membership of the cluster, as a follower uses it."""

    instance: str
    lease_ms: int
    settings: Settings
    store: RedisStore
    rooms: Rooms

    def new_id(self) -> str:
        """An id unique across the cluster."""

    def send(
        self,
        instance: str,
        message: bus.Message,
        unreachable: Callable[[], None] | None = None,
    ) -> None:
        """Queue `message` for `instance`; `unreachable()` runs if nobody listens there."""

    async def holder(self, code: str) -> str | None:
        """The room's current lease value, or None."""

    async def acquire(self, code: str) -> str | None:
        """Take the room's lease if nobody holds it: its value, or None."""

    async def listening(self, instance: str) -> bool:
        """Whether `instance` is subscribed to its channel."""

    async def own(self, code: str, lease: str) -> RoomActor | None:
        """Start the actor of a room whose lease this instance just took."""

    def forget(self, served: Served) -> None:
        """Route the room's messages to `served` no more."""
