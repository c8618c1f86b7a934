"""How much a bot may think when the workers are busy: a smaller budget, never a late move.

A `strong` decision is a search of a fixed budget of worlds and playouts; its cost is a
good share of a core, and the server has one or a few workers for every table. Past
the workers' capacity, a fixed budget would make every bot at every table slower
without bound. So the budget of each decision is chosen when it leaves the pool's queue
for a worker (`Budgets.choose`): the largest step of `STEPS` whose expected cost still
brings the move within `SCHMIER_BOT_SLACK` of its due time (the seat's
`SCHMIER_BOT_DELAY`), for this decision and for the moves waiting behind it: the full
budget, a half, a quarter, an eighth of it, and at the floor the `normal` policy, which
costs next to nothing. What a full budget costs is learnt from every search decision the
workers made, a smaller one's time scaled up (`Budgets.done`), with its spread to spare
(`SPREAD`): a busy machine, or a worker that gets little of a core, makes the full
budget dearer. A hint (only its
asker waits) gets no more than the bots' last move did while they play below full
strength, so it never takes a worker's time from them.

The budget is part of the decision's inputs: a decision is a pure function of the view,
its seed and its step, and the room's log keeps what was played. Other policies (the
cheap ones) ignore the step.

Degradation is visible: the metrics (`collector`) count the decisions at each step, the
seconds spent below full strength and the moves and hints waiting; the log says
`bots.degraded` once when the bots first play below full strength and `bots.full_strength`
once when they have played `RECOVERED_AFTER` moves in a row at full strength again.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from schmier.engine import bots
from schmier.engine.bots import levels, search
from schmier.logs import event

Answer = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Step:
    """One budget a decision may get."""

    name: str
    """Its name in the metrics and the log."""
    ratio: float
    """The share of the full search budget (0: the floor policy instead of a search)."""


STEPS: tuple[Step, ...] = (
    Step("full", 1.0),
    Step("half", 0.5),
    Step("quarter", 0.25),
    Step("eighth", 0.125),
    Step("normal", 0.0),
)
"""Full strength first; the last is the `normal` level's policy."""

FULL = STEPS[0]
FLOOR = STEPS[-1]
FLOOR_POLICY = levels.BY_NAME["normal"].policy
"""What plays when even the smallest search would make a move late."""

SCALED = frozenset({levels.BY_NAME["strong"].policy})
"""The policies whose budget can shrink (the others cost next to nothing)."""

AIM = 0.6
"""The share of the slack the expected cost may fill: the rest is for what the estimate
does not see (a room's timer or its answer late on a busy event loop)."""

SPREAD = 2.0
"""A step's expected cost is its running mean plus this many running mean deviations:
single decisions vary (six cards to try or two, a busy machine), and a move that waits
behind a slow one is late too."""

SMOOTHING = 0.1
"""Weight of the newest decision in a step's running mean of cost."""

FIRST_GUESS = 0.2
"""Seconds a full-budget decision is assumed to take until one has been timed."""

RECOVERED_AFTER = 10
"""Moves in a row at full strength that end a degradation (so that a server on the
edge of its capacity does not log a start and an end every few moves)."""


def scaled(ratio: float) -> search.Budget:
    """The search's default budget times `ratio` (0 < ratio < 1), every count at least
    a few worlds so that the search still compares its options."""
    full = search.DEFAULT_BUDGET
    return dataclasses.replace(
        full,
        playouts=max(8, round(full.playouts * ratio)),
        min_worlds=max(2, round(full.min_worlds * ratio)),
        max_worlds=max(4, round(full.max_worlds * ratio)),
        hand_worlds=max(4, round(full.hand_worlds * ratio)),
        exact_worlds=max(2, round(full.exact_worlds * ratio)),
    )


def decide(policy: str, view: dict[str, Any], rng: random.Random, ratio: float) -> Answer:
    """`policy`'s answer to `view` with `ratio` of its full budget (what a worker runs)."""
    if ratio >= 1.0 or policy not in SCALED:
        return bots.choose(policy, view, rng)
    if ratio <= 0.0:
        return bots.choose(FLOOR_POLICY, view, rng)
    legal = view.get("legal") or ()
    if not legal:
        raise ValueError("the view has no legal action: this seat has nothing to do")
    return search.act(view, legal, rng, scaled(ratio))


@dataclass(frozen=True, slots=True)
class Queue:
    """The pool's queue as a decision leaves it for a worker."""

    late: float
    """Seconds this decision is past its due time (negative while its bot's delay
    still runs; a decision not asked ahead is due when it is asked)."""
    behind: int
    """Moves still waiting after it."""
    late_behind: float
    """Seconds the soonest due of those is past its due time (0 when none waits)."""
    workers: int


