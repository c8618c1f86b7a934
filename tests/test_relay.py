"""The delaying relay of the network-fault tests (`tests/support/relay.py`) delays by
what it says, keeps each connection's order, and passes ends and failures on.

Measured on the loopback through real sockets, in this process. What is checked is what
the relay guarantees whatever the machine's load: no chunk arrives before its drawn
delay (a lower bound per way, and so per round trip), the draws lie in the range asked
for and spread over it, bytes come out in the order they went in, and the process's
signals switch the delay on and off. How much longer a
busy machine holds them is printed, not asserted.
"""

from __future__ import annotations

import asyncio
import itertools
import signal
import sys
import time

from tests.support.relay import Latency, Relay

DELAY, JITTER = 0.2, 0.05


async def echo_server(arrivals: list[tuple[float, bytes]]) -> asyncio.Server:
    """Echoes every line at once, noting when each arrived."""

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while line := await reader.readline():
            arrivals.append((time.monotonic(), line))
            writer.write(line)
            await writer.drain()
        writer.close()

    return await asyncio.start_server(echo, "127.0.0.1", 0)


async def relayed(server: asyncio.Server, latency: Latency) -> tuple[Relay, int]:
    target = server.sockets[0].getsockname()[:2]
    relay = await Relay({("127.0.0.1", 0): target}, latency).start()
    return relay, relay.ports()[0]


async def test_each_way_is_delayed_by_at_least_its_draw() -> None:
    arrivals: list[tuple[float, bytes]] = []
    server = await echo_server(arrivals)
    relay, port = await relayed(server, Latency(DELAY, JITTER))
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    sent, trips = [], []
    try:
        for n in range(15):
            line = f"ping {n}\n".encode()
            sent.append(time.monotonic())
            writer.write(line)
            await writer.drain()
            assert await reader.readline() == line
            trips.append(time.monotonic() - sent[-1])
    finally:
        writer.close()
        await relay.aclose()
        server.close()
    one_way = [at - start for (at, _), start in zip(arrivals, sent, strict=True)]
    low, high = DELAY - JITTER, DELAY + JITTER
    assert all(low <= d <= high for d in relay.draws), relay.draws
    assert max(relay.draws) - min(relay.draws) > JITTER, "the draws do not spread"
    assert min(relay.held) >= low
    assert min(one_way) >= low, one_way
    assert min(trips) >= 2 * low, trips
    trips.sort()
    print(
        f"\nrelay {DELAY}±{JITTER} s: one way min {min(one_way):.3f} s, round trip min "
        f"{trips[0]:.3f} s median {trips[len(trips) // 2]:.3f} s max {trips[-1]:.3f} s"
    )


async def test_a_connection_keeps_its_order_under_jitter() -> None:
    """Chunks sent faster than the jitter: a later chunk drawn a shorter delay than the
    one before still comes out after it."""
    arrivals: list[tuple[float, bytes]] = []
    server = await echo_server(arrivals)
    relay, port = await relayed(server, Latency(0.05, 0.045))
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [f"line {n}\n".encode() for n in range(200)]
    try:
        for line in lines:
            writer.write(line)
            await writer.drain()
            await asyncio.sleep(0.002)  # each its own chunk, mostly
        got = [await reader.readline() for _ in lines]
    finally:
        writer.close()
        await relay.aclose()
        server.close()
    assert [line for _, line in arrivals] == lines
    assert got == lines
    draws = relay.draws
    overtaking = sum(1 for a, b in itertools.pairwise(draws) if b < a - 0.01)
    assert overtaking > 10, "no chunk was drawn short enough to overtake: not tested"


async def test_an_end_and_a_refusal_pass_through() -> None:
    """A half close reaches the far side (which answers and closes: both ends see it);
    a target that refuses the connection closes the relayed one."""
    arrivals: list[tuple[float, bytes]] = []
    server = await echo_server(arrivals)
    relay, port = await relayed(server, Latency(0.02))
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"last\n")
    writer.write_eof()
    assert await reader.read() == b"last\n"  # echoed, then the server's own end
    writer.close()
    await relay.aclose()
    address = server.sockets[0].getsockname()[:2]
    server.close()
    await server.wait_closed()
    refused = await Relay({("127.0.0.1", 0): address}, Latency(0.02)).start()
    reader, writer = await asyncio.open_connection("127.0.0.1", refused.ports()[0])
    try:
        assert await asyncio.wait_for(reader.read(), 10) == b""
    finally:
        writer.close()
        await refused.aclose()


async def round_trips(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, count: int
) -> list[float]:
    """`count` lines, each echoed before the next; each one's round trip."""
    trips = []
    for n in range(count):
        line = f"ping {n}\n".encode()
        sent = time.monotonic()
        writer.write(line)
        await writer.drain()
        assert await asyncio.wait_for(reader.readline(), 30) == line
        trips.append(time.monotonic() - sent)
    return trips


async def test_the_process_turns_slow_and_fast_on_signals() -> None:
    """The relay as the fault schedule runs it: started `--fast`, SIGUSR1 makes it hold
    every chunk its delay (each round trip at least twice the delay, on the connection
    already open), SIGUSR2 passes chunks on at once again; its report counts only the
    chunks of the slow while as delayed."""
    arrivals: list[tuple[float, bytes]] = []
    server = await echo_server(arrivals)
    target = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.support.relay", "--delay", "1", "--jitter", "0",
        "--fast", f"127.0.0.1:0={target}", stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    try:
        listening = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        port = int(listening.rpartition("[")[2].rstrip("]\n"))
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        fast = await round_trips(reader, writer, 5)
        process.send_signal(signal.SIGUSR1)
        assert await asyncio.wait_for(process.stdout.readline(), 30) == b"relay: slow\n"
        slow = await round_trips(reader, writer, 3)
        process.send_signal(signal.SIGUSR2)
        assert await asyncio.wait_for(process.stdout.readline(), 30) == b"relay: fast\n"
        fast += await round_trips(reader, writer, 5)
        writer.write_eof()  # the end passes through; the echo server's own comes back
        assert await asyncio.wait_for(reader.read(), 30) == b""
        writer.close()
        process.send_signal(signal.SIGTERM)
        report = (await asyncio.wait_for(process.stdout.read(), 30)).decode()
        assert await process.wait() == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        server.close()
    assert min(slow) >= 2.0, slow
    assert "(6 delayed)" in report, report  # 3 lines each way, nothing else
    print(
        f"\nrelay switched: fast round trips max {max(fast):.3f} s, slow (1 s each way) "
        f"min {min(slow):.3f} s; {report.strip()}"
    )
