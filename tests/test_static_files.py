"""The client's files on the wire (issue 34, a lean first load): gzipped where that helps,
with `Vary`, `Content-Encoding`, strong ETags and `no-cache` revalidation; `HEAD` answers
as `GET` does, the pages included."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import loopback
from tests.support.servers import RunningServer

WEB = Path(__file__).resolve().parents[1] / "web"


@pytest.fixture(scope="module")
def files_server() -> Iterator[RunningServer]:
    from schmier.config import Settings
    from tests.support.servers import FAST, start_thread_server

    running = start_thread_server(Settings(**FAST))
    yield running
    running.stop()


def get(server: RunningServer, path: str, **headers: str) -> httpx.Response:
    return loopback.get(server.base_url + path, headers=headers, timeout=10)


@pytest.mark.parametrize("name", ["app.js", "style.css", "i18n/ko.json", "favicon.svg"])
def test_text_is_gzipped_for_who_takes_it(files_server: RunningServer, name: str) -> None:
    raw = (WEB / name).read_bytes()
    # httpx asks for gzip and unpacks it; the headers and the length on the wire tell.
    packed = loopback.get(
        files_server.base_url + f"/static/{name}",
        headers={"Accept-Encoding": "gzip"},
        timeout=10,
    )
    assert packed.status_code == 200
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["vary"] == "Accept-Encoding"
    assert packed.headers["cache-control"] == "no-cache"
    assert packed.content == raw
    assert int(packed.headers["content-length"]) < len(raw) * 0.9
    assert gzip.decompress(gzip.compress(raw)) == raw
    plain = get(files_server, f"/static/{name}", **{"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.headers["vary"] == "Accept-Encoding"
    assert plain.content == raw and int(plain.headers["content-length"]) == len(raw)
    refused = get(files_server, f"/static/{name}", **{"Accept-Encoding": "gzip;q=0, br"})
    assert "content-encoding" not in refused.headers
    # Each representation has its own strong tag, and a current copy costs a 304.
    assert packed.headers["etag"] != plain.headers["etag"]
    for answer, encoding in ((packed, "gzip"), (plain, "identity")):
        again = get(
            files_server,
            f"/static/{name}",
            **{"Accept-Encoding": encoding, "If-None-Match": answer.headers["etag"]},
        )
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == answer.headers["etag"]


def test_types_and_what_is_left_alone(files_server: RunningServer) -> None:
    png = get(files_server, "/static/icons/icon-192.png", **{"Accept-Encoding": "gzip"})
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert "content-encoding" not in png.headers and "vary" not in png.headers
    assert png.content == (WEB / "icons/icon-192.png").read_bytes()
    js = get(files_server, "/static/app.js")
    assert js.headers["content-type"] == "text/javascript; charset=utf-8"
    manifest = get(files_server, "/manifest.webmanifest")
    assert manifest.headers["content-type"] == "application/manifest+json"
    assert get(files_server, "/static/nope.js").status_code == 404
    assert get(files_server, "/static/../schmier/config.py").status_code == 404
    assert get(files_server, "/static/%2e%2e/pyproject.toml").status_code == 404


@pytest.mark.parametrize("path", ["/", "/r/abcdefghij", "/r/abcdefghij/h/2", "/static/app.js"])
def test_head_answers_as_get_does(files_server: RunningServer, path: str) -> None:
    with loopback.client() as http:
        got = http.get(files_server.base_url + path, headers={"Accept-Encoding": "gzip"})
        head = http.head(files_server.base_url + path, headers={"Accept-Encoding": "gzip"})
    assert got.status_code == head.status_code == 200
    assert head.content == b""
    for name in ("content-type", "content-length", "etag", "content-encoding", "vary"):
        assert head.headers.get(name) == got.headers.get(name), name
    assert "content-security-policy" in head.headers
