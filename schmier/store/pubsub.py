"""Reading a Redis subscription without spinning when its socket fails.

redis-py's blocking `get_message(timeout=None)` turns a socket error that is a
`TimeoutError` (the kernel's `ETIMEDOUT`: TCP keepalive giving up on a Redis behind a
partition, 30 + 3 × 5 s with redis-py's defaults) into "no message" and leaves the dead
connection in place: every later call returns `None` at once, without ever yielding to
the event loop. A loop that skips `None` then holds the whole process (found by the
network-fault tests: an instance cut off from Redis for 60 s stopped answering even
`/livez`, and did not recover after the heal).

So subscribe confirmations are not ignored by redis-py but skipped here, and a
blocking read that returns nothing is what it means: the subscription is lost
(`StoreUnavailable`); its listener subscribes again on a new connection.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from schmier.store.base import StoreError, StoreUnavailable


async def next_message(pubsub: Any) -> bytes | str:
    """The data of the next message published on `pubsub`'s channels (subscribed with
    `ignore_subscribe_messages=False`); `StoreUnavailable` when its socket failed."""
    while True:
        message = await pubsub.get_message(timeout=None)
        if message is None:
            raise StoreUnavailable("the subscription's connection failed")
        if message.get("type") == "message":
            data: bytes | str = message["data"]
            return data


class Subscription:
    """One channel's messages, as they arrive; each read under the store's `calling`
    (which turns Redis's failures into `StoreError`s and reports them to its health)."""

    def __init__(self, pubsub: Any, calling: Callable[[str], AbstractContextManager[None]]) -> None:
        self._pubsub = pubsub
        self._calling = calling

    async def next(self) -> bytes:
        """The next message published on the channel; `StoreError` if Redis fails."""
        with self._calling("listen"):
            data = await next_message(self._pubsub)
        if isinstance(data, str):  # the client is built without `decode_responses`
            raise StoreError("redis client decodes responses; messages must stay bytes")
        return data
