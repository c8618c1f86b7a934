"""The container, compose file and wheel: checked without a Docker daemon.

Building the image needs a daemon the test machine may lack, so the Dockerfile is read
as text and its properties asserted; the parts that can run outside Docker do run here:
the health-check command against a real HTTP server, `docker-compose config`, and a
real wheel build that must carry the static client.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import sysconfig
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, args = (pending + line).partition(" ")
        instructions.append((keyword.upper(), args.strip()))
        pending = ""
    assert not pending, "Dockerfile ends inside a continued line"
    return instructions


def position(instructions: list[tuple[str, str]], keyword: str, needle: str) -> int:
    """Index of the first `keyword` instruction whose arguments contain `needle`."""
    for index, (word, args) in enumerate(instructions):
        if word == keyword and needle in args:
            return index
    raise AssertionError(f"no {keyword} containing {needle!r} in the Dockerfile")


def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def env_of(instructions: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for word, args in instructions:
        if word == "ENV":
            for pair in shlex.split(args):
                key, _, value = pair.partition("=")
                env[key] = value
    return env


def healthcheck_argv(instructions: list[tuple[str, str]]) -> list[str]:
    _, args = next(item for item in instructions if item[0] == "HEALTHCHECK")
    _, _, exec_form = args.partition("CMD ")
    argv = json.loads(exec_form)
    assert isinstance(argv, list)
    return [str(arg) for arg in argv]


def stages(instructions: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """The Dockerfile's build stages, each from its FROM on."""
    out: list[list[tuple[str, str]]] = []
    for item in instructions:
        if item[0] == "FROM":
            out.append([])
        out[-1].append(item)
    return out


BASE = re.compile(r"^python:3\.11\.\d+-slim-bookworm$")
"""The base image: pinned to a patch release of the Python CI runs on."""


# --- Dockerfile -------------------------------------------------------------------------


def test_dockerfile_base_and_command() -> None:
    instructions = dockerfile()
    bases = [args.split()[0] for word, args in instructions if word == "FROM"]
    assert len(bases) == 2 and all(BASE.match(base) for base in bases), bases
    assert bases[0] == bases[1], "the final stage runs the venv built by the first"
    assert instructions[-1] == ("CMD", '["python", "-m", "schmier"]')
    assert ("EXPOSE", "8000") in instructions
    assert env_of(instructions)["SCHMIER_HOST"] == "0.0.0.0"


def test_dockerfile_installs_the_lock_before_copying_the_code() -> None:
    """So editing the code reuses the cached dependency layer, and what is installed is
    exactly the locked, hash-checked set."""
    build, final = stages(dockerfile())
    copy_lock = position(build, "COPY", "requirements/server.txt")
    install_deps = position(build, "RUN", "-r requirements/server.txt")
    copy_app = position(build, "COPY", "schmier")
    copy_web = position(build, "COPY", "web")
    install_package = position(build, "RUN", "pip wheel --no-deps --no-build-isolation")

    assert copy_lock < install_deps < copy_app < install_package
    assert copy_web < install_package
    copied_before = [
        args.split()[:-1] for word, args in build[:install_deps] if word in {"COPY", "ADD"}
    ]
    assert copied_before == [["requirements/server.txt", "requirements/build.txt"]]
    installs = [args for word, args in build if word == "RUN" and "install" in args]
    assert all("--require-hashes" in args or "--no-deps /tmp/wheels" in args for args in installs)
    assert not any(word == "RUN" and " -e " in f" {args} " for word, args in build)
    # The final stage takes only the environment: no sources, no build backend.
    assert [args for word, args in final if word == "COPY"] == [
        "--from=build /opt/schmier /opt/schmier"
    ]
    assert not any(word == "RUN" and "pip" in args for word, args in final)


def test_dockerfile_runs_as_a_fixed_non_root_user() -> None:
    _, final = stages(dockerfile())
    users = [(index, args) for index, (word, args) in enumerate(final) if word == "USER"]
    assert users, "no USER instruction: the server would run as root"
    last_index, last_user = users[-1]
    assert last_user == "schmier:schmier"
    account = final[position(final, "RUN", "useradd")][1]
    assert "--gid 10001" in account and "--uid 10001" in account
    assert position(final, "RUN", "useradd") < last_index


def test_dockerfile_passes_proxy_settings_through() -> None:
    env = env_of(dockerfile())
    assert env["SCHMIER_PROXY_HEADERS"] == "false"
    assert env["SCHMIER_FORWARDED_ALLOW_IPS"] == "127.0.0.1"


def test_dockerfile_healthcheck_runs_the_module_without_spaces() -> None:
    """podman's Docker-compatible API splits exec-form arguments on whitespace."""
    argv = healthcheck_argv(dockerfile())
    assert argv == ["python", "-m", "schmier.healthcheck"]
    assert not any(" " in arg for arg in argv)


