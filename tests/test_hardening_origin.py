"""Cross-site use: the socket's Origin check, and the headers every answer carries.

`tests/test_ws.py::test_origin_check` tries three foreign origins on a live server;
here the check itself is tried against the tricks that fool a naive one (a look-alike
suffix, user-info, another port or scheme, case, `null`), the allow-list is read from
`SCHMIER_ALLOWED_ORIGINS` as an operator sets it, and every kind of HTTP answer (pages,
scripts, the API, its refusals and errors) is checked for a Content-Security-Policy that
allows no inline script and no framing, `nosniff` and a `Referrer-Policy`. The page
itself holds no inline script, handler or style that such a policy would have to allow.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
import websockets

from schmier.api.http import web_directory
from schmier.api.security import origin_allowed
from schmier.config import Settings
from tests.support import loopback
from tests.support.servers import Client, RunningServer, ServerFactory

HOST = "play.example:8443"
ALLOW = frozenset({"https://friends.example"})


@pytest.mark.parametrize(
    "origin",
    [
        "https://play.example:8443",
        "http://play.example:8443",
        "HTTPS://PLAY.EXAMPLE:8443",
        "https://play.example:8443/",
        "https://friends.example",
        "https://Friends.Example/",
        None,  # not a browser: no cross-site request is possible
    ],
)
def test_origins_allowed(origin: str | None) -> None:
    assert origin_allowed(origin, HOST, ALLOW)


@pytest.mark.parametrize(
    "origin",
    [
        "https://play.example",  # another port
        "https://play.example:8444",
        "https://play.example:8443.evil.example",
        "https://evil.example#play.example:8443",
        "https://play.example:8443@evil.example",
        "https://evil.example/play.example:8443",
        "https://user@play.example:8443",
        "ws://play.example:8443",
        "file://play.example:8443",
        "null",
        "",
        "https://friends.example.evil.example",
        "https://evil-friends.example",
        "http://friends.example",  # the allow-list names the scheme too
    ],
)
def test_origins_refused(origin: str) -> None:
    assert not origin_allowed(origin, HOST, ALLOW)


def test_no_host_means_only_the_allow_list() -> None:
    assert not origin_allowed("https://play.example:8443", None, ALLOW)
    assert origin_allowed("https://friends.example", None, ALLOW)


def test_the_allow_list_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHMIER_ALLOWED_ORIGINS", " https://A.example/ ,https://b.example:9000,, ")
    assert Settings().origin_allowlist == {"https://a.example", "https://b.example:9000"}


async def test_a_foreign_origin_gets_no_socket(server_factory: ServerFactory) -> None:
    server = server_factory(allowed_origins="https://friends.example")
    code = await server.create_room("schmier6")
    for evil in (
        f"http://127.0.0.1:{server.port}@evil.example",
        f"http://127.0.0.1:{server.port + 1}",
        "https://friends.example.evil.example",
    ):
        with pytest.raises(websockets.InvalidStatus) as refused:
            await Client.connect(server.ws_url(code), origin=evil)
        assert refused.value.response.status_code == 403
    # A non-browser client (no Origin at all) and an allowed one are served.
    for origin in (None, "https://friends.example"):
        client = await Client.connect(server.ws_url(code), origin=origin)
        await client.hello()
        await client.close()


def check_headers(answer: httpx.Response) -> None:
    headers = answer.headers
    csp = {
        part.strip().split(" ", 1)[0]: part.strip()
        for part in headers["content-security-policy"].split(";")
    }
    for directive in ("script-src", "default-src"):
        if directive in csp:
            assert "'unsafe-inline'" not in csp[directive], answer.url
            assert "'unsafe-eval'" not in csp[directive], answer.url
    assert "script-src" in csp or "default-src" in csp
    assert csp["frame-ancestors"] in ("frame-ancestors 'none'", "frame-ancestors 'self'")
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] in ("no-referrer", "same-origin", "strict-origin")


async def test_every_kind_of_answer_has_the_headers(server_factory: ServerFactory) -> None:
    server: RunningServer = server_factory(create_rate=1, lookup_fail_rate=1)
    async with loopback.async_client(base_url=server.base_url) as http:
        answers = [
            await http.get("/"),
            await http.get("/r/abcdefghij"),
            await http.get("/static/app.js"),
            await http.get("/static/style.css"),
            await http.get("/static/nope.js"),
            await http.get("/openapi.json"),
            await http.get("/api/protocol.json"),
            await http.get("/metrics"),
            await http.get("/healthz"),
            await http.post("/api/rooms", json={"variant": "schmier6"}),
            await http.post("/api/rooms", json={"variant": "schmier6"}),  # 429
            await http.post("/api/rooms", content=b"{"),  # 422
            await http.delete("/api/rooms"),  # 405
            await http.get("/api/rooms/cccccccccc"),  # 404
            await http.get("/api/rooms/cccccccccc"),  # 429
            await http.get("/no/such/page"),
        ]
    statuses = {a.status_code for a in answers}
    assert {200, 201, 404, 405, 422, 429} <= statuses
    for answer in answers:
        check_headers(answer)
    assert answers[2].headers["content-type"].startswith(("text/javascript", "application/"))


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name.lower() for name, _ in attrs}
        if tag == "script":
            self._in_script = True
            if "src" not in names:
                self.problems.append("an inline <script>")
        if tag == "style":
            self.problems.append("an inline <style>")
        self.problems += [f"{tag} has {n}" for n in names if n.startswith("on") or n == "style"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.problems.append("script text in the page")


def test_the_page_needs_no_unsafe_inline() -> None:
    web = web_directory()
    assert web is not None
    page = _Page()
    page.feed((web / "index.html").read_text())
    assert page.problems == []
    for script in sorted(Path(web).glob("*.js")):
        text = script.read_text()
        for forbidden in ("eval(", "new Function(", 'setTimeout("', "setTimeout('"):
            assert forbidden not in text, f"{script.name} uses {forbidden}"


def test_a_public_origin_replaces_the_host_header(monkeypatch: pytest.MonkeyPatch) -> None:
    """With `SCHMIER_PUBLIC_ORIGIN` the Host header no longer vouches for an origin: a
    page of a name rebound to this server's address sends its own name as Origin and
    Host alike, and only the known public origin (or the allow-list) gets in."""
    monkeypatch.setenv("SCHMIER_PUBLIC_ORIGIN", "https://Cards.example.org/, http://localhost:8000")
    public = Settings().public_origins
    assert public == {"https://cards.example.org", "http://localhost:8000"}
    assert origin_allowed("https://cards.example.org", "cards.example.org", ALLOW, public)
    assert origin_allowed("http://localhost:8000", "evil.example", ALLOW, public)
    assert origin_allowed("https://friends.example", "cards.example.org", ALLOW, public)
    assert origin_allowed(None, "evil.example", ALLOW, public)  # not a browser
    assert not origin_allowed("http://evil.example:8000", "evil.example:8000", ALLOW, public)
    assert not origin_allowed("http://cards.example.org", "cards.example.org", ALLOW, public)
    # Unset: the Host header is what the server is (the DNS-rebinding page passes).
    assert origin_allowed("http://evil.example:8000", "evil.example:8000", ALLOW)


async def rebound(server: RunningServer, code: str) -> Client:
    """A handshake as a DNS-rebinding page makes it: a foreign name (which resolved to
    this server) in the Host header and the Origin alike, over a connection to the
    server's real address."""
    ws = await websockets.connect(
        f"ws://rebound.example:{server.port}/ws/{code}",
        host="127.0.0.1",
        port=server.port,
        origin=f"http://rebound.example:{server.port}",  # type: ignore[arg-type]
        compression=None,
    )
    return Client(ws)


