"""House rules (docs/rules.md "House rules", docs/protocol.md "Rules"): defaults,
ranges, and which rules apply to which game. Their effects are tested where they act:
stick_the_dealer in test_rules_bidding, trump_anytime and joker_order in
test_rules_play, kitty in test_rules_trump / test_rules_discards, target in
test_rules_end."""

from __future__ import annotations

from typing import Any

import pytest

from schmier import engine


@pytest.mark.parametrize("variant", ["schmier6", "schmier5"])
def test_schmier_defaults(variant: str) -> None:
    rules = engine.make_rules(variant)
    assert rules.target == 21
    assert rules.stick_the_dealer is False
    assert rules.trump_anytime is False
    assert rules.kitty is None
    assert rules.joker_order is None
    assert engine.rules_to_json(rules) == {
        "target": 21,
        "stick_the_dealer": False,
        "trump_anytime": False,
        "hints": True,
        "turn_seconds": 0,
    }


def test_wisconsin_defaults() -> None:
    """wisconsin4: trump_anytime on ("follow suit or trump"), kitty 2, first_high."""
    rules = engine.make_rules("wisconsin4")
    assert engine.rules_to_json(rules) == {
        "target": 21,
        "stick_the_dealer": False,
        "trump_anytime": True,
        "kitty": 2,
        "joker_order": "first_high",
        "hints": True,
        "turn_seconds": 0,
    }


@pytest.mark.parametrize(
    ("variant", "overrides"),
    [
        ("schmier6", {"target": 5}),
        ("schmier6", {"target": 99, "stick_the_dealer": True, "trump_anytime": True}),
        ("wisconsin4", {"kitty": 0, "joker_order": "second_high", "trump_anytime": False}),
        ("wisconsin4", {"kitty": 3}),
        ("schmier5", {}),
        ("schmier5", {"turn_seconds": 10}),
        ("wisconsin4", {"turn_seconds": 300}),
        ("schmier6", {"turn_seconds": 0}),
    ],
)
def test_overrides_are_kept(variant: str, overrides: dict[str, Any]) -> None:
    as_json = engine.rules_to_json(engine.make_rules(variant, overrides))
    for key, value in overrides.items():
        assert as_json[key] == value
    # A room's rules round-trip through their JSON form.
    assert engine.rules_to_json(engine.make_rules(variant, as_json)) == as_json


@pytest.mark.parametrize(
    ("variant", "overrides"),
    [
        ("schmier7", {}),
        ("schmier6", {"target": 4}),
        ("schmier6", {"target": 100}),
        ("schmier6", {"target": "21"}),
        ("schmier6", {"target": True}),
        ("schmier6", {"stick_the_dealer": 1}),
        ("schmier6", {"trump_anytime": "yes"}),
        ("schmier6", {"kitty": 2}),
        ("schmier5", {"joker_order": "first_high"}),
        ("wisconsin4", {"kitty": 4}),
        ("wisconsin4", {"kitty": -1}),
        ("wisconsin4", {"joker_order": "random"}),
        ("wisconsin4", {"ante": 1}),
        # The turn timer: off (0) or 10 to 300 whole seconds, nothing else.
        ("schmier6", {"turn_seconds": 9}),
        ("schmier6", {"turn_seconds": 1}),
        ("schmier6", {"turn_seconds": -10}),
        ("schmier5", {"turn_seconds": 301}),
        ("schmier6", {"turn_seconds": 30.0}),
        ("schmier6", {"turn_seconds": "30"}),
        ("wisconsin4", {"turn_seconds": True}),
        ("schmier6", {"turn_seconds": None}),
    ],
)
def test_bad_rules(variant: str, overrides: dict[str, Any]) -> None:
    """Unknown variant, unknown rule, bad value, or a rule that does not apply."""
    with pytest.raises(engine.RulesError):
        engine.make_rules(variant, overrides)
    assert issubclass(engine.RulesError, ValueError)


#: The house rules each game offers (docs/rules.md, "House rules"): the kitty and the
#: order of the two jokers exist only where there is a kitty and two jokers.
OFFERED = {
    "schmier6": {"target", "stick_the_dealer", "trump_anytime", "hints", "turn_seconds"},
    "schmier5": {"target", "stick_the_dealer", "trump_anytime", "hints", "turn_seconds"},
    "wisconsin4": {
        "target", "stick_the_dealer", "trump_anytime", "kitty", "joker_order", "hints",
        "turn_seconds",
    },
}  # fmt: skip


@pytest.mark.parametrize("variant", list(OFFERED))
def test_variants_offer_exactly_their_house_rules(variant: str) -> None:
    """What the room form is built from (`describe`'s `rules`), what `make_rules`
    accepts and what `rules_to_json` reports are the same rules for each game; every
    other game's rule is refused as not applying, not silently dropped."""
    assert tuple(OFFERED) == engine.VARIANTS
    offered = OFFERED[variant]
    published = engine.describe(variant)["rules"]
    assert {rule["name"] for rule in published} == offered
    defaults = {rule["name"]: rule["default"] for rule in published}
    assert engine.rules_to_json(engine.make_rules(variant)) == defaults
    everywhere = set().union(*OFFERED.values())
    for name in everywhere - offered:
        with pytest.raises(engine.RulesError, match="does not apply"):
            engine.make_rules(variant, {name: defaults.get(name, 0)})
    for name in offered:
        # Each offered rule set to its own default is accepted and reported as set.
        assert engine.rules_to_json(engine.make_rules(variant, {name: defaults[name]})) == defaults


def test_view_carries_the_rules() -> None:
    rules = engine.make_rules("wisconsin4", {"kitty": 1})
    state = engine.new_game("wisconsin4", rules, 0)
    view = engine.view(state, None)
    assert view["rules"] == engine.rules_to_json(rules)
    assert view["variant"] == "wisconsin4"
    lobby = engine.lobby_view("wisconsin4", rules, None)
    assert lobby["phase"] == "lobby"
    assert lobby["legal"] == []
    assert lobby["rules"]["kitty"] == 1
