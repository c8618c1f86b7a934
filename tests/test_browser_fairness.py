"""The browser's own check of the deals (web/sha256.js, web/fairness.js), run in Chromium
and held against the server's reference (schmier/engine/fairness.py, hashlib).

The modules are imported into a page of a real server, so they run exactly as the client
runs them: the same files, the same engine, plain http (where `crypto.subtle` does not
exist, which is why the client has its own SHA-256).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import threading
from typing import Any

import pytest

from schmier import engine
from schmier.engine import fairness
from schmier.engine.cards import CARD_NAMES
from schmier.rooms.records import dealt_hands
from tests.support.browsers import PageFactory
from tests.support.records import whole_game
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.browser

VARIANTS = ["schmier6", "schmier5", "wisconsin4"]


def canonical(variant: str) -> list[str]:
    return [CARD_NAMES[c] for c in fairness.canonical_deck(variant)]


def hexes(rng: random.Random, low: int, high: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(rng.randint(low, high)))


def record_of(variant: str, rng: random.Random, kinds: tuple[str, ...] = ()) -> dict[str, Any]:
    """A hand record's deal part, made by the server's own code: each seat committed
    and revealed, committed and withheld (its commit is its entropy), or did neither
    (`kinds` for the first seats, at random for the others)."""
    seats = engine.seat_count(variant)
    seed = hexes(rng, 64, 64)
    entropy: list[str | None] = []
    commits: list[str | None] = []
    withheld = []
    for seat in range(seats):
        kind = kinds[seat] if seat < len(kinds) else rng.choice(["revealed", "withheld", "none"])
        value = hexes(rng, 16, 64)
        commits.append(None if kind == "none" else fairness.entropy_commit(value))
        entropy.append(value if kind == "revealed" else commits[-1])
        if kind == "withheld":
            withheld.append(seat)
    deck = [CARD_NAMES[c] for c in fairness.fair_deck(variant, seed, entropy)]
    dealer = rng.randrange(seats)
    hands, stock = dealt_hands(deck, dealer, seats)
    return {
        "n": 1,
        "variant": variant,
        "dealer": dealer,
        "seats": [{"seat": k, "name": f"P{k}", "kind": "human"} for k in range(seats)],
        "deal": {
            "commitment": fairness.commitment(seed),
            "server_seed": seed,
            "entropy": entropy,
            "commits": commits,
            "withheld": withheld,
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
        deal = record["deal"]
        revealed = [s for s, h in enumerate(deal["commits"]) if h and s not in deal["withheld"]]
        assert mine["check"]["revealed"] == len(revealed)
        assert [w["seat"] for w in mine["check"]["withheld"]] == deal["withheld"]


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
    # A revealed value that is not the one committed to, re-dealt from honestly: only
    # the commit check can tell. The same for a withheld seat whose entropy is not its
    # commit, and for a value of a seat that never committed.
    deal = record["deal"]
    revealed = next(s for s, h in enumerate(deal["commits"]) if h and s not in deal["withheld"])
    withheld = deal["withheld"][0]
    silent = deal["commits"].index(None)
    lies = {}
    for name, seat in (("reveal", revealed), ("withheld", withheld), ("uncommitted", silent)):
        lie = copy()
        lie["deal"]["entropy"][seat] = "c0ffee" * 5
        lies[name] = redealt(lie)
    return {
        **{name: (lie, f"fair.problem.{name}") for name, lie in lies.items()},
        "seed": (seed, "fair.problem.commitment"),
        "commitment": (commitment, "fair.problem.commitment"),
        "deck": (deck, "fair.problem.deck"),
        "hand": (hand, "fair.problem.hand"),
        "entropy": (entropy, "fair.problem.deck"),
        "missing": (missing, "fair.problem.no_seed"),
    }


def redealt(record: dict[str, Any]) -> dict[str, Any]:
    """`record` with the deck, hands and stock its seed and entropy give (so that only a
    check of the commits can find what is wrong with it)."""
    deal = record["deal"]
    seats = len(record["hands"])
    deck = [
        CARD_NAMES[c]
        for c in fairness.fair_deck(record["variant"], deal["server_seed"], deal["entropy"])
    ]
    deal["deck"] = deck
    record["hands"], record["stock"] = dealt_hands(deck, record["dealer"], seats)
    return record


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_record_with_one_lie_fails_and_says_which(page: Any, variant: str) -> None:
    record = record_of(variant, random.Random(f"lie-{variant}"), ("revealed", "withheld", "none"))
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
           const open = {commits: null, withheld: []};  // before commit-reveal
           out.open = fair.checkRecord(
             {...arg.honest, deal: {...arg.honest.deal, ...open}}, arg.deck, 'seen');
           out.honest = fair.checkRecord(arg.honest, arg.deck, 'seen');
           return out;""",
        {"lies": {k: v[0] for k, v in lies.items()}, "honest": record, "deck": canonical(variant)},
    )
    for name, (_, problem) in lies.items():
        assert got[name]["state"] == "failed", name
        assert problem in [p["key"] for p in got[name]["problems"]], (name, got[name])
    assert got["unannounced"]["state"] == "failed"
    assert [p["key"] for p in got["unannounced"]["problems"]] == ["fair.problem.unannounced"]
    assert got["legacy"]["state"] == "unchecked"
    assert got["open"]["state"] == "verified" and not got["open"]["commits"]
    honest = got["honest"]
    assert honest["state"] == "verified" and honest["commits"]
    withheld = record["deal"]["withheld"]
    assert honest["withheld"] == [{"seat": s, "name": f"P{s}"} for s in withheld]
    revealed = [s for s, h in enumerate(record["deal"]["commits"]) if h and s not in withheld]
    assert honest["revealed"] == len(revealed) >= 1


