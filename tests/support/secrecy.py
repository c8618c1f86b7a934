"""What the secrecy tests share: finding cards in a frame, the states behind a log, and
the checks of hand records and server seeds."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import httpx
import orjson

from schmier import engine
from schmier.rooms.record import RoomRecord
from tests.support import loopback

CARD = re.compile(r"^(?:[2-9TJQKA][SHDC]|X[12])$")
ROOM_SEAT_FIELDS = ("name", "kind", "connected", "bot")
ROOM_FIELDS = (
    "code",
    "next_deal",
    "deal",
    "turn_ends_in",
    "idle_ends_in",
    "host",
    "paused",
    "rematch",
    "practice",
    "original",
)
"""What the server adds to the engine's view: the room's code, the deal commitments, the
time left of a timed turn (or of an untimed one, before the idle limit plays it), the
table's own state (its host, the host's pause, the rematch votes), and a practice room's
origin and the original hand's result (a finished hand's, as its record has it)."""


def cards_in(value: Any) -> set[str]:
    """Every card-like string anywhere in a JSON value (keys included)."""
    found: set[str] = set()
    if isinstance(value, str):
        if CARD.match(value):
            found.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= cards_in(key) | cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= cards_in(item)
    return found


def engine_part(view: dict[str, Any]) -> dict[str, Any]:
    """The view without the fields the server adds to the engine's. At `game_over` the
    room's `legal` (the rematch vote, the seats to change) is not the engine's either,
    nor while the host has paused the game (`[]`): left out then."""
    out = {k: v for k, v in view.items() if k not in ROOM_FIELDS}
    if view["phase"] == "game_over" or view.get("paused"):
        out.pop("legal", None)
    out["seats"] = [
        {k: v for k, v in s.items() if k not in ROOM_SEAT_FIELDS} for s in view["seats"]
    ]
    return out


def true_view(state: engine.State, seat: int | None, like: dict[str, Any]) -> dict[str, Any]:
    """The engine's view of the true `state` for `seat`, with the keys of `like` (an
    `engine_part`) only, to compare with it."""
    whole = engine_part(engine.view(state, seat))
    return {k: v for k, v in whole.items() if k in like}


def allowed_places(state: engine.State, seat: int | None) -> set[str]:
    places = {"trick"} | {f"won:{k}" for k in range(len(state.hands))}
    if seat is not None:
        places |= {f"hand:{seat}", f"discard:{seat}"}
    return places


CARD_JSON = re.compile(rb'"((?:[2-9TJQKA][SHDC]|X[12]))"')


def shown_cards(view: dict[str, Any]) -> set[str]:
    """Every card string in a view (keys and values), from its JSON: fast enough to run
    on every view of a thousand games. `call` entries of `legal` are left out: they may
    name any card but the bidder's own, which is the deck minus the bidder's hand and so
    no news to the bidder."""
    rest = orjson.dumps({k: v for k, v in view.items() if k != "legal"})
    legal = orjson.dumps([a for a in view["legal"] if a.get("type") != "call"])
    return {m.decode() for m in CARD_JSON.findall(rest + legal)}


def check_view(
    view: dict[str, Any],
    state: engine.State,
    seat: int | None,
    places: dict[str, str] | None = None,
) -> None:
    """Direct check: every card the view names is one `seat` may see."""
    places = engine.card_places(state) if places is None else places
    allowed = allowed_places(state, seat)
    called = view.get("called")
    last_called = (view.get("last_hand") or {}).get("called")
    for card in shown_cards(view):
        if card in (called, last_called) or card not in places:
            # The called card is public as a name; a card not in play this hand (none
            # is, between hands) cannot be a secret of this hand.
            continue
        assert places[card] in allowed, f"seat {seat} was shown {card} ({places[card]})"
    if state.partner is not None and not state.partner_revealed and seat != state.partner:
        assert view["partner"] is None, "the partner was revealed too early"
    if not state.trump_public:
        assert view["trump"] is None, "the trump was public too early"
        if seat != state.bidder:
            assert view.get("my_trump") is None, "a secret trump was shown to another seat"
    if seat is None:
        assert view["hand"] == [] and view["legal"] == [] and view["my_discards"] == []


async def ask_hint(client: Any) -> None:
    """Ask for a hint and wait (without taking any frame off the socket's queue) until
    the room has answered: the hint, or an error, or a new state (the room moved on
    before the bot had decided, so no hint comes). A `Player.before_act` hook."""
    start = len(client.frames)
    await client.send({"type": "hint"})
    deadline = asyncio.get_running_loop().time() + 20
    while not any(f["type"] in ("hint", "error", "state") for f in client.frames[start:]):
        assert asyncio.get_running_loop().time() < deadline, "the hint was never answered"
        await asyncio.sleep(0.005)


def check_hints(frames: list[dict[str, Any]]) -> int:
    """Every `hint` a socket got is one entry of the `legal` of the state it last had,
    at that state's `seq`, naming no card the seat's own view does not: it tells the seat
    nothing its own view does not (that view is checked against the true state). The count."""
    from schmier.rooms.autoplay import is_legal

    last: dict[str, Any] | None = None
    count = 0
    for frame in frames:
        if frame["type"] == "state":
            last = frame
        elif frame["type"] == "hint":
            assert last is not None, "a hint before any state"
            view = last["view"]
            assert frame["seq"] == last["seq"], (frame, last["seq"])
            assert view["you"] is not None and view["you"] in view["turn"], frame
            assert is_legal(frame["action"], view["legal"]), (frame, view["legal"])
            # Its own cards, or a card its `legal` names (a partner's card to call).
            assert cards_in(frame) <= set(view["hand"]) | cards_in(view["legal"]), frame
            assert set(frame) <= {"type", "seq", "action", "options"}, frame
            # The options the search weighed: the asker's own legal actions, with values.
            for option in frame.get("options", ()):
                assert is_legal(option["action"], view["legal"]), (option, view["legal"])
                assert isinstance(option["value"], float | int), option
            count += 1
    return count


def states_of(variant: str, rules: dict[str, Any], dealer: int, log: list[bytes]) -> list[Any]:
    """Every state of the room's games from the stored log, from the game's start (which
    waits in the `deal` phase while the players reveal their entropy) on, rematches too."""
    state = engine.new_game(variant, engine.make_rules(variant, rules), dealer)
    states = [state]
    for raw in log:
        entry = orjson.loads(raw)
        state = engine.apply(state, entry["seat"], entry["action"])
        states.append(state)
    return states


# ------------------------------------------------------------------ records and seeds

IN_PLAY = ("bidding", "trump", "discard", "call", "play")


def seeds_of(log: list[bytes], final: RoomRecord) -> dict[str, str]:
    """Every server seed of the room, by commitment: each deal's (from the log) and the
    one of the deck not dealt yet (from the stored snapshot)."""
    seeds = {}
    for raw in log:
        deal = orjson.loads(raw).get("deal")
        if deal is not None:
            seeds[deal["commitment"]] = deal["server_seed"]
    assert final.next_deal is not None
    seeds[final.next_deal.commitment] = final.next_deal.server_seed
    return seeds


def players_secrets(log: list[bytes], final: RoomRecord) -> set[str]:
    """Every commit and value any player sent for any deck of the room: each deal's
    (from the log) and those of the deck not dealt yet (from the stored snapshot)."""
    found: set[str] = set()
    for raw in log:
        deal = orjson.loads(raw).get("deal")
        if deal is not None:
            found |= {x for x in (*(deal.get("commits") or ()), *deal["entropy"]) if x}
    assert final.next_deal is not None
    found |= {x for x in (*final.next_deal.commits, *final.next_deal.values) if x}
    return found


def no_seed_in_frames(
    frames: list[dict[str, Any]], seeds: dict[str, str], secrets: set[str] = frozenset()
) -> None:
    """No frame of any kind ever carries a server seed, nor any player's commit or value
    (`secrets`): views show commitments, and who committed, only."""
    for frame in frames:
        text = orjson.dumps(frame).decode()
        for seed in seeds.values():
            assert seed not in text, f"a {frame['type']} frame holds a server seed"
        for secret in secrets:
            assert secret not in text, f"a {frame['type']} frame holds a player's commit or value"
        if frame["type"] == "state":
            view = frame["view"]
            assert set(view["next_deal"] or {}) <= {"commitment", "committed", "revealing"}
            assert all(
                isinstance(seat, int) for seat in (view["next_deal"] or {}).get("committed", [])
            )
            assert set(view["deal"] or {}) <= {"commitment"}


def check_reveals(frames: list[dict[str, Any]], seat: int | None) -> int:
    """Every `reveal` frame a socket got asks for the deck whose reveal was just shown
    open, with its seat among those that committed (a spectator gets none). The count."""
    last: dict[str, Any] | None = None
    count = 0
    for frame in frames:
        if frame["type"] == "state":
            last = frame["view"]["next_deal"]
        elif frame["type"] == "reveal":
            assert seat is not None, "a spectator was asked to reveal"
            assert last is not None and last["revealing"], frame
            assert frame["commitment"] == last["commitment"] and seat in last["committed"]
            count += 1
    return count


class RecordPoller:
    """Asks for the room's hands, every record (and the numbers past them) and its
    history all game long, reading the stored room just before and after each round.

    A hand in play at both reads was in play throughout the round (each deal has a
    commitment of its own), so nothing answered may belong to it: no record with its
    commitment, not its seed, no record past the finished ones. The deck committed at the
    first read and still not dealt at the second must not show its seed either. Every
    record answered is kept, to be compared with the final records (a record of a hand is
    the same whenever it is asked for).
    """

    def __init__(self, server: Any, code: str, club: tuple[str, str] | None = None) -> None:
        self.server = server
        self.code = code
        self.club = club
        """(code, member key) of the room's club: its pages are asked too (the archive,
        a game with its hands, the standings, the export, the club itself)."""
        self.archived: set[str] = set()
        """The ids of the club's games seen in the archive."""
        self.records: list[dict[str, Any]] = []
        self.rounds = 0
        self.live_rounds = 0

    async def _stored(self) -> tuple[RoomRecord, list[bytes]]:
        store = self.server.app.state.rooms.store
        stored = await store.load(self.code)
        assert stored is not None
        return RoomRecord.from_bytes(stored.snapshot), await store.read_log(self.code)

    async def run(self, stop: asyncio.Event) -> None:
        """Rounds until `stop`, racing the game."""
        while not stop.is_set():
            await self.round()
            await asyncio.sleep(0.01)

    async def round(self) -> None:
        """One round of questions (a player about to act asks one too: the game waits
        for that player, so the hand in play stays in play throughout)."""
        base = f"/api/rooms/{self.code}"
        async with loopback.async_client(base_url=self.server.base_url) as http:
            before, _ = await self._stored()
            answers: list[tuple[int, httpx.Response]] = []
            listed = await http.get(f"{base}/hands")
            assert listed.status_code == 200, listed.text
            count = len(listed.json())
            for n in range(1, count + 3):
                answers.append((n, await http.get(f"{base}/hands/{n}")))
            # The analysis of the hand in play (and past it): a 404 as the record is, and
            # so is only looking (`start=0`, the hand summary's question).
            analyses = [
                (n, await http.get(f"{base}/hands/{n}/analysis{query}"))
                for n in (0, count + 1)
                for query in ("", "?start=0")
            ]
            history = await http.get(f"{base}/history")
            assert history.status_code == 200, history.text
            pages = [] if self.club is None else await self._club_pages(http, before.variant)
            after, log = await self._stored()
        self._check(before, after, log, count, [listed, history, *pages], answers, analyses)
        if self.club is not None:
            self._check_archive(after, pages[1].json())

    async def _club_pages(self, http: httpx.AsyncClient, variant: str) -> list[httpx.Response]:
        """Every page of the club (the second is its list of games)."""
        assert self.club is not None
        club, key = self.club
        headers = {"Authorization": f"Bearer {key}"}
        base = f"/api/clubs/{club}"
        pages = [await http.get(base, headers=headers)]
        pages.append(await http.get(f"{base}/games", headers=headers))
        for game in pages[-1].json():
            pages.append(await http.get(f"{base}/games/{game['id']}", headers=headers))
        pages.append(await http.get(f"{base}/standings?variant={variant}", headers=headers))
        pages.append(await http.get(f"{base}/standings.csv?variant={variant}", headers=headers))
        pages.append(await http.get(f"{base}/export", headers=headers))
        for page in pages:
            assert page.status_code == 200, page.text
        return pages

    def _check_archive(self, after: RoomRecord, games: list[dict[str, Any]]) -> None:
        """The archive holds finished games only: never the one in play."""
        for game in games:
            if game["room"] != self.code:
                continue
            self.archived.add(game["id"])
            assert game["winners"], "an unfinished game in the archive"
            if after.phase != "game_over":
                assert game["game"] < (after.game or 0), "the game in play is archived"

    async def now_and_then(self, view: dict[str, Any]) -> None:
        """A `Player.before_act` hook: a round before every fifth action."""
        self._acts = getattr(self, "_acts", 0) + 1
        if self._acts % 5 == 0:
            await self.round()

    def _check(
        self,
        before: RoomRecord,
        after: RoomRecord,
        log: list[bytes],
        count: int,
        lists: list[httpx.Response],
        answers: list[tuple[int, httpx.Response]],
        analyses: Sequence[tuple[int, httpx.Response]] = (),
    ) -> None:
        self.rounds += 1
        for n, answer in analyses:
            if n == 0 or answer.status_code == 404:
                assert answer.status_code == 404, (n, answer.text)
                assert not cards_in(answer.json()), answer.text
            else:  # the hand `count + 1` ended meanwhile: it may be analysed (or refused;
                # `?start=0` answers 204 where it would start one)
                assert answer.status_code in (200, 202, 204, 429), answer.text
        text = "".join(r.text for r in lists) + "".join(r.text for _, r in answers)
        for n, answer in answers:
            if n <= count:
                assert answer.status_code == 200, (n, answer.text)
            if answer.status_code == 200:
                record = answer.json()
                assert record["n"] == n
                self.records.append(record)
            else:
                assert answer.status_code == 404, answer.text
                assert not cards_in(answer.json()), answer.text
        pending = before.next_deal
        assert pending is not None and after.next_deal is not None
        if after.next_deal.commitment == pending.commitment:
            assert pending.server_seed not in text, "the seed of an undealt deck was answered"
            # Nor any commit or value sent for it.
            for secret in (*after.next_deal.commits, *after.next_deal.values):
                assert not secret or secret not in text, "a commit of an undealt deck"
        live = (
            before.dealt is not None
            and before.dealt == after.dealt
            and before.phase in IN_PLAY
            and after.phase in IN_PLAY
        )
        if not live:
            return
        self.live_rounds += 1
        seed = seeds_of(log, after)[before.dealt]
        assert seed not in text, "the seed of the hand in play was answered"
        for raw in log:
            deal = orjson.loads(raw).get("deal") or {}
            if deal.get("commitment") == before.dealt:
                for secret in (*(deal.get("commits") or ()), *(deal.get("entropy") or ())):
                    assert not secret or secret not in text, "a value of the hand in play"
        for n, answer in [*answers, *analyses]:
            if n > count:
                assert answer.status_code == 404, f"hand {n} answered while in play"
            if answer.status_code == 200:
                assert answer.json()["deal"]["commitment"] != before.dealt

    def check_against(self, final: list[dict[str, Any]]) -> None:
        """Every record answered during the game is the final record of that hand."""
        by_number = {r["n"]: r for r in final}
        for record in self.records:
            assert by_number[record["n"]] == record
