"""The games are data: only the variant table knows them by name.

Everything else in the engine (the phases, the rule book, the bots and their card
sense) asks a variant's flags or its rule book (`engine.describe`), never which game it
is, so a fourth game is a row of the table. Checked on the code itself: no string
constant outside a docstring names a game, and the bots do not even mention one.
"""

from __future__ import annotations

import ast
from pathlib import Path

from schmier import engine

ENGINE = Path(engine.__file__).parent


def _docstrings(tree: ast.AST) -> set[int]:
    """The string constants that stand alone as statements: docstrings and the
    attribute docstrings under an assignment."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def test_only_the_variant_table_names_the_games() -> None:
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        if path.name == "variants.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) in skip:
                    continue
                if any(name in node.value for name in engine.VARIANTS):
                    offenders.append(f"{path.relative_to(ENGINE)}:{node.lineno} {node.value!r}")
    assert not offenders


def test_the_bots_do_not_even_mention_a_game() -> None:
    """The bots and their card sense describe what they do by the rule book's features
    (fixed teams, a kitty, who discards), in their docstrings too."""
    sources = [ENGINE / "cardsense.py", *sorted((ENGINE / "bots").rglob("*.py"))]
    assert len(sources) > 2
    for path in sources:
        text = path.read_text(encoding="utf-8")
        assert not [name for name in engine.VARIANTS if name in text], path


def test_card_names_of_a_mask_are_a_fresh_list_each_time() -> None:
    """`cards.names` is cached by mask (the snapshot and the views spell the same hands
    action after action): it must spell every mask as the cards themselves do, and a
    caller that changes the list it got must not change what the next caller gets."""
    import random

    from schmier.engine.cards import CARD_NAMES, cards_of, names

    rng = random.Random(7)
    for _ in range(500):
        mask = rng.getrandbits(54)
        assert names(mask) == [CARD_NAMES[c] for c in cards_of(mask)]
    mask = (1 << 3) | (1 << 17) | (1 << 40)
    first = names(mask)
    first.append("XX")
    assert names(mask) == [CARD_NAMES[c] for c in cards_of(mask)]
    assert names(mask) is not names(mask)
