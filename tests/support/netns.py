"""Separate hosts on one machine: Linux network namespaces joined by veth pairs.

`Network` makes a bridge in the root namespace (the players' side, `10.241.N.1`) and,
per host, a namespace of its own with one end of a veth pair (`10.241.N.10+i`), the
other end on the bridge; N is picked free per network, so parallel tests never share a
subnet. Only loopback and these namespaces' own addresses are ever targets.

Faults are `iptables` rules inside a host's namespace (each namespace has tables of its
own): `cut` drops everything between a host and an address both ways until `heal`;
`lossy` drops a share of the packets at random (the `statistic` match). This kernel has
no `netem` qdisc: latency comes from a relaying process on a host of its own
(`tests/support/relay.py`, `FaultCluster.through_relay`).

Processes are started inside a namespace with `ip netns exec` (which execs the command:
the PID is the process's own). `close` kills them by PID and deletes the veth pairs, the
namespaces and the bridge by name; the `network` fixture always calls it, even after a
failure.
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


@dataclass
class Network:
    """A bridge, the hosts on it, and the processes started in them."""

    tag: str = field(default_factory=lambda: f"snf{os.getpid() % 10000}{random.randrange(100)}")
    hosts: dict[str, Host] = field(default_factory=dict)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    octet: int = 0

    @property
    def bridge(self) -> str:
        return f"{self.tag}br"

    @property
    def root(self) -> str:
        """The root namespace's address (where the players are)."""
        return f"{SUBNET}.{self.octet}.1"

    def start(self) -> None:
        taken = ip("-4", "addr")
        free = [n for n in range(1, 255) if f"{SUBNET}.{n}." not in taken]
        self.octet = random.choice(free)
        ip("link", "add", self.bridge, "type", "bridge")
        ip("addr", "add", f"{self.root}/24", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")

    def host(self, label: str) -> Host:
        """A new namespace on the bridge."""
        number = len(self.hosts) + 1
        namespace = f"{self.tag}-{label}"
        outer, inner = f"{self.tag}v{number}", f"{self.tag}p{number}"
        address = f"{SUBNET}.{self.octet}.{10 + number}"
        ip("netns", "add", namespace)
        host = self.hosts[label] = Host(label, namespace, address)
        ip("link", "add", outer, "type", "veth", "peer", "name", inner)
        ip("link", "set", inner, "netns", namespace)
        ip("link", "set", outer, "master", self.bridge)
        ip("link", "set", outer, "up")
        ip("link", "set", "lo", "up", namespace=namespace)
        ip("addr", "add", f"{address}/24", "dev", inner, namespace=namespace)
        ip("link", "set", inner, "up", namespace=namespace)
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
        """Kill every process started here (by PID), delete the namespaces and the
        bridge (by name); the veth pairs go with their namespaces."""
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
        for number, host in enumerate(self.hosts.values(), 1):
            # The namespace itself may outlive its name a while (a socket of it still
            # closing): its veth pair is deleted by name too, not left to its end.
            ip("link", "del", f"{self.tag}v{number}", check=False)
            ip("netns", "del", host.namespace, check=False)
        if self.octet:
            ip("link", "del", self.bridge, check=False)


@pytest.fixture
def network() -> Iterator[Network]:
    """A network of the test's own (skipped, or failed under
    `SCHMIER_TEST_REQUIRE=netns`, where namespaces cannot be made)."""
    problem = netns_problem()
    if problem:
        missing("netns", problem)
    with netlock.plumbing():  # no browser test runs while the root namespace changes
        net = Network()
        try:
            net.start()
            yield net
        finally:
            net.close()
