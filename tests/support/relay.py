"""Latency without `netem`: a TCP relay that holds every chunk a while before passing it on.

This kernel has no `netem` qdisc, so a link cannot be slowed by the kernel; a process
in the middle can. `Relay` listens on some addresses and connects each accepted socket
to its target; every chunk read in either direction is written on only after a delay
drawn for it (`Latency`: `delay` ± `jitter`, uniform). A chunk never overtakes the one
before it on the same connection and way (TCP keeps order, and so must the link it
stands for), so a chunk drawn shorter than the one before waits for it: every chunk is
held at least its draw, some longer. An end of stream (a half close) is passed on the
same way, after the data before it; a reset closes both sides at once.

The delay can be switched on and off while the relay runs (`slow`): off, a chunk is
passed on as soon as the one before it has been, so a link that turns slow and fast
again keeps its connections (as a congested link does). The process starts slow unless
`--fast`, and SIGUSR1 turns the delay on, SIGUSR2 off (a random schedule of faults
makes the players' links slow for a while that way).

The relay records what it did (`draws`, `held`: the seconds each chunk was drawn and
actually held), so a test can check the delays it claims. Run it as a process of its
own (in a network namespace between the players and the instances, say):

    python -m tests.support.relay --delay 0.2 --jitter 0.05 10.0.0.5:8000=10.0.0.2:8000
    kill -USR2 $PID   # fast from now on; kill -USR1 $PID: slow again
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

Address = tuple[str, int]
CHUNK = 65536


@dataclass(frozen=True)
class Latency:
    """Each chunk's one-way delay: `delay` ± `jitter` seconds, uniform."""

    delay: float
    jitter: float = 0.0

    def draw(self, rng: random.Random) -> float:
        return max(0.0, self.delay + rng.uniform(-self.jitter, self.jitter))


@dataclass
class Relay:
    """Listens on each key of `routes` and relays every connection to its value."""

    routes: dict[Address, Address]
    latency: Latency
    seed: str = "relay"
    slow: bool = True
    """Whether chunks are held (`latency`) or passed on at once; may change any time."""
    draws: list[float] = field(default_factory=list)
    """Every chunk's drawn delay, in seconds."""
    held: list[float] = field(default_factory=list)
    """Every chunk's time from being read to being written on, in seconds."""
    connections: int = 0
    servers: list[asyncio.Server] = field(default_factory=list)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    async def start(self) -> Relay:
        for listen, target in self.routes.items():

            async def accepted(
                reader: asyncio.StreamReader,
                writer: asyncio.StreamWriter,
                target: Address = target,
            ) -> None:
                await self._connection(reader, writer, target)

            server = await asyncio.start_server(accepted, listen[0], listen[1])
            self.servers.append(server)
        return self

    def ports(self) -> list[int]:
        """The ports listened on (a route's port 0 picks a free one)."""
        return [s.sockets[0].getsockname()[1] for s in self.servers]

    async def _connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, target: Address
    ) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(*target)
        except OSError:
            writer.transport.abort()
            return
        ways = [
            asyncio.ensure_future(self._way(reader, up_writer)),
            asyncio.ensure_future(self._way(up_reader, writer)),
        ]
        for way in ways:
            self.tasks.add(way)
            way.add_done_callback(self.tasks.discard)
        try:
            await asyncio.gather(*ways)
        except (OSError, asyncio.IncompleteReadError):
            # One side reset: the other side is reset too (a link does not half-fail).
            for each in (writer, up_writer):
                each.transport.abort()
            for way in ways:
                way.cancel()
        finally:
            for each in (writer, up_writer):
                each.close()

    async def _way(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Pass one direction on, each chunk after its delay, never out of order; a
        failure of either side ends it with that failure."""
        queue: asyncio.Queue[tuple[float, float, bytes]] = asyncio.Queue()
        sender = asyncio.ensure_future(self._send(queue, writer))
        reading = asyncio.ensure_future(self._read(reader, queue))
        try:
            done, _ = await asyncio.wait([reading, sender], return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()
            await sender
        finally:
            reading.cancel()
            sender.cancel()

    async def _read(
        self, reader: asyncio.StreamReader, queue: asyncio.Queue[tuple[float, float, bytes]]
    ) -> None:
        last_due = 0.0
        while True:
            chunk = await reader.read(CHUNK)
            now = time.monotonic()
            draw = self.latency.draw(self.rng) if self.slow else 0.0
            last_due = max(now + draw, last_due)
            self.draws.append(draw)
            queue.put_nowait((last_due, now, chunk))
            if not chunk:
                return

    async def _send(
        self, queue: asyncio.Queue[tuple[float, float, bytes]], writer: asyncio.StreamWriter
    ) -> None:
        while True:
            due, read_at, chunk = await queue.get()
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self.held.append(time.monotonic() - read_at)
            if not chunk:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(chunk)
            await writer.drain()

    async def aclose(self) -> None:
        for server in self.servers:
            server.close()
        for task in list(self.tasks):
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(*self.tasks, return_exceptions=True)
        for server in self.servers:
            await server.wait_closed()


def address(text: str) -> Address:
    host, _, port = text.rpartition(":")
    return host, int(port)


async def serve(
    routes: dict[Address, Address], latency: Latency, seed: str, slow: bool = True
) -> None:
    """Relay until SIGTERM or SIGINT, then print what was relayed; SIGUSR1 makes it
    slow, SIGUSR2 fast (the handlers are in place before anything listens, so a
    caller that has reached a route may signal)."""
    relay = Relay(routes, latency, seed, slow=slow)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    def switch(slow: bool) -> None:
        relay.slow = slow
        print(f"relay: {'slow' if slow else 'fast'}", flush=True)

    loop.add_signal_handler(signal.SIGUSR1, switch, True)
    loop.add_signal_handler(signal.SIGUSR2, switch, False)
    await relay.start()
    print(f"relay listening on {relay.ports()}", flush=True)
    await stop.wait()
    await relay.aclose()
    held = sorted(relay.held) or [0.0]
    delayed = sum(1 for draw in relay.draws if draw > 0)
    print(
        f"relay: {relay.connections} connections, {len(relay.held)} chunks "
        f"({delayed} delayed), held "
        f"min {held[0]:.3f} s, median {held[len(held) // 2]:.3f} s, max {held[-1]:.3f} s",
        flush=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--jitter", type=float, default=0.05)
    parser.add_argument("--seed", default="relay")
    parser.add_argument("--fast", action="store_true", help="start without the delay")
    parser.add_argument("routes", nargs="+", help="LISTEN_HOST:PORT=TARGET_HOST:PORT")
    args = parser.parse_args(argv)
    routes = {}
    for route in args.routes:
        listen, _, target = route.partition("=")
        routes[address(listen)] = address(target)
    asyncio.run(serve(routes, Latency(args.delay, args.jitter), args.seed, not args.fast))
    return 0


if __name__ == "__main__":
    sys.exit(main())