class Budgets:
    """The step each decision gets, what each step costs, and how often bots played
    below full strength (shared by the pool's threads: every method takes the lock)."""

    def __init__(self, slack: float) -> None:
        self.slack = slack
        """Seconds past its due time by which a bot's move should be played."""
        self._lock = threading.Lock()
        self._unit: float | None = None
        """Running mean of a full budget's seconds, from every search decision (a
        smaller one's time scaled up: a step not chosen lately still learns)."""
        self._deviation = 0.0
        """Running mean of how far a full budget's seconds fell from `_unit`."""
        self._floor: float | None = None
        """Running mean of the floor policy's seconds."""
        self.decisions: dict[str, int] = {step.name: 0 for step in STEPS}
        """Bots' moves decided at each step."""
        self.last = FULL
        """The step of the latest move."""
        self.degradations = 0
        """Times the bots started playing below full strength."""
        self._degraded_since: float | None = None
        """When the current spell below full strength began (its first such move)."""
        self._degraded_last = 0.0
        """When its latest move below full strength was decided: a spell lasts from its
        first such move to its last, so a server gone quiet is not counted degraded."""
        self._degraded_total = 0.0
        self._streak = 0
        self.busy_seconds = 0.0
        """Seconds the workers spent on decisions of `SCALED` policies."""

    def cost(self, step: Step) -> float:
        """The expected seconds of a decision at `step`: the floor's, and the step's
        share of a full budget's beyond it (the search's cost follows its worlds), with
        `SPREAD` deviations to spare."""
        unit = FIRST_GUESS if self._unit is None else self._unit + SPREAD * self._deviation
        return (self._floor or 0.0) + unit * step.ratio

    def choose(self, move: bool, queue: Queue) -> Step:
        """The step of a decision leaving the queue now (`move`: a bot's move, else a
        hint): the largest whose expected cost brings it, and the moves behind it, within
        the aimed share of the slack; the floor when none does."""
        aim = AIM * self.slack
        with self._lock:
            chosen = FLOOR
            for step in STEPS:
                cost = self.cost(step)
                mine = queue.late + cost
                theirs = queue.late_behind + (queue.behind + 1) * cost / queue.workers
                if mine <= aim and (queue.behind == 0 or theirs <= aim):
                    chosen = step
                    break
            if not move:
                # A hint plays no better than the bots while they are held back.
                if self._degraded_since is not None and chosen.ratio > self.last.ratio:
                    chosen = self.last
                return chosen
            self.decisions[chosen.name] += 1
            self.last = chosen
            self._moved(chosen)
        return chosen

    def _moved(self, step: Step) -> None:
        """Track degradation after a move decided at `step` (with the lock held)."""
        now = time.monotonic()
        if step is not FULL:
            self._streak = 0
            self._degraded_last = now
            if self._degraded_since is None:
                self._degraded_since = now
                self.degradations += 1
                event("bots.degraded", logging.WARNING, budget=step.name, slack=self.slack)
            return
        if self._degraded_since is None:
            return
        self._streak += 1
        if self._streak >= RECOVERED_AFTER:
            seconds = self._degraded_last - self._degraded_since
            self._degraded_total += seconds
            self._degraded_since = None
            event("bots.full_strength", logging.WARNING, degraded_seconds=round(seconds, 3))

    def done(self, step: Step, seconds: float) -> None:
        """A worker spent `seconds` on a decision of a `SCALED` policy at `step`."""
        with self._lock:
            self.busy_seconds += seconds
            if step.ratio <= 0.0:
                self._floor = _mean(self._floor, seconds)
            else:
                unit = max(0.0, seconds - (self._floor or 0.0)) / step.ratio
                if self._unit is not None:
                    self._deviation = _mean(self._deviation, abs(unit - self._unit))
                self._unit = _mean(self._unit, unit)

    @property
    def degraded(self) -> bool:
        """Whether the bots play below full strength now."""
        return self._degraded_since is not None

    def degraded_seconds(self) -> float:
        """Seconds the bots have played below full strength (each spell from its first
        move below it to its last), the current spell included."""
        with self._lock:
            since = self._degraded_since
            ongoing = 0.0 if since is None else self._degraded_last - since
            return self._degraded_total + ongoing

    def collector(self, waiting: Callable[[], tuple[int, int]]) -> BudgetCollector:
        """A Prometheus collector of these figures; `waiting()`: (moves, other jobs)
        waiting for a worker now."""
        return BudgetCollector(self, waiting)


def _mean(old: float | None, sample: float) -> float:
    """A running mean with `SMOOTHING` (the first sample stands alone)."""
    return sample if old is None else old + SMOOTHING * (sample - old)


class BudgetCollector:
    """The bots' budgets and the pool's queue, read at scrape time."""

    def __init__(self, budgets: Budgets, waiting: Callable[[], tuple[int, int]]) -> None:
        self._budgets = budgets
        self._waiting = waiting

    def collect(self) -> Iterable[Metric]:
        b = self._budgets
        yield GaugeMetricFamily(
            "schmier_bot_budget_ratio",
            "The share of the full search budget the latest bot move got (1: full "
            "strength; 0: the normal policy because the workers were too busy).",
            value=b.last.ratio,
        )
        yield GaugeMetricFamily(
            "schmier_bot_degraded",
            "1 while the bots play below full strength because the workers are busy.",
            value=1 if b.degraded else 0,
        )
        yield CounterMetricFamily(
            "schmier_bot_degraded_seconds",
            "Seconds the bots have played below full strength (each spell from its first "
            "move below it to its last).",
            value=b.degraded_seconds(),
        )
        yield CounterMetricFamily(
            "schmier_bot_degradations",
            "Times the bots started playing below full strength.",
            value=b.degradations,
        )
        decisions = CounterMetricFamily(
            "schmier_bot_decisions",
            "Bot moves decided by the search policy, by the budget they got "
            "(full, half, quarter, eighth, normal).",
            labels=["budget"],
        )
        for name, count in b.decisions.items():
            decisions.add_metric([name], count)
        yield decisions
        yield CounterMetricFamily(
            "schmier_bot_busy_seconds",
            "Seconds the workers spent on search decisions (wall time of a worker).",
            value=b.busy_seconds,
        )
        moves, others = self._waiting()
        waiting = GaugeMetricFamily(
            "schmier_bot_queue_depth",
            "Jobs waiting for a bot worker now, by kind (move: a bot's or an away "
            "player's move; other: hints and anything else below a move).",
            labels=["kind"],
        )
        waiting.add_metric(["move"], moves)
        waiting.add_metric(["other"], others)
        yield waiting