async def test_a_dns_rebinding_handshake_is_refused_with_a_public_origin(
    server_factory: ServerFactory,
) -> None:
    open_server = server_factory()
    code = await open_server.create_room("schmier6")
    fooled = await rebound(open_server, code)  # without the setting: let in (the finding)
    await fooled.hello()
    await fooled.close()

    server = server_factory(public_origin="https://cards.example.org, http://127.0.0.1:1")
    code = await server.create_room("schmier6")
    with pytest.raises(websockets.InvalidStatus) as refused:
        await rebound(server, code)
    assert refused.value.response.status_code == 403
    # The public origin is served, and so is a client that is no browser.
    for origin in ("https://cards.example.org", None):
        client = await Client.connect(server.ws_url(code), origin=origin)
        await client.hello()
        await client.close()


async def test_answers_carrying_a_token_are_not_stored(server: RunningServer) -> None:
    """`Cache-Control: no-store` on the join (its token) and on every other API answer;
    the pages keep their own `no-cache`."""
    code = await server.create_room("schmier6")
    async with loopback.async_client(base_url=server.base_url) as http:
        joined = await http.post(f"/api/rooms/{code}/join", json={"name": "Ann"})
        assert joined.status_code == 200 and joined.json()["token"]
        assert joined.headers["cache-control"] == "no-store"
        for answer in (
            await http.post("/api/rooms", json={"variant": "wisconsin4"}),
            await http.get(f"/api/rooms/{code}"),
            await http.get(f"/api/rooms/{code}/hands"),
            await http.post(f"/api/rooms/{code}/join", json={"name": "\u3164"}),  # 422
            await http.get("/api/rooms/cccccccccc"),  # 404
        ):
            assert answer.headers["cache-control"] == "no-store", answer.url
        assert (await http.get("/")).headers["cache-control"] == "no-cache"
