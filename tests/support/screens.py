"""Checks of a whole screen in a real browser: axe-core's accessibility rules, and every
overflow a player would see (text out of its button, a name cut short, a button's one
word broken over two lines, a page wider than the screen).

axe-core is the npm registry's `axe-core` package, vendored once under
`tests/support/vendor/` with its licence (MPL-2.0; see `vendor/README.md`), never fetched
from anywhere at test time. It is put into the page through the DevTools protocol (a
Playwright `evaluate`), which the page's Content-Security-Policy does not govern, so the
page is checked with its real policy.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
BLOCKING = ("serious", "critical")
"""The impacts a screen may not have any violation of."""
ALWAYS = ("page-has-heading-one", "aria-allowed-role")
"""Rules a screen may not break whatever axe-core calls their impact (moderate and minor):
every screen has its `h1`, and no element has a role its kind may not have (a panel's
title was once a heading with `role=status`)."""


def axe_violations(page: Page, label: str) -> list[str]:
    """The serious and critical axe-core violations of the page as it is now, and those
    of the rules in `ALWAYS` at any impact, one line each (rule, impact, how many
    elements, the first ones), prefixed with `label`."""
    if page.evaluate("typeof window.axe") == "undefined":
        page.evaluate(AXE.read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = page.evaluate(
        """async () => {
          const result = await axe.run(document, { resultTypes: ['violations'] });
          return result.violations.map((v) => ({
            id: v.id, impact: v.impact,
            nodes: v.nodes.map((n) => n.target.join(' ')),
          }));
        }"""
    )
    return [
        f"{label}: {v['id']} ({v['impact']}) on {len(v['nodes'])}: {v['nodes'][:4]}"
        for v in found
        if v["impact"] in BLOCKING or v["id"] in ALWAYS
    ]


OVERFLOWS = """() => {
  const out = [];
  const width = innerWidth;
  const visible = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
  };
  const clipped = (e) => getComputedStyle(e).clip !== 'auto' || e.closest('.sr-only');
  const name = (e) => (e.id ? '#' + e.id : e.tagName.toLowerCase()) + ' ' +
    JSON.stringify((e.textContent || '').trim().slice(0, 40));
  const page = document.scrollingElement.scrollWidth;
  if (page > width) {
    // Which elements stick out (the innermost ones): what widens the page.
    const wide = [...document.querySelectorAll('body *')].filter((e) =>
      e.getBoundingClientRect().right > width + 1 && ![...e.children].some(
        (c) => c.getBoundingClientRect().right > width + 1));
    out.push(`page ${page} px wide on a ${width} px screen: ${wide.slice(0, 3).map(name)}`);
  }
  // Each word (up to 16 letters: a longer name may wrap) of the text nodes `shown` of
  // `e` that the browser broke over two lines.
  const brokenWords = (e, shown) => {
    const found = [];
    for (const n of shown) {
      for (const m of n.textContent.matchAll(/\\S+/g)) {
        if (m[0].length > 16) continue;
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (tops.size > 1) found.push(`one word on ${tops.size} lines: ${name(e)} (${m[0]})`);
      }
    }
    return found;
  };
  for (const e of document.querySelectorAll('body *')) {
    if (!visible(e) || clipped(e) || e.closest('svg, .sr-only, .tip')) continue;
    const style = getComputedStyle(e);
    // A text cut short with an ellipsis.
    if (style.textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1) {
      out.push(`cut short: ${name(e)}`);
    }
    if (e.tagName === 'BUTTON' || e.tagName === 'SELECT') {
      // Text out of its button.
      if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 2) {
        out.push(`out of its button: ${name(e)} ${e.scrollWidth}x${e.scrollHeight} in ` +
                 `${e.clientWidth}x${e.clientHeight}`);
      }
      // One word broken over two lines (the text one sees: no card face, nothing hidden).
      const shown = [];
      const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const at = n.parentElement;
        if (at.closest('svg, .sr-only') || at.getBoundingClientRect().width <= 1) continue;
        if (n.textContent.trim()) shown.push(n);
      }
      if (e.tagName === 'BUTTON') out.push(...brokenWords(e, shown));
    }
    // A column's heading ("Bot 2" once stood as "Bo" over "t" over "2" in the sheet).
    if (e.tagName === 'TH') {
      const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
      const shown = [];
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        if (!n.parentElement.closest('svg, .sr-only') && n.textContent.trim()) shown.push(n);
      }
      out.push(...brokenWords(e, shown));
    }
    // Anything sticking out of the screen's sides.
    const kinds = ['BUTTON', 'INPUT', 'SELECT', 'A', 'P', 'SPAN', 'TD', 'TH', 'H2', 'H3', 'LI'];
    if (kinds.includes(e.tagName)) {
      const r = e.getBoundingClientRect();
      const scroller = e.closest('.sheet-wrap, .chat-log, dialog, .call-grid');
      if (!scroller && (r.right > width + 1 || r.left < -1)) {
        out.push(`off the screen: ${name(e)} at ${Math.round(r.left)}..${Math.round(r.right)}`);
      }
    }
  }
  return out;
}"""


def overflows(page: Page, label: str) -> list[str]:
    """Every overflow on the page as it is now, one line each, prefixed with `label`."""
    found: list[str] = page.evaluate(OVERFLOWS)
    return [f"{label}: {problem}" for problem in found]


def until(page: Page, script: str, arg: Any = None, timeout: float = 15) -> None:
    """Wait until `script` (a JS function) returns true, polled from here: the page's
    policy has no 'unsafe-eval', which Playwright's `wait_for_function` needs."""
    import time

    deadline = time.monotonic() + timeout
    while not page.evaluate(script, arg):
        if time.monotonic() > deadline:
            raise AssertionError(f"never true: {script}")
        page.wait_for_timeout(30)
