"""Separate hosts on one machine: Linux network namespaces joined by veth pairs.

An `Uplink` (one per worker process of the suite) is a switch namespace holding a
bridge, joined to the root namespace by one veth pair: the players' side, `10.241.N.1`
in the root namespace (N picked free, so parallel workers never share a subnet). A
test's `Network` puts each of its hosts in a namespace of its own with one end of a veth
pair (`10.241.N.11` and on, handed out in turn), the other end on the switch's bridge:
both ends are made inside namespaces, so the root namespace changes only when a
worker's uplink is made or removed. Only loopback and these namespaces' own addresses
are ever targets.

Faults are `iptables` rules inside a host's namespace (each namespace has tables of its
own): `cut` drops everything between a host and an address both ways until `heal`;
`lossy` drops a share of the packets at random (the `statistic` match). This kernel has
no `netem` qdisc: latency comes from a relaying process on a host of its own
(`tests/support/relay.py`, `FaultCluster.through_relay`).

Processes are started inside a namespace with `ip netns exec` (which execs the command:
the PID is the process's own). `close` kills them by PID and deletes the veth pairs and
the namespaces by name; the fixtures always call it, even after a failure.
`SCHMIER_TEST_REQUIRE=netns` makes a missing capability fail instead of skip.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import netlock
from tests.support.requirements import missing

SUBNET = "10.241"


def ip(*args: str, namespace: str | None = None, check: bool = True) -> str:
    """Run `ip args` (inside `namespace` when given); its output."""
    return run(["ip", *args], namespace, check)


def run(argv: list[str], namespace: str | None = None, check: bool = True) -> str:
    """Run `argv` (inside `namespace` when given); its output."""
    command = argv if namespace is None else ["ip", "netns", "exec", namespace, *argv]
    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr.strip()}")
    return done.stdout


def netns_problem() -> str | None:
    """None when this process may make namespaces, veth pairs and iptables rules."""
    if os.geteuid() != 0:
        return "not root"
    for tool in ("ip", "iptables", "redis-server"):
        if shutil.which(tool) is None:
            return f"no {tool}"
    probe = f"snfprobe{os.getpid()}"
    try:
        ip("netns", "add", probe)
        run(["iptables", "-L", "-n"], probe)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    finally:
        ip("netns", "del", probe, check=False)
    return None


@dataclass
class Host:
    """One namespace: its label, its name, its address on the network."""

    label: str
    namespace: str
    address: str


def _tag() -> str:
    return f"snf{os.getpid() % 10000}{random.randrange(100)}"


@dataclass
class Uplink:
    """The players' side of a worker's networks: a switch namespace holding the bridge,
    joined to the root namespace by one veth pair whose root end is `root`.

    It is the only part of the networks in the root namespace, made once for the
    worker's first network and removed when the worker ends, each with the network
    lock held exclusively: every test's hosts are made and removed inside namespaces
    (their veth pairs created in the switch namespace with the other end in the
    host's), which the root namespace, and a browser in it, never sees."""

    tag: str = field(default_factory=_tag)
    octet: int = 0
    # Host addresses are handed out in turn, so that a test's host never takes an
    # address a namespace of an earlier test may still hold while it closes.
    _last: int = 10

    @property
    def switch(self) -> str:
        return f"{self.tag}-switch"

    @property
    def root(self) -> str:
        """The root namespace's address (where the players are)."""
        return f"{SUBNET}.{self.octet}.1"

    def start(self) -> None:
        taken = ip("-4", "addr")
        free = [n for n in range(1, 255) if f"{SUBNET}.{n}." not in taken]
        self.octet = random.choice(free)
        ip("netns", "add", self.switch)
        ip("link", "add", "bridge", "type", "bridge", namespace=self.switch)
        ip("link", "set", "bridge", "up", namespace=self.switch)
        outer = f"{self.tag}up"
        ip("link", "add", outer, "type", "veth", "peer", "name", "uplink", "netns", self.switch)
        ip("link", "set", "uplink", "master", "bridge", namespace=self.switch)
        ip("link", "set", "uplink", "up", namespace=self.switch)
        ip("addr", "add", f"{self.root}/24", "dev", outer)
        ip("link", "set", outer, "up")

    def next_address(self) -> str:
        self._last = self._last + 1 if self._last < 254 else 11
        return f"{SUBNET}.{self.octet}.{self._last}"

    def close(self) -> None:
        """Delete the root end (its pair goes with it) and the switch namespace."""
        if self.octet:
            ip("link", "del", f"{self.tag}up", check=False)
        ip("netns", "del", self.switch, check=False)


@dataclass
class Network:
    """A test's hosts on the worker's uplink, and the processes started in them."""

    uplink: Uplink
    tag: str = field(default_factory=_tag)
    hosts: dict[str, Host] = field(default_factory=dict)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def root(self) -> str:
        """The root namespace's address (where the players are)."""
        return self.uplink.root

    def host(self, label: str) -> Host:
        """A new namespace on the bridge."""
        number = len(self.hosts) + 1
        namespace = f"{self.tag}-{label}"
        address = self.uplink.next_address()
        ip("netns", "add", namespace)
        host = self.hosts[label] = Host(label, namespace, address)
        switch = self.uplink.switch
        port = f"{self.tag}p{number}"
        ip(
            "link",
            "add",
            port,
            "type",
            "veth",
            "peer",
            "name",
            "eth0",
            "netns",
            namespace,
            namespace=switch,
        )
        ip("link", "set", port, "master", "bridge", namespace=switch)
        ip("link", "set", port, "up", namespace=switch)
        ip("link", "set", "lo", "up", namespace=namespace)
        ip("addr", "add", f"{address}/24", "dev", "eth0", namespace=namespace)
        ip("link", "set", "eth0", "up", namespace=namespace)
        return host

    def spawn(
        self, host: Host, argv: list[str], env: Mapping[str, str], log: Path, cwd: Path
    ) -> subprocess.Popen[bytes]:
        """Start `argv` inside `host`'s namespace, its stdout and stderr to `log`."""
        with log.open("ab") as sink:
            process = subprocess.Popen(
                ["ip", "netns", "exec", host.namespace, *argv],
                env=dict(env),
                cwd=cwd,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        self.processes.append(process)
        return process

    def _rules(self, host: Host, other: str, extra: list[str]) -> list[list[str]]:
        return [
            ["INPUT", "-s", other, *extra, "-j", "DROP"],
            ["OUTPUT", "-d", other, *extra, "-j", "DROP"],
        ]

    def cut(self, host: Host, other: str) -> None:
        """Drop every packet between `host` and the address `other`, both ways."""
        for rule in self._rules(host, other, []):
            run(["iptables", "-I", *rule], host.namespace)

    def heal(self, host: Host, other: str) -> None:
        """Undo `cut`."""
        for rule in self._rules(host, other, []):
            run(["iptables", "-D", *rule], host.namespace)

    def lossy(self, host: Host, other: str, share: float) -> None:
        """Drop `share` of the packets between `host` and `other`, at random."""
        extra = ["-m", "statistic", "--mode", "random", "--probability", str(share)]
        for rule in self._rules(host, other, extra):
            run(["iptables", "-I", *rule], host.namespace)

    def clear(self, host: Host) -> None:
        """Drop every rule of `host` (undo any `cut` and `lossy`)."""
        run(["iptables", "-F"], host.namespace)

    def close(self) -> None:
        """Kill every process started here (by PID), delete the namespaces (by name)."""
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
        for number, host in enumerate(self.hosts.values(), 1):
            # The namespace itself may outlive its name a while (a socket of it still
            # closing): its veth pair is deleted by name too, not left to its end.
            ip("link", "del", f"{self.tag}p{number}", namespace=self.uplink.switch, check=False)
            ip("netns", "del", host.namespace, check=False)


@pytest.fixture(scope="session")
def uplink() -> Iterator[Uplink]:
    """The worker's players' side (skipped, or failed under `SCHMIER_TEST_REQUIRE=netns`,
    where namespaces cannot be made). The root namespace changes only while it is made
    and removed, each under the network lock: no browser test runs meanwhile."""
    problem = netns_problem()
    if problem:
        missing("netns", problem)
    made = Uplink()
    try:
        with netlock.plumbing():
            made.start()
        yield made
    finally:
        with netlock.plumbing():
            made.close()


@pytest.fixture
def network(uplink: Uplink) -> Iterator[Network]:
    """A network of the test's own on the worker's uplink."""
    net = Network(uplink)
    try:
        yield net
    finally:
        net.close()
