"""The high-availability example of docs/examples (compose file and proxy config),
checked without a Docker daemon, and the proxy examples keeping /metrics private."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import pytest
import yaml

from tests.test_packaging import ROOT, dockerfile, healthcheck_argv

HA = ROOT / "docs" / "examples" / "docker-compose.ha.yml"


def ha_compose() -> dict[str, Any]:
    loaded = yaml.safe_load(HA.read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_ha_compose_has_no_single_point_of_failure() -> None:
    """A primary and its replica, three sentinels watching the primary, two instances
    that find it through them and wait for the replica, a proxy with its config."""
    services = ha_compose()["services"]
    assert set(services) == {
        "redis-primary", "redis-replica", "sentinel-1", "sentinel-2", "sentinel-3",
        "app-1", "app-2", "proxy",
    }  # fmt: skip
    replica = services["redis-replica"]["command"]
    assert replica[replica.index("--replicaof") + 1 :] == ["redis-primary", "6379"]
    for name in ("redis-primary", "redis-replica"):
        words = services[name]["command"]
        assert words[words.index("--appendonly") + 1] == "yes"
        assert re.fullmatch(r"redis:7\.\d+\.\d+-alpine", services[name]["image"])
    for k in (1, 2, 3):
        script = services[f"sentinel-{k}"]["command"][-1]
        assert "sentinel monitor mymaster redis-primary 6379 2" in script
        assert "sentinel resolve-hostnames yes" in script
    from schmier.config import Settings

    fields = {name.upper() for name in Settings.model_fields}
    instances = set()
    for name in ("app-1", "app-2"):
        app = services[name]
        env = app["environment"]
        assert app["build"] == "../.."
        assert app["stop_grace_period"] == "30s"
        assert "ports" not in app, "only the proxy is reachable from outside"
        assert env["SCHMIER_REDIS_SENTINELS"] == (
            "sentinel-1:26379,sentinel-2:26379,sentinel-3:26379"
        )
        assert env["SCHMIER_REDIS_SENTINEL_MASTER"] == "mymaster"
        assert env["SCHMIER_REDIS_WAIT_REPLICAS"] == "1"
        assert env["SCHMIER_REDIS_WAIT_STRICT"] == "true"
        assert {key.removeprefix("SCHMIER_") for key in env} <= fields
        instances.add(env["SCHMIER_INSTANCE_ID"])
        assert app["healthcheck"]["test"][1:] == healthcheck_argv(dockerfile())
    assert instances == {"app-1", "app-2"}
    proxy = services["proxy"]
    assert proxy["volumes"] == ["./nginx-ha.conf:/etc/nginx/conf.d/default.conf:ro"]
    conf = (HA.parent / "nginx-ha.conf").read_text()
    assert "server app-1:8000" in conf and "server app-2:8000" in conf
    assert re.search(r"location = /metrics \{\s*deny all;", conf)


def test_ha_compose_config_is_valid() -> None:
    tool = shutil.which("docker-compose")
    if tool is None:
        pytest.skip("docker-compose is not installed")
    result = subprocess.run(
        [tool, "-f", str(HA), "config", "-q"], cwd=ROOT, capture_output=True, timeout=120
    )
    assert result.returncode == 0, result.stderr.decode()


def test_the_proxy_examples_keep_metrics_private() -> None:
    for path in (HA.parent / "nginx-scaleout.conf", HA.parent / "nginx-ha.conf"):
        assert re.search(r"location = /metrics \{\s*deny all;", path.read_text()), path
    guide = (ROOT / "docs" / "self-hosting.md").read_text()
    assert "location = /metrics" in guide
    assert "respond @metrics 403" in guide