class _Health(BaseHTTPRequestHandler):
    """Answers /healthz with the status the test sets on the server."""

    def do_GET(self) -> None:
        status = getattr(self.server, "status", 200) if self.path == "/healthz" else 404
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def health_server() -> Iterator[HTTPServer]:
    server = HTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def run_healthcheck(port: int) -> subprocess.CompletedProcess[bytes]:
    """The image's check command, run for real against `port` (its SCHMIER_PORT)."""
    argv = healthcheck_argv(dockerfile())
    assert argv[0] == "python"
    env = {**os.environ, "SCHMIER_PORT": str(port)}
    return subprocess.run([sys.executable, *argv[1:]], capture_output=True, timeout=30, env=env)


@pytest.mark.parametrize("status, healthy", [(200, True), (503, False)])
def test_healthcheck_command_reflects_the_server(
    health_server: HTTPServer, status: int, healthy: bool
) -> None:
    health_server.status = status  # type: ignore[attr-defined]
    result = run_healthcheck(health_server.server_address[1])
    assert (result.returncode == 0) is healthy, result.stderr.decode()


def test_healthcheck_command_fails_when_nothing_listens() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # reserved, not listening: connections are refused
        result = run_healthcheck(sock.getsockname()[1])
    assert result.returncode == 1, result.stderr.decode()


def test_dockerignore_keeps_what_the_build_copies() -> None:
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    copied = {
        source for word, args in dockerfile() if word == "COPY" for source in args.split()[:-1]
    }
    assert copied >= {"pyproject.toml", "schmier", "web", "requirements/server.txt", "LICENSE"}
    assert not copied & ignored
    assert {".git", "tests", ".venv"} <= ignored


# --- docker-compose.yml ------------------------------------------------------------------


def test_compose_services() -> None:
    services = compose()["services"]
    assert set(services) == {"app", "redis"}
    app, redis = services["app"], services["redis"]

    assert app["build"] == "."
    assert app["restart"] == redis["restart"] == "unless-stopped"
    assert app["depends_on"] == {"redis": {"condition": "service_healthy"}}
    assert app["environment"]["SCHMIER_REDIS_URL"] == "redis://redis:6379/0"
    assert "SCHMIER_PROXY_HEADERS" in app["environment"]
    assert "SCHMIER_FORWARDED_ALLOW_IPS" in app["environment"]
    assert app["ports"] == ["8000:8000"]
    assert app["stop_grace_period"] == "30s"

    assert re.fullmatch(r"redis:7\.\d+\.\d+-alpine", redis["image"]), redis["image"]
    command = redis["command"]
    words = command if isinstance(command, list) else shlex.split(command)
    assert words[words.index("--appendonly") + 1] == "yes"
    assert redis["volumes"] == ["redis-data:/data"]
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    assert "redis-data" in compose()["volumes"]


def test_compose_and_dockerfile_check_health_the_same_way() -> None:
    compose_check = compose()["services"]["app"]["healthcheck"]["test"]
    assert compose_check[0] == "CMD"
    assert compose_check[1:] == healthcheck_argv(dockerfile())


