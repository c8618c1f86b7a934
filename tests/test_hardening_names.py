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

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from schmier.api.http import web_directory
from schmier.protocol import CHAT_MAX, NAME_MAX, JoinRoom
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


@settings(max_examples=600, deadline=None, database=None, derandomize=True)
@given(raw=NASTY)
def test_a_name_is_capped_and_printable_or_refused(raw: str) -> None:
    try:
        name = JoinRoom.model_validate({"name": raw}).name
    except ValidationError:
        kept = "".join(ch for ch in raw if not unicodedata.category(ch).startswith("C"))
        assert not 1 <= len(" ".join(kept.split())) <= NAME_MAX
        return
    assert 1 <= len(name) <= NAME_MAX
    assert plain(name)
    assert name == name.strip() and "  " not in name
    assert not re.search(r"\s", name.replace(" ", ""))


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
