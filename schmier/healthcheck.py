"""`python -m schmier.healthcheck`: exit 0 when this container's server answers `/healthz`.

The container health checks (the image's `HEALTHCHECK` and compose's `healthcheck`) run
this module rather than a `python -c "..."` one-liner: podman's Docker-compatible API
splits an exec-form command on whitespace, which turned the one-liner into `-c import`
and left every container unhealthy there. A module name has no spaces, and here the port
is read from `SCHMIER_PORT`, so a changed port cannot leave the check asking the wrong one.
"""

from __future__ import annotations

import os
import sys
import urllib.request

TIMEOUT_SECONDS = 4.0
"""Below the 5 s the image gives a check, so a hung server fails the check itself."""


def healthy(port: int) -> bool:
    """Whether the server on this host's `port` answers `/healthz` with a 2xx."""
    try:
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/healthz", timeout=TIMEOUT_SECONDS
        ) as answer:
            return 200 <= int(answer.status) < 300
    except OSError:  # refused, timed out, or a non-2xx answer (HTTPError)
        return False


def main() -> int:
    port = int(os.environ.get("SCHMIER_PORT", "8000"))
    return 0 if healthy(port) else 1


if __name__ == "__main__":
    sys.exit(main())
