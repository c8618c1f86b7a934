"""Load generator: rooms full of WebSocket players, measured from the outside.

    python -m bench.load --spawn --redis --rooms 100 --think 0 --duration 20
    python -m bench.load --versus-baseline --rooms 300 --think 1 --duration 30
    python -m bench.load --url http://127.0.0.1:8000 --server-pid 1234 --rooms 10

It plays like people, through the public protocol only (docs/protocol.md):
it creates R rooms over HTTP, joins every seat, connects every seat as its own
WebSocket client and says `hello` with the seat's token (`--bots K`: the K highest
seats are server bots instead, and their moves are timed, `bench/load/bots.py`). Each
client then acts on its own turn (its seat in `view.turn`, `view.legal` non-empty)
after a think time drawn uniformly from [T(1-j), T(1+j)] (T = 0: a closed loop),
choosing uniformly from `legal` (a discard template becomes a random valid subset);
the room's lowest seat sends `start` once the lobby is full, and every seat confirms the
`rematch` at game over.

Measured over `--duration` seconds after `--warmup` seconds:

- actions/s: actions answered (the sender received its next `state`) per second;
- latency from sending an action to receiving the sender's next `state`: p50, p95,
  p99, max;
- errors (`error` frames, by code), unexpected closes (by close code), rooms that made
  no progress in the window's last 5 seconds (stalled);
- the server's CPU (user + system from `/proc/<pid>/stat`, as a share of one core) and
  its peak RSS (sampled `VmRSS` in the window, and `VmHWM` over its life) when its pid
  is known (`--server-pid`, or `--spawn`);
- the generator's own CPU share of one core: near 100 %, the generator is the limit.

`--spawn` starts `python -m schmier` itself on a free port (delays 0, rate limits raised
through its `SCHMIER_*` settings, `--redis` for Redis under a fresh key prefix that is
deleted afterwards) and stops it after; `--spawn baseline` starts
`bench/baseline_server.py` instead. `--versus-baseline` runs the same load against both,
one after the other (both on Redis unless `--memory`), and prints every figure's ratio
(Schmier / baseline). `--storm` adds a reconnect storm after the window: every socket is
dropped at once and reconnects at once; reported is the time until every one has its
state again. `--open-rate N` and `--in-step` change how the tables open
(`bench/load/opening.py`). Everything talks to 127.0.0.1 only.
"""
