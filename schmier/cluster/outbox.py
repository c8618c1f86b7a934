"""What this instance says to the others: one queue, one publisher task, in order.

Redis delivers one connection's messages in order, and one task publishes everything
(in pipelines of up to `PUBLISH_BATCH` when a backlog builds up), so a follower always
gets a change before the `Done` of the operation that caused it. `PUBLISH` answers how
many subscribers received each message: 0 means nobody listens on that instance's
channel (it died, or is resubscribing), which the sender learns through `unreachable`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from schmier.cluster import bus
from schmier.logs import event
from schmier.metrics import Metrics
from schmier.store import RedisStore, StoreError, StoreUnavailable

PUBLISH_BATCH = 256
"""Messages sent in one pipeline (in order) when the outbox has a backlog."""

_Outgoing = tuple[str, bytes, Callable[[], None] | None]


class Outbox:
    """The queue of bus messages and the task that publishes them."""

    def __init__(self, store: RedisStore, metrics: Metrics) -> None:
        self._store = store
        self._metrics = metrics
        self._queue: asyncio.Queue[_Outgoing] = asyncio.Queue()

    def put(
        self, channel: str, message: bus.Message, unreachable: Callable[[], None] | None
    ) -> None:
        """Queue `message` for `channel`; `unreachable()` runs if nobody listens there."""
        self._queue.put_nowait((channel, bus.encode(message), unreachable))

    async def drained(self) -> None:
        """Until everything queued so far has been published (or given up)."""
        await self._queue.join()

    async def run(self) -> None:
        """Publish forever, in order."""
        while True:
            batch = [await self._queue.get()]
            while len(batch) < PUBLISH_BATCH and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                counts = await self._publish(batch)
                for (_, _, unreachable), count in zip(batch, counts, strict=True):
                    if count == 0 and unreachable is not None:
                        unreachable()
            finally:
                for _ in batch:
                    self._queue.task_done()

    async def _publish(self, batch: list[_Outgoing]) -> list[int | None]:
        """Publish in order, trying three times; None for each count when all failed.

        While Redis is unreachable nothing can be published; the outage is logged once,
        by the store's health, and the followers catch up when it is back.
        """
        messages = [(channel, data) for channel, data, _ in batch]
        error: StoreError | None = None
        for attempt in range(3):
            try:
                return list(await self._store.publish_many(messages))
            except StoreError as exc:
                error = exc
                if attempt < 2:
                    await asyncio.sleep(0.1 * (attempt + 1))
        self._metrics.bus_dropped.inc(len(batch))
        if not isinstance(error, StoreUnavailable):
            event("cluster.publish_failed", logging.ERROR, messages=len(batch), error=str(error))
        return [None] * len(batch)
