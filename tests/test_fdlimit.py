"""Open-file limits (schmier/fdlimit.py): the server raises its soft limit to the hard
one at start, and says what to raise when even the hard limit is too low."""

from __future__ import annotations

import resource
import subprocess
import sys
import textwrap

from schmier import fdlimit
from schmier.config import Settings
from tests.support.servers import REPO


def test_the_soft_limit_is_raised_to_the_hard_one() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        raised, same_hard = fdlimit.raise_soft_limit()
        assert same_hard == hard
        assert raised == (hard if hard != resource.RLIM_INFINITY else 1 << 20)
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == raised
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_redis_needs_room_for_its_pool() -> None:
    memory = fdlimit.needed(Settings(redis_url=None))
    redis = fdlimit.needed(Settings(redis_url="redis://127.0.0.1:6379/0"))
    assert redis == memory + fdlimit.REDIS_POOL
    assert memory > fdlimit.WANTED_SOCKETS


def test_a_hard_limit_too_low_is_logged_with_the_fix() -> None:
    """In a process of its own, since a lowered hard limit cannot be raised again."""
    script = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (300, 300))
        from schmier import fdlimit
        from schmier.config import Settings
        from schmier.logs import configure
        configure(False, "INFO")
        print(fdlimit.check(Settings(redis_url=None)))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) == 300 - fdlimit.RESERVE
    assert "server.fd_limit_low" in done.stderr
    assert "ulimit -n" in done.stderr and "open_files=300" in done.stderr


def test_a_sufficient_limit_is_logged_quietly() -> None:
    script = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (300, 10000))
        from schmier import fdlimit
        from schmier.config import Settings
        from schmier.logs import configure
        configure(False, "INFO")
        print(fdlimit.check(Settings(redis_url=None)))
        print(resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        """
    )
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 10000:
        script = script.replace("10000", str(hard))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    sockets, soft = (int(x) for x in done.stdout.split())
    assert soft > 300
    assert sockets == soft - fdlimit.RESERVE
    assert "server.fd_limit " in done.stderr or "server.fd_limit_low" in done.stderr
