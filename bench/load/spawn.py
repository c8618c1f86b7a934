"""Servers the load starts for itself (`--spawn`): Schmier or the baseline, on a free
port of 127.0.0.1, with their Redis keys removed afterwards."""

from __future__ import annotations

import os
import sys

from bench.kit.keys import delete_prefix, fresh_prefix
from bench.kit.ports import free_port
from bench.kit.servers import schmier_command, start_child

REDIS_URL = os.environ.get("SCHMIER_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")

SERVER_ENV: dict[str, str] = {
    "SCHMIER_BOT_DELAY": "0",
    "SCHMIER_HAND_PAUSE": "0",
    "SCHMIER_TRICK_PAUSE": "0",
    "SCHMIER_CREATE_RATE": "1000000",
    "SCHMIER_JOIN_RATE": "1000000",
    "SCHMIER_LOOKUP_FAIL_RATE": "1000000",
    "SCHMIER_FRAME_BURST": "1000",
    "SCHMIER_FRAME_RATE": "1000",
    "SCHMIER_HELLO_TIMEOUT": "120",
    "SCHMIER_LOG_LEVEL": "WARNING",
}
"""Settings of a spawned Schmier: no pauses (so a closed loop is closed), and the
per-address limits out of the way, since every simulated player shares 127.0.0.1."""

STOP_GRACE = 20.0
"""Seconds a spawned server has to stop after SIGTERM before it is killed."""


class Spawned:
    """A server started for this run, on 127.0.0.1 and a free port."""

    def __init__(
        self,
        kind: str,
        *,
        redis: bool,
        env: dict[str, str],
        extra: list[str],
        prefix: str | None = None,
        cpus: set[int] | None = None,
    ) -> None:
        self.kind = kind
        port = free_port()
        # Instances of one cluster share a prefix (that is what makes them a cluster).
        self.prefix = prefix or fresh_prefix("schmier-bench")
        self.redis = redis
        child_env = {**os.environ}
        if kind == "schmier":
            child_env.update(SERVER_ENV)
            child_env.update(SCHMIER_HOST="127.0.0.1", SCHMIER_PORT=str(port))
            if redis:
                child_env.update(SCHMIER_REDIS_URL=REDIS_URL, SCHMIER_REDIS_PREFIX=self.prefix)
            else:
                child_env.pop("SCHMIER_REDIS_URL", None)
            child_env.update(env)
            command = schmier_command()
        else:
            command = [sys.executable, "-m", "bench.baseline_server"]
            command += ["--port", str(port), "--prefix", self.prefix]
            command += ["--redis", REDIS_URL] if redis else ["--memory"]
            command += extra
        try:
            self.child = start_child(command, child_env, port, cpus=cpus)
        except RuntimeError as exc:
            raise RuntimeError(f"{kind} {exc}") from None
        self.url = self.child.url

    @property
    def pid(self) -> int:
        return self.child.pid

    def stop(self, *, delete: bool = True) -> str:
        """Stop the server (SIGTERM, then SIGKILL); its stderr tail; Redis keys removed
        unless `delete` is false (an instance whose cluster is still running)."""
        self.child.stop(STOP_GRACE, on_kill=self._killed)
        err = self.child.tail(3000)
        self.child.forget_log()
        if self.redis and delete:
            delete_prefix(REDIS_URL, self.prefix)
        return err

    def _killed(self) -> None:
        print(
            f"{self.kind} server did not stop within {STOP_GRACE:.0f} s of SIGTERM: killed",
            file=sys.stderr,
        )
