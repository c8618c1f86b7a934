"""What the measuring tools and the test suite share, written once.

- `client`: a WebSocket client speaking the protocol (`Client`), and a player that
  picks at random from `view.legal` (`Player`, `concrete`);
- `rooms`: the HTTP calls that make and join rooms;
- `servers`: `python -m schmier` (or any server) as a child process on a free port;
- `ports`: a free loopback port; `keys`: deleting a Redis key prefix;
- `loopback`: httpx clients that share one TLS context; `procstat`: a process's CPU
  and memory from `/proc`;
- `stats`: the percentile every tool reports (nearest rank).

Nothing here imports the tests: `tests/support` builds on this package, not the other
way round.
"""