def test_compose_config_is_valid() -> None:
    tool = shutil.which("docker-compose")
    if tool is None:
        pytest.skip("docker-compose is not installed")
    result = subprocess.run(
        [tool, "-f", str(ROOT / "docker-compose.yml"), "config", "-q"],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr.decode()


# --- the wheel ---------------------------------------------------------------------------


def test_wheel_ships_the_static_client(tmp_path: Path) -> None:
    """A non-editable install (as in the image) must still find index.html and co."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
        capture_output=True,
        timeout=280,
    )
    assert result.returncode == 0, result.stderr.decode()
    wheels = list(tmp_path.glob("schmier-*.whl"))
    assert len(wheels) == 1, wheels

    with zipfile.ZipFile(wheels[0]) as wheel:
        names = set(wheel.namelist())
    assert "schmier/web/index.html" in names
    for path in (ROOT / "web").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            assert f"schmier/web/{path.relative_to(ROOT / 'web').as_posix()}" in names
    assert {"schmier/__init__.py", "schmier/py.typed", "schmier/store/redis.py"} <= names
    # The archive's migrations (Alembic reads them from the installed package).
    assert {
        "schmier/ledger/migrations/env.py",
        "schmier/ledger/migrations/script.py.mako",
        "schmier/ledger/migrations/versions/v0001_archive_and_clubs.py",
    } <= names
    # Only the package (and its metadata): no top-level `app`, `tests` or `web`.
    tops = {name.split("/")[0] for name in names}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"schmier"}, tops

    # Installed for real (not editable) into a fresh environment, it imports as `schmier`
    # and finds its client. The dependencies come from this environment's site-packages,
    # added as a plain path: its .pth files (the editable install's among them) stay
    # unread, so nothing but the wheel can provide `schmier` there.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    (Path(purelib) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheels[0])],
        capture_output=True,
        timeout=280,
    )
    assert install.returncode == 0, install.stderr.decode()
    probe = (
        "import importlib.util, schmier, schmier.api.http as http;"
        "print(schmier.__file__);"
        "print(http.web_directory());"
        "print(importlib.util.find_spec('app'))"
    )
    # Without PYTHONPATH: a checkout named there would be found before the wheel.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    found = subprocess.run(
        [str(python), "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
    )
    assert found.returncode == 0, found.stderr
    package, web, app_spec = found.stdout.split("\n")[:3]
    assert package.startswith(str(venv)) and web.startswith(str(venv)), found.stdout
    assert app_spec == "None"


# --- CI script and the self-hosting guide ---------------------------------------------------


def readme_command(section: str) -> str:
    """The shell command of a README section (its first ```sh block)."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)\n```", readme.split(f"\n## {section}\n", 1)[1], re.S)
    assert block is not None, section
    return block.group(1).strip()


def test_readme_commands_install_the_lock() -> None:
    """A new user's two commands install exactly the locked set, then the server."""
    assert readme_command("Run it") == (
        "pip install -r requirements/server.txt && pip install --no-deps . && python -m schmier"
    )
    assert readme_command("Test it") == (
        "pip install -r requirements/test.txt && pip install --no-deps -e . && pytest"
    )
    for name in ("server", "test", "build"):
        pins = [
            line
            for line in (ROOT / "requirements" / f"{name}.txt").read_text().splitlines()
            if line and not line.startswith((" ", "#"))
        ]
        assert pins and all("==" in pin and pin.endswith("\\") for pin in pins), name


def test_the_exports_are_the_lock() -> None:
    """requirements/*.txt are what `uv export` makes of uv.lock (no network needed)."""
    # uv comes with the test extra, into this environment's bin (on PATH or not).
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    result = subprocess.run(
        ["bash", str(ROOT / "tools" / "lock"), "--check-exports"],
        capture_output=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PATH": path},
    )
    assert result.returncode == 0, result.stderr.decode()


def test_ci_script_is_strict_and_runs_the_readme() -> None:
    script = ROOT / ".ci" / "run"
    assert script.stat().st_mode & 0o111, ".ci/run is not executable"
    text = script.read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text
    for command in (
        "python3 -m venv",
        'split("\\n## Test it\\n", 1)',
        'bash -euo pipefail -c "$install_command"',
        "uv lock --check",
        "bash tools/lock --check-exports",
        "docker-compose -f docker-compose.yml config -q",
        "docker-compose -f docs/examples/docker-compose.ha.yml config -q",
        "docker-compose -f docs/examples/docker-compose.postgres.yml config -q",
        "pg_ctlcluster --skip-systemctl-redirect",
        "ruff check .",
        "ruff format --check .",
        "mypy",
        "SCHMIER_TEST_REQUIRE=redis,browser,nginx,container,postgres,netns bash -euo pipefail -c"
        ' "$test_command"',
        "apt_install podman runc netavark aardvark-dns debootstrap",
        'export CONTAINERS_CONF="$PWD/tools/containers.conf"',
        "bash tools/container-bases",
        'if [ "${SCHMIER_CI_LATEST:-0}" = "1" ]; then',
        "pip install --upgrade --upgrade-strategy eager -e '.[test]'",
    ):
        assert command in text, command
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, timeout=30)
    assert result.returncode == 0, result.stderr.decode()


def test_licence_and_changelog() -> None:
    from schmier import __version__

    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert changelog.startswith("# Changelog\n")
    assert f"## [{__version__}] - " in changelog


def test_self_hosting_guide_names_only_real_settings() -> None:
    """Every SCHMIER_* variable the guide tells operators to set must exist."""
    from schmier.config import Settings

    guide = (ROOT / "docs" / "self-hosting.md").read_text()
    named = set(re.findall(r"SCHMIER_([A-Z_]+[A-Z])", guide))
    assert {"REDIS_URL", "PROXY_HEADERS", "FORWARDED_ALLOW_IPS"} <= named
    fields = {name.upper() for name in Settings.model_fields}
    assert named <= fields, named - fields
    compose_env = compose()["services"]["app"]["environment"]
    assert {key.removeprefix("SCHMIER_") for key in compose_env} <= fields


def test_self_hosting_guide_proxies_pass_websockets() -> None:
    guide = (ROOT / "docs" / "self-hosting.md").read_text()
    assert "proxy_set_header Upgrade $http_upgrade;" in guide
    assert "proxy_set_header Connection $connection_upgrade;" in guide
    assert "reverse_proxy 127.0.0.1:8000" in guide
