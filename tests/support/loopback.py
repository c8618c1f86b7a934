"""HTTP clients for the tests' own servers on one shared TLS context: `bench.kit.loopback`
(the measuring tools use it too), handed on here so tests import support from one place."""

from __future__ import annotations

from bench.kit.loopback import TLS, async_client, client, get, post

__all__ = ["TLS", "async_client", "client", "get", "post"]
