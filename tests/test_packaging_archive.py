"""The archive's deployment, checked without a Docker daemon: the image keeps the
archive on a volume, docker-compose.yml puts it on a named one, and the PostgreSQL
example runs two instances on one PostgreSQL."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

import pytest
import yaml

from tests.test_packaging import ROOT, compose, dockerfile, env_of, stages

POSTGRES = ROOT / "docs" / "examples" / "docker-compose.postgres.yml"


def test_the_image_keeps_the_archive_on_a_volume() -> None:
    assert env_of(dockerfile())["SCHMIER_DATA_DIR"] == "/data"
    _, final = stages(dockerfile())
    assert ("VOLUME", "/data") in final
    made = [args for word, args in final if word == "RUN" and "useradd" in args]
    assert made and "mkdir /data && chown 10001:10001 /data" in made[0]


def test_compose_keeps_the_archive_on_a_named_volume() -> None:
    app = compose()["services"]["app"]
    assert app["volumes"] == ["app-data:/data"]
    assert "app-data" in compose()["volumes"]


def postgres_compose() -> dict[str, Any]:
    loaded = yaml.safe_load(POSTGRES.read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_postgres_example_shares_one_database() -> None:
    from schmier.config import Settings

    services = postgres_compose()["services"]
    assert set(services) == {"app-1", "app-2", "redis", "postgres"}
    fields = {name.upper() for name in Settings.model_fields}
    urls = set()
    for name in ("app-1", "app-2"):
        app = services[name]
        env = app["environment"]
        assert app["depends_on"]["postgres"] == {"condition": "service_healthy"}
        assert {key.removeprefix("SCHMIER_") for key in env} <= fields
        urls.add(env["SCHMIER_DATABASE_URL"])
    assert len(urls) == 1 and next(iter(urls)).startswith("postgresql://schmier:")
    assert services["postgres"]["volumes"] == ["postgres-data:/var/lib/postgresql/data"]
    assert services["postgres"]["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]


def test_postgres_example_config_is_valid() -> None:
    tool = shutil.which("docker-compose")
    if tool is None:
        pytest.skip("docker-compose is not installed")
    result = subprocess.run(
        [tool, "-f", str(POSTGRES), "config", "-q"],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
        env={**os.environ, "POSTGRES_PASSWORD": "checked"},
    )
    assert result.returncode == 0, result.stderr.decode()
