"""Shared test configuration.

Tests that need a real Redis, a real browser, nginx or podman are skipped when those
are absent, unless ``SCHMIER_TEST_REQUIRE`` names them (comma-separated:
``redis,browser,nginx,container,postgres``), in which case their absence is a failure. CI sets
``SCHMIER_TEST_REQUIRE=redis,browser,nginx,container,postgres`` so nothing can be skipped there.
"""

from __future__ import annotations

pytest_plugins = [
    "tests.support.requirements",
    "tests.support.stores",
    "tests.support.servers",
    "tests.support.browsers",
    "tests.support.postgres",
]
