"""The image and the compose stack, built and run for real: podman, not a text check.

What runs here, as root with Debian's podman (CONTAINERS_CONF=tools/containers.conf
unless set):

- the image is built from the Dockerfile (`podman build --pull=never --format docker`)
  and run: the image's own HEALTHCHECK passes (`podman healthcheck run`), the server
  runs as uid 10001 / gid 10001, serves the page and `POST /api/rooms`, and a room is
  played over a WebSocket; the final image holds no compiler, no pip, no hatchling in
  its environment;
- the health checks through podman's Docker-compatible API (what `docker-compose` and
  the Docker SDKs talk to; it splits exec-form commands on whitespace): the image's own
  check and the compose file's pass, and fail while Redis is unreachable, where the
  server logs one warning, not a traceback twice a second;
- `docker-compose.yml` under podman-compose (the locked release, from the test extra):
  a room survives a restart of the app container, a stop and start of the Redis
  container (the app is unhealthy meanwhile) and a `down` + `up` that keeps the volume,
  and each time the game continues from the view it had.

What the stand-ins prove, and what they do not. No container registry is reachable on
the CI machine, so `tools/container-bases` builds the two base images with debootstrap
from Debian's package registry and imports them under the names the files pin:
`python:3.11.14-slim-bookworm` is Debian bookworm's Python **3.11.2** with Debian's pip,
and `redis:7.4.2-alpine` is Debian's Redis **7.0** on glibc with an entrypoint imitating
the official one (runs as `redis`, data in /data, protected mode off). So this proves the
Dockerfile's instructions (the multi-stage build, the hash-checked installs from PyPI,
the user, the health check, the start command) and the compose file's wiring (service
names, environment, the volume, restart and stop settings) on podman. It does not prove
that the official images behave the same (their Python patch release, their file
layout, Alpine's Redis, their sizes), nor anything pulled from a registry (`--pull=never`:
a wrong tag or digest would pass here), nor Docker itself (Docker Engine, BuildKit and
Compose v2 are not run; podman 4.3 and podman-compose are), nor the periodic health
checks and `depends_on: condition: service_healthy` (podman 4.3 runs health checks from
systemd timers, which this machine lacks, so podman-compose starts the app without
waiting; the checks are run by hand here, and the app copes with a late Redis).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support import loopback, netlock
from tests.support.requirements import missing
from tests.support.servers import Client, Player, RunningServer, free_port, seat_table
from tests.test_restart import FIELDS

pytestmark = [pytest.mark.container, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parent.parent
HEALTHCHECK = ["python", "-m", "schmier.healthcheck"]

FAST = {
    "SCHMIER_BOT_DELAY": "0",
    "SCHMIER_HAND_PAUSE": "0",
    "SCHMIER_TRICK_PAUSE": "0",
    # Nobody plays for a seat whose player is away between two restarts, so the view
    # after the restart must be the one before it.
    "SCHMIER_AUTOPLAY_AFTER": "3600",
    "SCHMIER_FRAME_RATE": "1000",
    "SCHMIER_FRAME_BURST": "1000",
    "SCHMIER_CREATE_RATE": "1000",
    "SCHMIER_JOIN_RATE": "1000",
}
"""The app's settings in these containers: no delays, limits out of the way."""


# ------------------------------------------------------------------ podman


