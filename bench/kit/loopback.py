"""HTTP clients for the tests' own servers, made without rebuilding TLS each time.

httpx builds a fresh SSL context, reading the whole CA bundle, for every client it
makes, and `httpx.get` makes a client per call: 20-40 ms of CPU here each time, many
times the request itself against a server on the loopback. The suite makes thousands of
them (a helper opens a client per request, a start-up loop polls `/healthz` every 50 ms),
and an in-process server shares the test's interpreter, so that time also stalls the
server under test. Every test server speaks plain HTTP; these helpers hand httpx one
context, built once the way httpx builds its own, and change nothing else.
"""

from __future__ import annotations

from typing import Any

import httpx

#: The context httpx would build for each client, built once.
TLS = httpx.create_ssl_context()


def async_client(**options: Any) -> httpx.AsyncClient:
    """`httpx.AsyncClient(**options)` on the shared context."""
    return httpx.AsyncClient(verify=TLS, **options)


def client(**options: Any) -> httpx.Client:
    """`httpx.Client(**options)` on the shared context."""
    return httpx.Client(verify=TLS, **options)


def get(url: str, **options: Any) -> httpx.Response:
    """`httpx.get(url, **options)` on the shared context."""
    return httpx.get(url, verify=TLS, **options)


def post(url: str, **options: Any) -> httpx.Response:
    """`httpx.post(url, **options)` on the shared context."""
    return httpx.post(url, verify=TLS, **options)
