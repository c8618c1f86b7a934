"""Shared test configuration.

Tests that need a real Redis, a real browser, nginx, podman or network namespaces are
skipped when those are absent, unless ``SCHMIER_TEST_REQUIRE`` names them
(comma-separated: ``redis,browser,nginx,container,postgres,netns``), in which case their
absence is a failure. CI sets
``SCHMIER_TEST_REQUIRE=redis,browser,nginx,container,postgres,netns`` so nothing can be
skipped there.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

# Every server a test starts without a data directory of its own keeps its archive
# (SQLite) in one of this run's, never in the home directory of whoever runs the suite.
if "SCHMIER_DATA_DIR" not in os.environ:
    os.environ["SCHMIER_DATA_DIR"] = tempfile.mkdtemp(prefix="schmier-test-data-")
    atexit.register(shutil.rmtree, os.environ["SCHMIER_DATA_DIR"], True)

pytest_plugins = [
    "tests.support.requirements",
    "tests.support.stores",
    "tests.support.servers",
    "tests.support.browsers",
    "tests.support.postgres",
    "tests.support.netns",
    "tests.support.schedule",
]
