"""The three games as data: deck, seats, sides, bids, the six points and the house rules.

One engine plays all three games; what differs between them lives here (plus the trump
orders in `ranking.py`), so a rule that differs by game is a field, not a copy of a phase.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .cards import JOKERS, RANKS, X1, X2, card
from .errors import RulesError


@dataclass(frozen=True, slots=True)
class Variant:
    """Everything that makes one of the three games differ from the others."""

    name: str
    #: Number of seats (and players).
    seats: int
    #: Lowest rank index in the deck: 0 (the 2), 2 (the 4) or 5 (the 7).
    low_rank: int
    #: The jokers in the deck.
    jokers: tuple[int, ...]
    #: Lowest and highest bid.
    min_bid: int
    max_bid: int
    #: Whether the jack of the same colour is a trump (the left bauer): Schmier only.
    left_bauer: bool
    #: Whether sides are new each hand (bidder plus a secret called partner) and scores
    #: are kept per player.
    called_partner: bool
    #: The scoring units (teams), as lists of seats; `scores` has one entry for each.
    teams: tuple[tuple[int, ...], ...]
    #: The names of the six points, in the order they are reported.
    points: tuple[str, ...]
    #: Who discards, and so how many: "all" (every non-dealer exchanges 0 to 3
    #: non-trumps at once, then the dealer takes the rest of the stock and discards down
    #: to six, never a protected trump) or "bidder" (only the bidder, who took the
    #: kitty, discards down to six; any trump may go once it holds more than six).
    discards: Literal["all", "bidder"]
    #: The winning bidder takes the first `Rules.kitty` undealt cards into hand.
    kitty: bool
    #: Trump must be a suit of which the bidder holds a natural card (so that a first
    #: lead of a natural trump is always possible).
    trump_from_hand: bool
    #: Trump is committed privately (only the bidder sees it) and made public by the
    #: first card played; otherwise it is named to everyone at once.
    secret_trump: bool
    #: The first lead of a hand must be a natural trump (not a joker).
    first_lead_trump: bool
    #: The bidder's discards count towards the bidder's side's total for game.
    bidder_banks_discards: bool
    #: The game's own rules say "follow suit or trump": the default of the
    #: `trump_anytime` house rule.
    follow_or_trump: bool

    def __post_init__(self) -> None:
        # The flags that only make sense together: a first lead that must be a natural
        # trump needs a trump the bidder holds naturally, and a kitty needs someone who
        # discards it.
        if self.first_lead_trump and not self.trump_from_hand:
            raise AssertionError(f"{self.name}: first_lead_trump needs trump_from_hand")
        if self.kitty and self.discards != "bidder":
            raise AssertionError(f"{self.name}: a kitty is discarded by the bidder")

    @property
    def deck(self) -> tuple[int, ...]:
        """The cards of this game, suit by suit, low to high, jokers last."""
        return _DECKS[self.name]

    def team_of(self, seat: int) -> int:
        """The index in `teams` of the scoring unit holding `seat`."""
        return _TEAM_OF[self.name][seat]


VARIANT_TABLE: dict[str, Variant] = {
    "schmier6": Variant(
        name="schmier6",
        seats=6,
        low_rank=0,
        jokers=(X1,),
        min_bid=3,
        max_bid=6,
        left_bauer=True,
        called_partner=False,
        teams=((0, 3), (1, 4), (2, 5)),
        points=("high", "low", "right", "left", "joker", "game"),
        discards="all",
        kitty=False,
        trump_from_hand=False,
        secret_trump=False,
        first_lead_trump=False,
        bidder_banks_discards=False,
        follow_or_trump=False,
    ),
    "schmier5": Variant(
        name="schmier5",
        seats=5,
        low_rank=2,
        jokers=(X1,),
        min_bid=3,
        max_bid=6,
        left_bauer=True,
        called_partner=True,
        teams=((0,), (1,), (2,), (3,), (4,)),
        points=("high", "low", "right", "left", "joker", "game"),
        discards="all",
        kitty=False,
        trump_from_hand=False,
        secret_trump=False,
        first_lead_trump=False,
        bidder_banks_discards=False,
        follow_or_trump=False,
    ),
    "wisconsin4": Variant(
        name="wisconsin4",
        seats=4,
        low_rank=5,
        jokers=(X1, X2),
        min_bid=2,
        max_bid=6,
        left_bauer=False,
        called_partner=False,
        teams=((0, 2), (1, 3)),
        points=("high", "low", "jack", "joker1", "joker2", "game"),
        discards="bidder",
        kitty=True,
        trump_from_hand=True,
        secret_trump=True,
        first_lead_trump=True,
        bidder_banks_discards=True,
        follow_or_trump=True,
    ),
}

VARIANTS: tuple[str, ...] = tuple(VARIANT_TABLE)

_DECKS: dict[str, tuple[int, ...]] = {
    v.name: tuple(card(r, s) for s in range(4) for r in range(v.low_rank, len(RANKS)))
    + tuple(j for j in JOKERS if j in v.jokers)
    for v in VARIANT_TABLE.values()
}
_TEAM_OF: dict[str, tuple[int, ...]] = {
    v.name: tuple(next(i for i, t in enumerate(v.teams) if s in t) for s in range(v.seats))
    for v in VARIANT_TABLE.values()
}


def get_variant(name: str) -> Variant:
    """The variant called `name`; RulesError for an unknown game."""
    try:
        return VARIANT_TABLE[name]
    except (KeyError, TypeError):
        raise RulesError(f"unknown variant {name!r}; expected one of {list(VARIANTS)}") from None


@dataclass(frozen=True, slots=True)
class Rules:
    """The house rules of one room. Fields that do not apply to the variant are None."""

    #: Score that ends the game (5-99).
    target: int = 21
    #: The dealer may not pass when everybody else has passed.
    stick_the_dealer: bool = False
    #: A player who can follow suit may play a trump instead.
    trump_anytime: bool = False
    #: Games with a kitty (wisconsin4): how many undealt cards the bidder takes (0-3).
    kitty: int | None = None
    #: Games with two jokers (wisconsin4): which joker wins when both fall in one trick.
    joker_order: str | None = None
    #: A player may ask the server's default bot for a hint on their turn (the room's
    #: `hint` frame); the game itself never reads it.
    hints: bool = True
    #: Seconds a person has for a turn before the default bot plays it (0: no timer, or
    #: 10-300). A rule of the room, not of the cards: the engine never reads it.
    turn_seconds: int = 0


JOKER_ORDERS = ("first_high", "second_high")


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """One house rule: its name, the values it takes, and the games it applies to.

    The one table of house rules: `make_rules` validates with it, `rules_to_json` writes
    it, and `describe` publishes it (the client builds its room form from that), so a
    new rule is one entry here plus the field of `Rules`.
    """

    name: str
    #: "int", "bool" or "choice".
    kind: str
    #: The default per variant (and whether the rule applies: a variant not listed has
    #: the rule fixed at None).
    defaults: Mapping[str, Any]
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    #: An int rule's value outside `low`..`high` that turns the rule off (None: none).
    off: int | None = None

    def check(self, value: Any) -> Any:
        """`value` if it is allowed, else RulesError saying what is."""
        name = self.name
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise RulesError(f"rule {name!r} must be true or false")
        elif self.kind == "int":
            assert self.low is not None and self.high is not None
            ok = isinstance(value, int) and not isinstance(value, bool)
            if ok and self.off is not None and value == self.off:
                return value
            if not ok or not self.low <= value <= self.high:
                off = "" if self.off is None else f" (or {self.off}: off)"
                raise RulesError(
                    f"rule {name!r} must be a whole number from {self.low} to {self.high}{off}"
                )
        elif value not in self.choices:
            raise RulesError(f"rule {name!r} must be one of {list(self.choices)}")
        return value

    def describe(self, variant: str) -> dict[str, Any]:
        """The rule as `describe` publishes it for `variant`."""
        out: dict[str, Any] = {"name": self.name, "type": self.kind}
        if self.kind == "int":
            out["min"], out["max"] = self.low, self.high
            if self.off is not None:
                out["off"] = self.off
        if self.kind == "choice":
            out["choices"] = list(self.choices)
        out["default"] = self.defaults[variant]
        return out


_ALL = tuple(VARIANT_TABLE)
_KITTY = tuple(v.name for v in VARIANT_TABLE.values() if v.kitty)
_TWO_JOKERS = tuple(v.name for v in VARIANT_TABLE.values() if len(v.jokers) > 1)

RULE_SPECS: tuple[RuleSpec, ...] = (
    RuleSpec("target", "int", dict.fromkeys(_ALL, 21), low=5, high=99),
    RuleSpec("stick_the_dealer", "bool", dict.fromkeys(_ALL, False)),
    RuleSpec("trump_anytime", "bool", {v.name: v.follow_or_trump for v in VARIANT_TABLE.values()}),
    RuleSpec("kitty", "int", dict.fromkeys(_KITTY, 2), low=0, high=3),
    RuleSpec(
        "joker_order", "choice", dict.fromkeys(_TWO_JOKERS, "first_high"), choices=JOKER_ORDERS
    ),
    RuleSpec("hints", "bool", dict.fromkeys(_ALL, True)),
    RuleSpec("turn_seconds", "int", dict.fromkeys(_ALL, 0), low=10, high=300, off=0),
)
_SPEC = {spec.name: spec for spec in RULE_SPECS}


def rule_specs(variant: str) -> tuple[RuleSpec, ...]:
    """The house rules that apply to `variant`, in the order they are reported."""
    get_variant(variant)
    return tuple(spec for spec in RULE_SPECS if variant in spec.defaults)


def default_rules(variant: str) -> Rules:
    """The rules a table gets when nobody changes anything."""
    return Rules(**{spec.name: spec.defaults[variant] for spec in rule_specs(variant)})


def make_rules(variant: str, overrides: Mapping[str, Any] | None = None) -> Rules:
    """The house rules of a new room: the variant's defaults with `overrides` applied.

    Strict on purpose: a typo in a rule name or a rule of another game is an error rather
    than silently ignored, because a table that thinks it plays with a kitty of 3 and
    does not would be a bug report.
    """
    specs = {spec.name: spec for spec in rule_specs(variant)}
    values = {name: spec.defaults[variant] for name, spec in specs.items()}
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, Mapping):
        raise RulesError("rules must be an object")
    for key, value in overrides.items():
        spec = specs.get(key)
        if spec is None:
            if key in _SPEC:
                raise RulesError(f"rule {key!r} does not apply to {variant}")
            raise RulesError(f"unknown rule {key!r}")
        values[key] = spec.check(value)
    return Rules(**values)


def rules_to_json(rules: Rules) -> dict[str, Any]:
    """The protocol's `rules` object: every rule of the variant, none of the others."""
    out: dict[str, Any] = {}
    for spec in RULE_SPECS:
        value = getattr(rules, spec.name)
        if value is not None:
            out[spec.name] = value
    return out


def rules_from_json(variant: str, obj: Mapping[str, Any]) -> Rules:
    """The inverse of `rules_to_json` (validated like `make_rules`)."""
    return make_rules(variant, obj)
