"""The names of the store's Redis keys: every key of a room carries the room's code as
a hash tag, so they all hash to one slot.

A room is a hash `{prefix}room:{<code>}`, a list `{prefix}log:{<code>}`, a list
`{prefix}chat:{<code>}` (its last chat lines), the lease `{prefix}lease:{<code>}` and its
fence counter `{prefix}fence:{<code>}`. Redis Cluster
(and the proxies and managed services that shard like it) hashes only the part between
the first `{` and the next `}`, so the commit script's three keys, and the lease
script's two, are always in one slot: the scripts would run there unchanged instead of
failing with CROSSSLOT. (A `{` in the prefix itself would make the prefix the tag: all
keys in one slot, still correct.)

Versions up to 0.2.0 named them `{prefix}room:<code>` and so on, without braces. The
store reads such a room transparently: a room not found under its new names is looked
for under the old ones and, if there, moved (`RENAME`, expiry kept) on first use
(`scripts.ADOPT_LEGACY`); see docs/scaling.md, "Upgrading".
"""

from __future__ import annotations

ROOM_PARTS = ("room", "log", "lease", "fence")
"""The keys a room had in versions up to 0.2.0 (the ones moved from their old names)."""

ALL_PARTS = (*ROOM_PARTS, "chat")
"""The keys one room has: those, and its last chat lines."""


class Keys:
    """Key and channel names under one prefix."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def key(self, name: str) -> str:
        """`name` under the prefix (bus channels, limits: not a room's keys)."""
        return f"{self.prefix}{name}"

    def room_part(self, code: str, part: str) -> str:
        """One key of a room, tagged with its code."""
        return f"{self.prefix}{part}:{{{code}}}"

    def legacy_part(self, code: str, part: str) -> str:
        """The same key as versions up to 0.2.0 named it (no hash tag)."""
        return f"{self.prefix}{part}:{code}"

    def outbox(self, part: str) -> str:
        """A key of the archive's outbox: `queue` (game ids by end time), `entries`
        (their payloads), or `claim:<game>` (who archives that game now)."""
        return f"{self.prefix}archive:{part}"

    def limit(self, name: str, address: str) -> str:
        """The token bucket of one client address for one limit."""
        return f"{self.prefix}limit:{name}:{{{address}}}"
