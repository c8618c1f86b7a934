"""The browser's own check of the deals (web/sha256.js, web/fairness.js), run in Chromium
and held against the server's reference (schmier/engine/fairness.py, hashlib).

The modules are imported into a page of a real server, so they run exactly as the client
runs them: the same files, the same engine, plain http (where `crypto.subtle` does not
exist, which is why the client has its own SHA-256).
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from schmier import engine
from schmier.engine import fairness
from schmier.engine.cards import CARD_NAMES
from schmier.rooms.records import dealt_hands
from tests.support.browsers import PageFactory
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.browser

VARIANTS = ["schmier6", "schmier5", "wisconsin4"]


def canonical(variant: str) -> list[str]:
    return [CARD_NAMES[c] for c in fairness.canonical_deck(variant)]


def hexes(rng: random.Random, low: int, high: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(rng.randint(low, high)))


def record_of(variant: str, rng: random.Random) -> dict[str, Any]:
    """A hand record's deal part, made by the server's own code."""
    seats = engine.seat_count(variant)
    seed = hexes(rng, 64, 64)
    entropy = [hexes(rng, 16, 64) if rng.random() < 0.6 else None for _ in range(seats)]
    deck = [CARD_NAMES[c] for c in fairness.fair_deck(variant, seed, entropy)]
    dealer = rng.randrange(seats)
    hands, stock = dealt_hands(deck, dealer, seats)
    return {
        "n": 1,
        "variant": variant,
        "dealer": dealer,
        "deal": {
            "commitment": fairness.commitment(seed),
            "server_seed": seed,
            "entropy": entropy,
            "deck": deck,
        },
        "hands": hands,
        "stock": stock,
    }


@pytest.fixture
def page(pages: PageFactory, server_factory: ServerFactory) -> Any:
    server = server_factory()
    page = pages()
    page.goto(server.base_url + "/")
    page.wait_for_selector('button[data-action="create"]')
    return page


def run(page: Any, body: str, arg: Any) -> Any:
    """Run `body` in the page as an async function of `arg`, with `sha` and `fair` the
    client's modules (the page's CSP allows no `new Function`, so the text is sent as
    the function itself)."""
    script = f"""async (arg) => {{
      const sha = await import('/static/sha256.js');
      const fair = await import('/static/fairness.js');
      {body}
    }}"""
    return page.evaluate(script, arg)


def test_sha256_matches_hashlib_at_every_length_around_a_block(page: Any) -> None:
    rng = random.Random(256)
    texts = ["", "abc", "Schmier"] + [hexes(rng, n, n) for n in range(0, 200)] + ["x" * 1000]
    got = run(page, "return arg.map((x) => sha.sha256Hex(x));", texts)
    assert got == [hashlib.sha256(x.encode("ascii")).hexdigest() for x in texts]


def test_the_stream_of_numbers_is_the_servers(page: Any) -> None:
    seed = fairness.mixed_seed("ab" * 32, ["0123456789abcdef", None, "f" * 64])
    numbers = fairness.numbers(seed)
    wanted = [str(next(numbers)) for _ in range(40)]
    got = run(
        page,
        """const s = fair.mixedSeed('ab'.repeat(32), ['0123456789abcdef', null, 'f'.repeat(64)]);
           const it = fair.numbers(s); const out = [];
           for (let i = 0; i < 40; i += 1) out.push(it.next().value.toString());
           return [sha.hex(s), out];""",
        None,
    )
    assert got == [seed.hex(), wanted]


@pytest.mark.parametrize("variant", VARIANTS)
def test_decks_and_deals_are_the_servers(page: Any, variant: str) -> None:
    rng = random.Random(variant)
    records = [record_of(variant, rng) for _ in range(25)]
    got = run(
        page,
        """return arg.records.map((r) => {
             const deck = fair.fairDeck(arg.deck, r.deal.server_seed, r.deal.entropy);
             const dealt = fair.dealFrom(deck, r.dealer, r.hands.length);
             return {deck, hands: dealt.hands, stock: dealt.stock,
                     check: fair.checkRecord(r, arg.deck, 'seen')};
           });""",
        {"records": records, "deck": canonical(variant)},
    )
    for record, mine in zip(records, got, strict=True):
        assert mine["deck"] == record["deal"]["deck"]
        assert mine["hands"] == record["hands"]
        assert mine["stock"] == record["stock"]
        assert mine["check"]["state"] == "verified", mine["check"]


def tampered(record: dict[str, Any]) -> dict[str, tuple[dict[str, Any], str]]:
    """Copies of `record`, each with one lie, and the problem the check must name."""

    def copy() -> dict[str, Any]:
        result: dict[str, Any] = json.loads(json.dumps(record))
        return result

    seed = copy()
    seed["deal"]["server_seed"] = hexes(random.Random(1), 64, 64)
    commitment = copy()
    commitment["deal"]["commitment"] = "0" * 64
    deck = copy()
    d = deck["deal"]["deck"]
    d[0], d[-1] = d[-1], d[0]
    hand = copy()
    seat = (record["dealer"] + 1) % len(record["hands"])
    hand["hands"][seat][0], hand["stock"][0] = hand["stock"][0], hand["hands"][seat][0]
    entropy = copy()
    entropy["deal"]["entropy"][0] = "a" * 32 if entropy["deal"]["entropy"][0] is None else None
    missing = copy()
    missing["deal"]["server_seed"] = None
    return {
        "seed": (seed, "fair.problem.commitment"),
        "commitment": (commitment, "fair.problem.commitment"),
        "deck": (deck, "fair.problem.deck"),
        "hand": (hand, "fair.problem.hand"),
        "entropy": (entropy, "fair.problem.deck"),
        "missing": (missing, "fair.problem.no_seed"),
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_record_with_one_lie_fails_and_says_which(page: Any, variant: str) -> None:
    record = record_of(variant, random.Random(f"lie-{variant}"))
    lies = tampered(record)
    got = run(
        page,
        """const out = {};
           for (const [name, r] of Object.entries(arg.lies)) {
             out[name] = fair.checkRecord(r, arg.deck, 'seen');
           }
           out.unannounced = fair.checkRecord(arg.honest, arg.deck, 'unannounced');
           const legacy = {commitment: null, server_seed: null};
           out.legacy = fair.checkRecord(
             {...arg.honest, deal: {...arg.honest.deal, ...legacy}}, arg.deck, 'absent');
           return out;""",
        {"lies": {k: v[0] for k, v in lies.items()}, "honest": record, "deck": canonical(variant)},
    )
    for name, (_, problem) in lies.items():
        assert got[name]["state"] == "failed", name
        assert problem in [p["key"] for p in got[name]["problems"]], (name, got[name])
    assert got["unannounced"]["state"] == "failed"
    assert [p["key"] for p in got["unannounced"]["problems"]] == ["fair.problem.unannounced"]
    assert got["legacy"]["state"] == "unchecked"
