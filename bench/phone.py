"""The table client's own speed on a phone: a real Chromium, its CPU slowed down.

The load benchmark measures the server up to the moment a frame leaves it; what a
player feels on a phone also holds the browser's work: parsing the frame, drawing the
panels, laying out and painting them. This tool plays whole hands in a real Chromium
(Playwright, as the browser tests drive it) at a phone's size, with its CPU slowed by
Chromium's own throttling (`Emulation.setCPUThrottlingRate`: 4 is the mid-range phone
of Chromium's performance tools, 1 this machine), one person and the server's bots,
and reports for each game:

- **the room page opened** (a reload, as a player coming back): from the navigation's
  start to the first state drawn and painted, and to the page's `load` event;
- **every state frame**: the page's own handler (parse, state, every panel redrawn),
  and from the frame's arrival to the next frame painted after it (what the player
  waits before the move is on screen);
- **long tasks** (over 50 ms: the page cannot answer a tap meanwhile), their number
  and the longest;
- **interactions** (the player's key presses, by the browser's Event Timing: from the
  press to the next paint), their p98 (Interaction to Next Paint) and the longest;
- **the browser's own work a state**: layouts and style recalculations and the time in
  each, from Chromium's counters (`Performance.getMetrics`) over the hand, divided by
  its states: counts that do not move with the machine's speed, where the times do.

The person plays by the keyboard alone (Enter: the client keeps the focus on the next
thing to do), so the page does what it does for a player. The measuring script is
added before the page's own (`add_init_script`): it times the page's `message`
listeners on the WebSocket, nothing of the client is changed. Nothing here asserts a
figure; `tests/test_bench_smoke.py` checks that the tool works.

    python -m bench.phone --throttle 1,4 --hands 1
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from bench.kit.servers import RunningServer, start_subprocess_server
from bench.kit.stats import percentile

VARIANTS = ("schmier6", "schmier5", "wisconsin4")
PHONE = {"width": 375, "height": 667}
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]

MEASURE = """(() => {
  const b = (window.__bench = { frames: [], long: [], events: [], view: null, nav: null });
  const painted = (then) => requestAnimationFrame(() => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => then(performance.now());
    ch.port2.postMessage(0);
  });
  const add = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (type, listener, options) {
    if (type !== 'message' || typeof listener !== 'function') {
      return add.call(this, type, listener, options);
    }
    const timed = function (ev) {
      const t0 = performance.now();
      try {
        return listener.call(this, ev);
      } finally {
        const t1 = performance.now();
        let frame = null;
        try { frame = JSON.parse(ev.data); } catch { /* not JSON: not ours to time */ }
        if (frame && frame.type === 'state') {
          const row = { at: t0, handler: t1 - t0, paint: null, size: ev.data.length };
          b.frames.push(row);
          b.view = frame.view;
          painted((t2) => { row.paint = t2 - t0; });
        }
      }
    };
    return add.call(this, type, timed, options);
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) b.long.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.interactionId) b.events.push([e.interactionId, e.duration, e.name]);
    }
  }).observe({ type: 'event', buffered: true, durationThreshold: 16 });
})();"""

MY_TURN = """() => {
  const v = window.__bench.view;
  if (!v) return null;
  return { phase: v.phase, mine: (v.turn || []).includes(v.you) && v.legal.length > 0,
    held: document.querySelector('.trick-note') !== null,
    last: v.last_hand ? JSON.stringify(v.last_hand) : null,
    discard: v.legal.find((a) => a.type === 'discard') || null };
}"""

DISCARD = """(template) => {
  // A discard is several cards picked, then the button: picked by the page's own buttons.
  const count = Math.max(template.min, Math.min(1, template.max));
  for (const card of template.from.slice(0, count)) {
    const b = document.querySelector(`#hand button[data-card="${card}"]`);
    if (b && b.getAttribute('aria-pressed') !== 'true') b.click();
  }
  const go = document.querySelector('button[data-action="discard"]:not([disabled])');
  if (go) go.click();
  return Boolean(go);
}"""

FIRST_DRAWN = """() => new Promise((done) => {
  const wait = () => {
    const f = window.__bench.frames[0];
    if (f && f.paint !== null) {
      const nav = performance.getEntriesByType('navigation')[0];
      done({ shown: f.at + f.paint, load: nav ? nav.loadEventEnd : null });
    } else setTimeout(wait, 20);
  };
  wait();
})"""

FALLBACK = """() => {
  const b = [...document.querySelectorAll(
    '#hand button[data-card]:not([disabled]), button[data-action]:not([disabled])')]
    .find((e) => e.offsetParent !== null && !e.closest('#settings, #history, .side'));
  if (b) b.click();
  return Boolean(b);
}"""


def start_server(bot_delay: float) -> tuple[RunningServer, Any]:
    """A memory-store server with quick bots; the page is the only client."""
    return start_subprocess_server(
        {
            "SCHMIER_BOT_DELAY": str(bot_delay),
            "SCHMIER_HAND_PAUSE": "1",
            "SCHMIER_LOG_LEVEL": "WARNING",
        }
    )


def play(page: Any, hands: int, timeout: float) -> int:
    """Press Enter whenever it is the person's turn, until `hands` hands are scored;
    the number of moves answered."""
    moves = 0
    scored: set[str] = set()
    stuck_since: float | None = None
    deadline = time.monotonic() + timeout
    while len(scored) < hands:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{hands} hands were not played in {timeout:.0f} s")
        now = page.evaluate(MY_TURN)
        if now is None:
            page.wait_for_timeout(50)
            continue
        if now["last"]:
            scored.add(now["last"])
        if now["phase"] == "game_over":
            break
        if not now["mine"] or now["held"]:
            stuck_since = None
            page.wait_for_timeout(50)
            continue
        stuck_since = stuck_since or time.monotonic()
        seen = page.evaluate("() => window.__bench.frames.length")
        if now["discard"]:
            page.evaluate(DISCARD, now["discard"])
        elif time.monotonic() - stuck_since > 3:
            # The focus was not on a move (a panel took it): the first move on screen.
            page.evaluate(FALLBACK)
            stuck_since = None
        else:
            page.keyboard.press("Enter")
        try:
            # The move's answer: the next state (before it, the page sends no other move).
            page.wait_for_function(
                "(n) => window.__bench.frames.length > n", arg=seen, timeout=10_000
            )
            moves += 1
        except PlaywrightTimeout:
            pass  # not a move (the focus was elsewhere): the next round tries again
    return moves


def measure_game(
    browser: Any, server: RunningServer, variant: str, rate: float, hands: int, hold_ms: int
) -> dict[str, Any]:
    """One person and the bots play `hands` hands of `variant` at CPU slowdown `rate`."""
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.add_init_script(f"localStorage.setItem('schmier.trick_hold', '{hold_ms}')")
        page.add_init_script(MEASURE)
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
        cdp.send("Performance.enable")
        page.goto(server.base_url + "/")
        page.check(f'input[name="variant"][value="{variant}"]')
        page.click('button[data-action="create"]')
        page.wait_for_selector("#name")
        page.fill("#name", "Ann")
        page.click('button[data-action="join"][data-seat="0"]')
        page.wait_for_selector('.seat.me[data-seat="0"]')
        page.click('button[data-action="fill_bots"]')
        # The room page opened again, seated, as a player coming back to it.
        page.reload()
        opened = page.evaluate(FIRST_DRAWN)
        page.click('button[data-action="start"]')
        page.wait_for_selector("body[data-phase]:not([data-phase='lobby'])")
        page.evaluate(
            "() => { const b = window.__bench; b.frames.length = 0; b.long.length = 0;"
            " b.events.length = 0; }"
        )
        started = time.monotonic()
        before = counters(cdp)
        moves = play(page, hands, timeout=600)
        seconds = time.monotonic() - started
        page.wait_for_timeout(300)
        after = counters(cdp)
        data = page.evaluate(
            "() => ({ frames: window.__bench.frames, long: window.__bench.long,"
            " events: window.__bench.events })"
        )
    finally:
        context.close()
    handler = [f["handler"] for f in data["frames"]]
    paint = [f["paint"] for f in data["frames"] if f["paint"] is not None]
    interactions: dict[int, float] = {}
    for interaction, duration, _name in data["events"]:
        interactions[interaction] = max(duration, interactions.get(interaction, 0.0))
    return {
        "variant": variant,
        "throttle": rate,
        "seconds": round(seconds, 1),
        "open_shown_ms": round(opened["shown"], 1),
        "open_load_ms": round(opened["load"] or 0, 1),
        "moves": moves,
        "frames": len(handler),
        "frame_bytes_mean": round(statistics.mean(f["size"] for f in data["frames"])),
        "handler_ms": summary(handler),
        "paint_ms": summary(paint),
        "long_tasks": len(data["long"]),
        "long_task_max_ms": round(max(data["long"], default=0.0), 1),
        "interactions": len(interactions),
        "inp_ms": round(percentile(list(interactions.values()), 0.98), 1),
        "interaction_max_ms": round(max(interactions.values(), default=0.0), 1),
        "browser_per_state": per_state(before, after, len(handler)),
    }


#: Chromium's counters (`Performance.getMetrics`) read before and after the hand.
COUNTERS = ("LayoutCount", "RecalcStyleCount", "LayoutDuration", "RecalcStyleDuration")


def counters(cdp: Any) -> dict[str, float]:
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return {m["name"]: float(m["value"]) for m in metrics if m["name"] in COUNTERS}


def per_state(before: dict[str, float], after: dict[str, float], states: int) -> dict[str, float]:
    """The browser's layouts and style recalculations (and their milliseconds) a state."""
    share = {name: (after[name] - before[name]) / max(states, 1) for name in COUNTERS}
    return {
        "layouts": round(share["LayoutCount"], 1),
        "style_recalcs": round(share["RecalcStyleCount"], 1),
        "layout_ms": round(share["LayoutDuration"] * 1000, 1),
        "style_ms": round(share["RecalcStyleDuration"] * 1000, 1),
    }


def summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 0.50), 1),
        "p95": round(percentile(values, 0.95), 1),
        "max": round(max(values, default=0.0), 1),
    }


def table(results: list[dict[str, Any]]) -> str:
    head = (
        "| game | CPU ÷ | room opened: drawn / load | frames | handler p50 / p95 / max"
        " | frame to paint p50 / p95 / max | long tasks (longest) | INP (longest)"
        " | a state: layouts, style recalcs (ms) |"
    )
    lines = [head, "|" + "---|" * 9]
    for r in results:
        h, p, b = r["handler_ms"], r["paint_ms"], r["browser_per_state"]
        lines.append(
            f"| {r['variant']} | {r['throttle']:g} | {r['open_shown_ms']:.0f} /"
            f" {r['open_load_ms']:.0f} ms | {r['frames']} | {h['p50']} / {h['p95']} /"
            f" {h['max']} ms | {p['p50']} / {p['p95']} / {p['max']} ms |"
            f" {r['long_tasks']} ({r['long_task_max_ms']} ms) |"
            f" {r['inp_ms']} ({r['interaction_max_ms']}) ms |"
            f" {b['layouts']} ({b['layout_ms']} ms), {b['style_recalcs']} ({b['style_ms']} ms) |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.phone", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--variants", default=",".join(VARIANTS), help="games, comma-separated")
    parser.add_argument("--throttle", default="4", help="CPU slowdowns, comma-separated (1 = none)")
    parser.add_argument("--hands", type=int, default=1, help="hands a game (default 1)")
    parser.add_argument("--bot-delay", type=float, default=0.3, help="SCHMIER_BOT_DELAY (s)")
    parser.add_argument(
        "--hold",
        type=int,
        default=1200,
        choices=[1200, 2500, 4000, 8000],
        help="how long a won trick stays (ms), the page's own setting",
    )
    parser.add_argument(
        "--chromium", default=os.environ.get("SCHMIER_TEST_CHROMIUM", "/usr/bin/chromium")
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)

    variants = [v for v in args.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown games: {sorted(unknown)}")
    rates = [float(r) for r in args.throttle.split(",") if r]
    server, _process = start_server(args.bot_delay)
    results: list[dict[str, Any]] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            try:
                for rate in rates:
                    for variant in variants:
                        results.append(
                            measure_game(browser, server, variant, rate, args.hands, args.hold)
                        )
            finally:
                browser.close()
    finally:
        server.stop()
    if args.json:
        json.dump({"config": vars(args), "results": results}, sys.stdout, indent=2)
        print()
    else:
        print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
