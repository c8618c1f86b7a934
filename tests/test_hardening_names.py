"""Names and chat: capped, stripped of control characters, and only ever shown as text.

Hypothesis throws arbitrary Unicode (control and format characters, bidi overrides,
zero-width joiners, line and paragraph separators, private-use and unassigned code
points, markup) at the name rule, at a live server's join and at its chat. Whatever
comes out the other side is 1 to 24 (names) or 1 to 300 (chat) characters with no
character of Unicode's "Other" categories (chat keeps line breaks), and is the same
string in the HTTP answer, in every seat's view and in the chat line. The browser
client puts names and chat into the page only as text; `tests/test_browser.py` shows a
markup name staying text in a real browser, and the check below keeps the client's
code free of the HTML-parsing calls that could turn a name into markup.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from schmier.api.http import web_directory
from schmier.protocol import CHAT_MAX, NAME_MAX, JoinRoom
from schmier.protocol.names import BLANKS, INVISIBLE, MARKS_PER_LETTER
from tests.support import loopback
from tests.support.servers import Client, RunningServer, ServerFactory

NASTY = st.text(
    alphabet=st.one_of(
        st.characters(exclude_categories=["Cs"]),
        st.sampled_from(
            "\x00\x07\x1b\x7f\u0085\u200b\u200d\u200e\u202e\u2028\u2029\u2066\ufeff\ue000"
            "<>&\"' \t\n\r"
        ),
    ),
    max_size=60,
)


def plain(text: str, keep_newlines: bool = False) -> bool:
    """No character of the Unicode "Other" categories (Cc, Cf, Cs, Co, Cn)."""
    return all(
        (keep_newlines and ch == "\n") or not unicodedata.category(ch).startswith("C")
        for ch in text
    )


SHALOM = "\u05e9\u05c1\u05b8\u05dc\u05d5\u05b9\u05dd"


def visible_in(raw: str) -> bool:
    """Whether `raw` holds a character that shows: after NFKC, one that is no space, no
    mark, of no "C" category, not default-ignorable and not a blank cell."""
    return any(
        not (ch.isspace() or unicodedata.category(ch)[0] in "CM" or ch in INVISIBLE | BLANKS)
        for ch in unicodedata.normalize("NFKC", raw)
    )


def marks_per_letter(name: str) -> int:
    """The most combining marks on one letter of `name`."""
    most = run = 0
    for ch in name:
        run = run + 1 if unicodedata.category(ch).startswith("M") else 0
        most = max(most, run)
    return most


@settings(max_examples=600, deadline=None, database=None, derandomize=True)
@given(raw=NASTY | st.text(alphabet=st.characters(categories=["M", "Zs", "Cf"]), max_size=8))
def test_a_name_is_capped_and_printable_or_refused(raw: str) -> None:
    try:
        name = JoinRoom.model_validate({"name": raw}).name
    except ValidationError as exc:
        why = str(exc)
        if "show something" in why:
            assert not visible_in(raw)
        elif "marks" not in why:
            assert "1 to 24" in why and len(unicodedata.normalize("NFKC", raw)) > NAME_MAX
        return
    assert visible_in(raw) and visible_in(name)
    assert 1 <= len(name) <= NAME_MAX
    assert plain(name) and not set(name) & (INVISIBLE | BLANKS)
    assert name == name.strip() and "  " not in name
    assert not re.search(r"\s", name.replace(" ", ""))
    assert not unicodedata.category(name[0]).startswith("M")  # no mark without a letter
    assert marks_per_letter(name) <= MARKS_PER_LETTER
    assert unicodedata.is_normalized("NFC", name)


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("\u3164", "show something"),  # HANGUL FILLER
        ("\u3164\u3164 \uffa0", "show something"),
        ("\u2800", "show something"),  # BRAILLE PATTERN BLANK
        ("\u2800\u200b\u2800", "show something"),
        ("\ufe0f", "show something"),  # an emoji variation selector alone
        ("\ufe0e\ufe0f\U000e0100", "show something"),
        ("\u0301\u0302\u0303", "show something"),  # marks without a letter
        ("\u034f\u115f\u1160", "show something"),
        ("\u200d\u2060\u00ad", "show something"),  # format characters
        ("Z" + "\u0336" * 23 + "oe", "marks"),  # 23 combining overlays on one letter
        ("x\u0301\u0302\u0303\u0304", "marks"),
    ],
)
def test_names_that_show_nothing_or_pile_marks_are_refused(raw: str, why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        JoinRoom.model_validate({"name": raw})


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("\uff21\uff4c\uff49\uff43\uff45", "Alice"),  # full-width: NFKC
        ("  Ann \t\u3000 Lee\u2800", "Ann Lee"),
        ("Al\u3164ice", "Alice"),
        ("Nguye\u0302\u0303n", "Nguy\u1ec5n"),  # two marks, composed
        (SHALOM, unicodedata.normalize("NFC", SHALOM)),  # Hebrew with its points
        ("\u2764\ufe0f Bea", "\u2764\ufe0f Bea"),  # an emoji keeps its selector
        ("\u0301Zo\u00eb", "Zo\u00eb"),
    ],
)
def test_names_are_normalised(raw: str, name: str) -> None:
    assert JoinRoom.model_validate({"name": raw}).name == name


async def test_look_alike_names_are_refused_at_one_table(server: RunningServer) -> None:
    """A join under a name that looks like one at the table is a 409 that says so
    (Cyrillic "Аlice" beside Latin "Alice", case, I and l, a bot's name); elsewhere, or
    once the look-alike has left the table, the name is fine."""
    code = await server.create_room("schmier6")
    other_room = await server.create_room("schmier6")
    async with loopback.async_client(base_url=server.base_url) as http:

        async def join(room: str, name: str, seat: int | None = None) -> httpx.Response:
            body: dict[str, object] = {"name": name}
            if seat is not None:
                body["seat"] = seat
            return await http.post(f"/api/rooms/{room}/join", json=body)

        assert (await join(code, "Alice")).status_code == 200
        assert (await join(code, "Ian")).status_code == 200
        for name, like in (
            ("\u0410lice", "Alice"),  # Cyrillic capital A
            ("ALICE", "Alice"),
            ("\u0391\u217c\u0456ce", "Alice"),  # Greek Alpha, Roman numeral fifty, Cyrillic i
            ("lan", "Ian"),
            ("Alice", "Alice"),
        ):
            refused = await join(code, name)
            assert refused.status_code == 409, name
            detail = refused.json()["detail"]
            assert "looks too much like" in detail and repr(like) in detail, detail
        assert (await join(other_room, "\u0410lice")).status_code == 200
        # A bot's name counts too (a player may not pass for a bot), its own seat's
        # bot's included: a person taking that seat over keeps a name of their own.
        alice = await join(code, "Bea")
        bea = await Client.seated(server, code, alice.json()["token"])
        await bea.send({"type": "add_bot", "seat": 5})
        view = (await bea.wait_state(lambda v: v["seats"][5]["kind"] == "bot"))["view"]
        bot_name = view["seats"][5]["name"]
        assert (await join(code, bot_name, 4)).status_code == 409
        assert (await join(code, bot_name, 5)).status_code == 409
        assert (await join(code, "Cleo", 5)).status_code == 200
        await bea.close()


@pytest.fixture
def roomy(server_factory: ServerFactory) -> RunningServer:
    return server_factory(chat_burst=1000, chat_window=1.0)


async def test_names_read_the_same_everywhere(roomy: RunningServer) -> None:
    server = roomy
    names: list[str] = []

    @settings(
        max_examples=40,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(raw=NASTY)
    def collect(raw: str) -> None:
        names.append(raw)

    collect()
    async with loopback.async_client(base_url=server.base_url) as http:
        code = ""
        for index, raw in enumerate(names):
            if index % 6 == 0:
                code = (await http.post("/api/rooms", json={"variant": "schmier6"})).json()["code"]
            answer = await http.post(f"/api/rooms/{code}/join", json={"name": raw})
            if answer.status_code == 422:
                continue
            if answer.status_code == 409:  # looks like a name already at that table
                assert "looks too much like" in answer.json()["detail"]
                continue
            assert answer.status_code == 200, answer.text
            seat, token = answer.json()["seat"], answer.json()["token"]
            shown = (await http.get(f"/api/rooms/{code}")).json()["seats"][seat]["name"]
            assert shown == JoinRoom.model_validate({"name": raw}).name
            assert 1 <= len(shown) <= NAME_MAX and plain(shown)
            client = await Client.seated(server, code, token)
            assert client.state is not None
            assert client.state["view"]["seats"][seat]["name"] == shown
            await client.close()


async def test_chat_is_capped_and_stripped(roomy: RunningServer) -> None:
    server = roomy
    code = await server.create_room("schmier6")
    _, token = await server.join(code, "Ann", 0)
    talker = await Client.seated(server, code, token)
    listener = await Client.seated(server, code, None)
    texts: list[str] = []

    @settings(
        max_examples=80,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(raw=st.one_of(NASTY, st.text(min_size=290, max_size=320)))
    def collect(raw: str) -> None:
        texts.append(raw)

    collect()
    lines = errors = 0
    for raw in texts:
        await talker.send({"type": "chat", "text": raw})
        answer = await talker.recv()
        if answer["type"] == "error":
            assert answer["code"] == "bad_message", answer
            errors += 1
            continue
        assert answer["type"] == "chat", answer
        heard = await listener.recv()
        assert heard == answer == {"type": "chat", "seat": 0, "name": "Ann", "text": heard["text"]}
        text = heard["text"]
        assert 1 <= len(text) <= CHAT_MAX
        assert plain(text, keep_newlines=True)
        assert text == text.strip()
        lines += 1
    assert lines > 10 and errors > 0
    await talker.close()
    await listener.close()


def test_the_client_never_parses_names_as_html() -> None:
    web = web_directory()
    assert web is not None
    for script in sorted(Path(web).glob("*.js")):
        text = script.read_text()
        for call in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
            assert call not in text, f"{script.name} uses {call}"
        assert "createContextualFragment" not in text and "DOMParser" not in text
