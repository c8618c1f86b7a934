"""Measure a first visit: the bytes and requests a fresh browser spends on an invite link.

Starts a server of this checkout on a free loopback port (rooms in memory), creates a
room, then opens `/r/{code}` in a fresh Chromium context (empty HTTP cache, no service
worker yet), as a friend who got the link would, and counts every request the context
makes until the network has been quiet for two seconds: the page's own and the service
worker's (Chromium reports both to Playwright), with the bytes each response took on
the wire (headers and the body as sent, compressed or not):

    python tools/first_visit.py            # prints a table and the totals
    python tools/first_visit.py --json     # the same as JSON

Needs Playwright for Python and Chromium (`SCHMIER_TEST_CHROMIUM`, default
`/usr/bin/chromium`), as the browser tests do. The figures are in docs/client.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

QUIET_SECONDS = 2.0


def measure(chromium: str) -> list[dict[str, Any]]:
    """Every request of a first visit to an invite link: url, who made it, bytes."""
    from playwright.sync_api import sync_playwright

    from schmier.config import Settings
    from tests.support import loopback
    from tests.support.servers import start_thread_server

    server = start_thread_server(Settings(log_level="WARNING"))
    try:
        code = loopback.post(
            server.base_url + "/api/rooms", json={"variant": "schmier6"}, timeout=10
        ).json()["code"]
        seen: list[dict[str, Any]] = []
        last = [time.monotonic()]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
            )
            context = browser.new_context(viewport={"width": 375, "height": 667})

            def finished(request: Any) -> None:
                sizes = request.sizes()
                response = request.response()
                seen.append(
                    {
                        "url": request.url.replace(server.base_url, ""),
                        "by": "worker" if request.service_worker else "page",
                        "status": response.status if response else None,
                        "encoding": (response.headers.get("content-encoding") if response else None)
                        or "",
                        "bytes": sizes["responseBodySize"] + sizes["responseHeadersSize"],
                    }
                )
                last[0] = time.monotonic()

            context.on("requestfinished", finished)
            page = context.new_page()
            page.goto(f"{server.base_url}/r/{code}")
            page.wait_for_selector("body[data-seq]")
            while time.monotonic() - last[0] < QUIET_SECONDS:
                page.wait_for_timeout(200)
            browser.close()
        return seen
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    chromium = os.environ.get("SCHMIER_TEST_CHROMIUM", "/usr/bin/chromium")
    seen = measure(chromium)
    # The socket's upgrade is no download of the client: left out. A request answered
    # from the browser's HTTP cache (the worker keeping what the page loaded) took no
    # byte on the wire (no headers either): counted apart, as no request to the server.
    files = [r for r in seen if not r["url"].startswith("/ws/")]
    network = [r for r in files if r["bytes"] > 0]
    totals = {
        "requests": len(network),
        "bytes": sum(r["bytes"] for r in network),
        "page_requests": sum(r["by"] == "page" for r in network),
        "worker_requests": sum(r["by"] == "worker" for r in network),
        "from_http_cache": len(files) - len(network),
    }
    if args.json:
        print(json.dumps({"requests": seen, "totals": totals}, indent=2))
        return
    for r in sorted(network, key=lambda r: (r["by"], r["url"])):
        print(f"{r['by']:7} {r['status']!s:4} {r['encoding']:5} {r['bytes']:>8}  {r['url']}")
    print(
        f"\n{totals['requests']} requests ({totals['page_requests']} by the page, "
        f"{totals['worker_requests']} by the service worker), {totals['bytes']:,} bytes; "
        f"{totals['from_http_cache']} more answered from the browser's HTTP cache"
    )


if __name__ == "__main__":
    main()