def test_the_check_says_what_was_revealed_and_who_withheld(page: Any) -> None:
    """The line under a hand and the review's deal panel: how many revealed values
    matched their commitments; a withheld value said plainly, by name, in both; each
    seat's commitment shown beside its value."""
    record = record_of("schmier5", random.Random("shown"), ("revealed", "withheld", "none"))
    record["deal"]["withheld"] = [1]  # exactly one: seat 1 (P1)
    record["deal"]["commits"][3:] = [None, None]
    record["deal"]["entropy"][3:] = [None, None]
    redealt(record)
    got = page.evaluate(
        """async (arg) => {
             const i18n = await import('/static/i18n.js');
             await i18n.setLanguage('en');
             const fair = await import('/static/fairness.js');
             const view = await import('/static/fairview.js');
             const parts = await import('/static/handparts.js');
             const outcome = fair.checkRecord(arg.record, arg.deck, 'seen');
             const panel = parts.dealPanel(arg.record, outcome);
             return {
               state: outcome.state,
               line: view.fairLine(outcome, 1).textContent,
               marked: [...panel.querySelectorAll('dd [data-withheld]')]
                 .map((e) => e.dataset.withheld),
               panel: panel.textContent,
             };
           }""",
        {"record": record, "deck": canonical("schmier5")},
    )
    assert got["state"] == "verified"
    assert "1 value was revealed, and it matches its commitment." in got["line"]
    assert "Withheld (not revealed in time" in got["line"] and got["line"].endswith(": P1.")
    assert got["marked"] == ["1"]
    assert "withheld (not revealed in time): its commitment was used" in got["panel"]
    for commit in record["deal"]["commits"][:2]:
        assert commit in got["panel"]
    assert "Commitment of P0" in got["panel"] and "Commitment of P2" not in got["panel"]


WHOLE_GAMES = [
    ("schmier6", [0, 3, 4], frozenset({4})),
    ("schmier5", [1, 2], frozenset({1})),
    ("wisconsin4", [0, 2], frozenset({2})),
]


def test_whole_games_of_every_variant_verify(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    """Every record of a whole game over the wire, in every variant, with players who
    commit and reveal and one who withholds, verifies in the browser's check, which
    counts the revealed values and names the seat that withheld its value.

    The server waits `reveal_ms` for the values before it deals without the silent
    seat's: 1 s, not less, so that a revealing player's answer is never late on a busy
    machine (at 100 ms, one arrived after the deal in a loaded whole-suite run: refused
    as it should be, and the test's player failed on the refusal)."""
    server = server_factory(reveal_ms=1000)

    async def main() -> dict[str, list[dict[str, Any]]]:
        out = {}
        for variant, humans, silent in WHOLE_GAMES:
            table, records = await whole_game(server, variant, humans, {"target": 5}, silent)
            await table.close()
            out[variant] = records
        return out

    outcome: dict[str, Any] = {}

    def wire() -> None:
        try:
            outcome["records"] = asyncio.run(main())
        except BaseException as exc:  # handed to the test's thread below
            outcome["error"] = exc

    thread = threading.Thread(target=wire, name="whole-games")
    thread.start()
    thread.join(300)
    if "error" in outcome:
        raise outcome["error"]
    page = pages()
    page.goto(server.base_url + "/")
    page.wait_for_selector('button[data-action="create"]')
    for variant, humans, silent in WHOLE_GAMES:
        records = outcome["records"][variant]
        assert records
        got = run(
            page,
            "return arg.records.map((r) => fair.checkRecord(r, arg.deck, 'absent'));",
            {"records": records, "deck": canonical(variant)},
        )
        for record, check in zip(records, got, strict=True):
            assert check["state"] == "verified", (variant, record["n"], check)
            assert check["commits"] and check["revealed"] == len(humans) - len(silent)
            assert [w["seat"] for w in check["withheld"]] == sorted(silent)
            assert [w["name"] for w in check["withheld"]] == [f"Player {s}" for s in sorted(silent)]