class Podman:
    """podman and podman-compose, with this run's CONTAINERS_CONF."""

    def __init__(self) -> None:
        self.env = {**os.environ}
        self.env.setdefault("CONTAINERS_CONF", str(ROOT / "tools" / "containers.conf"))
        # podman-compose's own builds (`up --build`) must keep the HEALTHCHECK too.
        self.env["BUILDAH_FORMAT"] = "docker"

    def run(
        self, *args: str, check: bool = True, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            ["podman", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=self.env,
            cwd=ROOT,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"podman {' '.join(args)}: {result.returncode}\n{result.stderr}")
        return result

    def compose(
        self, files: list[Path], project: str, *args: str, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "podman_compose", "-p", project]
        for file in files:
            command += ["-f", str(file)]
        result = subprocess.run(
            [*command, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=self.env,
            cwd=ROOT,
        )
        if result.returncode != 0:
            raise AssertionError(f"podman-compose {' '.join(args)}: {result.stderr[-3000:]}")
        return result

    def healthy(self, container: str) -> bool:
        """`podman healthcheck run`: the container's own check, run now."""
        return self.run("healthcheck", "run", container, check=False).returncode == 0

    def inspect(self, container: str) -> dict[str, Any]:
        found: list[dict[str, Any]] = json.loads(self.run("container", "inspect", container).stdout)
        return found[0]

    def inspect_image(self, image: str) -> dict[str, Any]:
        found: list[dict[str, Any]] = json.loads(self.run("image", "inspect", image).stdout)
        return found[0]


@pytest.fixture(scope="module")
def podman() -> Iterator[Podman]:
    """podman, debootstrap and podman-compose, as root; the stand-in bases imported.

    Held with the network lock for the whole module (`plumbing`): containers, builds and compose
    networks put veth ends and bridges into the root namespace, and Chromium aborts
    every load in flight when it sees such a change (tests/support/netlock.py)."""
    for tool in ("podman", "debootstrap"):
        if shutil.which(tool) is None:
            missing("container", f"{tool} is not installed (Debian: apt-get install {tool})")
    if os.geteuid() != 0:
        missing("container", "the stand-in base images are built with debootstrap, as root")
    try:
        import podman_compose  # noqa: F401
    except ImportError as exc:
        missing("container", f"podman-compose is not installed (the test extra): {exc}")
    tools = Podman()
    info = tools.run("info", check=False)
    if info.returncode != 0:
        missing("container", f"podman does not run here: {info.stderr[-500:]}")
    bases = subprocess.run(
        ["bash", str(ROOT / "tools" / "container-bases")],
        capture_output=True,
        text=True,
        timeout=900,
        env=tools.env,
    )
    assert bases.returncode == 0, bases.stderr[-3000:]
    with netlock.plumbing():
        yield tools


@pytest.fixture(scope="module")
def image(podman: Podman) -> Iterator[str]:
    """The image built from the Dockerfile, under a tag of this run's own."""
    name = f"localhost/schmier-test:{uuid.uuid4().hex[:10]}"
    podman.run("build", "--pull=never", "--format", "docker", "-t", name, ".", timeout=600)
    yield name
    podman.run("rmi", "--force", name, check=False)


@pytest.fixture
def containers(podman: Podman) -> Iterator[Callable[..., str]]:
    """Start containers (`podman run -d`); all of them removed, with volumes, afterwards."""
    started: list[str] = []

    def start(image: str, *args: str, env: dict[str, str] | None = None) -> str:
        name = f"schmier-test-{uuid.uuid4().hex[:10]}"
        options = [f"--env={key}={value}" for key, value in (env or {}).items()]
        started.append(name)
        podman.run("run", "-d", "--name", name, *options, *args, image)
        return name

    yield start
    for name in started:
        podman.run("rm", "--force", "--volumes", name, check=False)


def wait_for(check: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def health(base_url: str) -> int | None:
    try:
        return loopback.get(f"{base_url}/healthz", timeout=3).status_code
    except httpx.HTTPError:
        return None


def problems(log: str) -> str:
    """The warnings and errors of a server log, without the tracebacks' bodies."""
    return "\n".join(line for line in log.splitlines() if " WARNING " in line or " ERROR " in line)


def in_container(podman: Podman, name: str, script: str) -> str:
    return podman.run("exec", name, "sh", "-c", script).stdout


# ------------------------------------------------------------------ the image


async def test_the_image_runs_healthy_as_10001_and_serves_a_game(
    podman: Podman, image: str, containers: Callable[..., str]
) -> None:
    built = podman.inspect_image(image)
    # Kept only in Docker's image format (an OCI image drops it; docs/self-hosting.md).
    assert built["Healthcheck"]["Test"] == ["CMD", *HEALTHCHECK]
    assert built["Config"]["User"] == "schmier:schmier"

    port = free_port()
    name = containers(image, "-p", f"127.0.0.1:{port}:8000", env=FAST)
    server = RunningServer(port)
    wait_for(lambda: health(server.base_url) == 200, "/healthz to answer 200")
    assert podman.healthy(name)

    # The server itself (pid 1), not only a shell exec'd next to it, is 10001/10001.
    status = in_container(podman, name, "grep -E '^(Uid|Gid):' /proc/1/status")
    assert status.split() == ["Uid:", *["10001"] * 4, "Gid:", *["10001"] * 4], status
    assert in_container(podman, name, "id -u; id -g").split() == ["10001", "10001"]

    # No build tools left: no compiler in the image, no pip or build backend in the
    # environment the server runs from (the base's own pip stays, as in the official one).
    assert in_container(podman, name, "command -v gcc cc c++ make || true").strip() == ""
    bins = in_container(podman, name, "ls /opt/schmier/bin").split()
    tools = [b for b in bins if b.startswith(("pip", "hatch", "wheel")) or b in ("uv", "uvx")]
    assert "python" in bins and not tools, bins
    probe = (
        "import importlib.util as u; print([m for m in ('pip', 'hatchling', 'setuptools',"
        " 'wheel', 'uv', 'pytest') if u.find_spec(m)])"
    )
    assert in_container(podman, name, f'/opt/schmier/bin/python -c "{probe}"').strip() == "[]"
    megabytes = int(in_container(podman, name, "du -sm /opt/schmier").split()[0])
    # About 55 MB before the archive, whose database stack (SQLAlchemy with its compiled
    # extensions, asyncpg, Alembic, aiosqlite, greenlet) adds about 45 MB: 100 MB then.
    assert megabytes < 140, f"/opt/schmier holds {megabytes} MB"

    async with loopback.async_client(base_url=server.base_url) as http:
        page = await http.get("/")
        assert page.status_code == 200 and "<title>Schmier</title>" in page.text
        created = await http.post("/api/rooms", json={"variant": "schmier6"})
        assert created.status_code == 201, created.text

    code, clients, _, _ = await seat_table(server, "wisconsin4", [0])
    try:
        player = Player(clients[0], random.Random(19))
        before = clients[0].state
        assert before is not None
        after = await player.play_until(lambda v: player.actions >= 3 and v["turn"] == [0])
        assert after["seq"] > before["seq"] and player.actions >= 3
    finally:
        await clients[0].close()
    assert (await server.room(code))["phase"] != "lobby"


# ------------------------------------------------------------------ the Docker API


class DockerApi:
    """podman's Docker-compatible API on a socket of this test's own."""

    def __init__(self, podman: Podman, socket: Path) -> None:
        self.podman = podman
        self.process = subprocess.Popen(
            ["podman", "system", "service", "--time=0", f"unix://{socket}"],
            env=podman.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.http = httpx.Client(
            transport=httpx.HTTPTransport(uds=str(socket)), base_url="http://podman/v1.41"
        )
        self.created: list[str] = []
        try:
            wait_for(self._answers, "podman system service to answer", timeout=30)
        except BaseException:
            self.close()
            raise

    def _answers(self) -> bool:
        try:
            return self.http.get("/_ping").status_code == 200
        except httpx.HTTPError:
            return False

    def start(self, body: dict[str, Any]) -> str:
        """Create and start a container as a Docker client does; its id."""
        answer = self.http.post("/containers/create", json=body)
        assert answer.status_code == 201, answer.text
        container = str(answer.json()["Id"])
        self.created.append(container)
        started = self.http.post(f"/containers/{container}/start")
        assert started.status_code == 204, started.text
        return container

    def close(self) -> None:
        for container in self.created:
            self.podman.run("rm", "--force", "--volumes", container, check=False)
        self.http.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def docker_api(podman: Podman, tmp_path: Path) -> Iterator[DockerApi]:
    api = DockerApi(podman, tmp_path / "podman.sock")
    yield api
    api.close()


def test_health_checks_through_the_docker_compatible_api(
    podman: Podman, image: str, docker_api: DockerApi
) -> None:
    """What docker-compose sends (exec form, `CMD` first) must reach Python unsplit."""
    compose_check = ["CMD", *HEALTHCHECK]
    interval = {"Interval": 30 * 10**9, "Timeout": 5 * 10**9, "Retries": 3}
    fast = [f"{key}={value}" for key, value in FAST.items()]
    own = docker_api.start({"Image": image, "Env": fast})
    composed = docker_api.start(
        {"Image": image, "Env": fast, "Healthcheck": {"Test": compose_check, **interval}}
    )
    # Redis nowhere: the server starts, answers 503, and its check fails.
    cut_off = docker_api.start(
        {
            "Image": image,
            "Env": [*fast, "SCHMIER_REDIS_URL=redis://127.0.0.1:1/0", "SCHMIER_LOG_JSON=1"],
            "Healthcheck": {"Test": compose_check, **interval},
        }
    )
    for container in (own, composed, cut_off):
        stored = podman.inspect(container)["Config"]["Healthcheck"]["Test"]
        assert stored == compose_check, stored
    wait_for(lambda: podman.healthy(own), "the image's own check to pass")
    wait_for(lambda: podman.healthy(composed), "the compose file's check to pass")

    def logs() -> str:
        result = podman.run("logs", cut_off)
        return result.stdout + result.stderr

    wait_for(lambda: "cluster.start" in logs(), "the cut-off server to start")
    time.sleep(3)  # half a dozen of the listener's retries
    assert not podman.healthy(cut_off)
    log = logs()
    assert log.count('"event": "store.unavailable"') == 1, log
    assert "Traceback" not in log


# ------------------------------------------------------------------ compose


def seat0_to_play(view: dict[str, Any]) -> bool:
    return bool(view["turn"] == [0] and view["legal"])


class Stack:
    """docker-compose.yml under podman-compose, as project `name`, on a port of its own."""

    def __init__(self, podman: Podman, image: str, tmp_path: Path) -> None:
        self.podman = podman
        self.name = f"schmier-test-{uuid.uuid4().hex[:10]}"
        self.port = free_port()
        override = tmp_path / "override.yml"
        environment = "".join(f'      {key}: "{value}"\n' for key, value in FAST.items())
        # The image under a tag of this test's own (compose builds it: `up --build`),
        # published on loopback on a free port instead of every interface's 8000.
        override.write_text(
            "services:\n"
            "  app:\n"
            f"    image: {image}-compose\n"
            "    ports: !override\n"
            f'      - "127.0.0.1:{self.port}:8000"\n'
            "    environment:\n" + environment
        )
        self.image = f"{image}-compose"
        self.files = [ROOT / "docker-compose.yml", override]
        self.server = RunningServer(self.port)

    def compose(self, *args: str) -> str:
        return self.podman.compose(self.files, self.name, *args).stdout

    def container(self, service: str) -> str:
        names = self.podman.run(
            "ps", "--all", "--format", "{{.Names}}",
            "--filter", f"label=io.podman.compose.project={self.name}",
            "--filter", f"label=io.podman.compose.service={service}",
        ).stdout.split()  # fmt: skip
        assert len(names) == 1, names
        return names[0]

    def started(self, service: str) -> str:
        """When the service's container (its current process) started."""
        return str(self.podman.inspect(self.container(service))["State"]["StartedAt"])

    def wait_healthy(self) -> None:
        wait_for(lambda: health(self.server.base_url) == 200, "the app to answer 200")
        assert self.podman.healthy(self.container("app"))
        assert self.podman.healthy(self.container("redis"))

    def remove(self) -> None:
        """Everything of this project: containers, pod, volumes, network, image."""
        label = f"label=io.podman.compose.project={self.name}"
        run = self.podman.run
        for item in run("ps", "--all", "--quiet", "--filter", label, check=False).stdout.split():
            run("rm", "--force", "--time=0", "--volumes", item, check=False)
        with contextlib.suppress(AssertionError, subprocess.TimeoutExpired):
            self.podman.compose(self.files, self.name, "down", "--volumes", timeout=120)
        for kind in ("volume", "network"):
            for item in run(kind, "ls", "--quiet", "--filter", label, check=False).stdout.split():
                run(kind, "rm", "--force", item, check=False)
        run("pod", "rm", "--force", "--ignore", f"pod_{self.name}", check=False)
        run("rmi", "--force", self.image, check=False)


@pytest.fixture
def stack(podman: Podman, image: str, tmp_path: Path) -> Iterator[Stack]:
    made = Stack(podman, image, tmp_path)
    try:
        yield made
    finally:
        made.remove()


async def resume(stack: Stack, code: str, token: str, before: dict[str, Any]) -> dict[str, Any]:
    """Reconnect seat 0 after a restart: the same view; then play on a few actions."""
    info = await stack.server.room(code)
    assert info["phase"] == before["view"]["phase"]
    client = await Client.seated(stack.server, code, token)
    try:
        assert client.state is not None
        assert client.state["seq"] >= before["seq"]
        for field in FIELDS:
            assert client.state["view"][field] == before["view"][field], field
        resumed = client.state["seq"]
        # Healthy means Redis answers; the room itself may resume up to a probe later
        # (`store/health.py`: every half second), and until then the protocol answers an
        # action `store_unavailable`, then `resumed` (one CI run met exactly this). Such
        # an action is tried again on `resumed`; any other refusal fails the test.
        player = Player(client, random.Random(before["seq"]), errors_ok=True)
        after = await player.play_until(lambda v: player.actions >= 2 and seat0_to_play(v))
        assert after["seq"] > resumed
        assert all(e["code"] == "store_unavailable" for e in player.errors), player.errors
        return after
    finally:
        await client.close()


async def test_compose_stack_keeps_a_room_through_restarts(stack: Stack) -> None:
    stack.compose("up", "-d", "--build")
    # Built by podman-compose in Docker's format (BUILDAH_FORMAT), the check is kept.
    assert stack.podman.inspect_image(stack.image)["Healthcheck"]["Test"][1:] == HEALTHCHECK
    stack.wait_healthy()
    app = stack.podman.inspect(stack.container("app"))
    assert app["Config"]["Healthcheck"]["Test"] == ["CMD", *HEALTHCHECK]
    assert app["HostConfig"]["RestartPolicy"]["Name"] == "unless-stopped"

    code, clients, _, tokens = await seat_table(stack.server, "wisconsin4", [0])
    player = Player(clients[0], random.Random(12))
    state = await player.play_until(lambda v: player.actions >= 3 and seat0_to_play(v))
    await clients[0].close()

    # The app container restarted (SIGTERM, then a new process on the same Redis).
    started = stack.started("app")
    stack.compose("restart", "app")
    stack.wait_healthy()
    assert stack.started("app") != started
    state = await resume(stack, code, tokens[0], state)

    # Redis stopped: the app is unhealthy, and says so once; started: all is back.
    stack.compose("stop", "redis")
    app_name = stack.container("app")
    wait_for(lambda: health(stack.server.base_url) == 503, "/healthz to answer 503")
    assert not stack.podman.healthy(app_name)
    started = stack.started("redis")
    stack.compose("start", "redis")
    stack.wait_healthy()
    # A new Redis process: the room comes from its append-only file on the volume.
    assert stack.started("redis") != started
    state = await resume(stack, code, tokens[0], state)

    log = stack.podman.run("logs", app_name)
    assert "Traceback" not in log.stdout + log.stderr, problems(log.stdout + log.stderr)

    # down + up: new containers, the same volume. The app is stopped first, as Docker
    # Compose does (dependents first); podman-compose stops every service at once, and
    # an app whose Redis vanished mid-shutdown waits for the lookup of its name, which on
    # the CI machine takes ~35 s, past the 30 s grace period (docs/self-hosting.md).
    stack.compose("stop", "app")
    assert stack.podman.inspect(app_name)["State"]["ExitCode"] == 0, "not a graceful stop"
    stack.compose("down")
    volume = f"{stack.name}_redis-data"
    assert stack.podman.run("volume", "exists", volume, check=False).returncode == 0
    stack.compose("up", "-d")
    stack.wait_healthy()
    await resume(stack, code, tokens[0], state)

    log = stack.podman.run("logs", stack.container("app"))
    assert "Traceback" not in log.stdout + log.stderr, problems(log.stdout + log.stderr)
