"""The browser client's files, compressed once and served from memory.

Why not Starlette's `StaticFiles`: it sends every file as it is on disk, and the client
is text (scripts, styles, catalogues: about 275 KB that gzip brings to about 100 KB),
read on phones over slow links. The client is small and never changes while the server
runs, so every file is read once when the app is made and gzipped then (level 9, kept
only where it saves at least a tenth): serving it costs no compression per request and
no disk access. Each file has two representations at most, each with its own strong
`ETag`; `Vary: Accept-Encoding` says so to every cache in between.

Caching: the addresses carry no version (an ES module imports its neighbours by plain
relative paths, and there is no build step), so a browser must ask again whether a
file changed (`Cache-Control: no-cache`) and gets `304 Not Modified` when it has not.
The service worker (web/sw.js) keeps the files of a build and answers from its cache,
so a player with it asks the server for nothing once the client is kept.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

COMPRESSIBLE = (".js", ".css", ".json", ".svg", ".html", ".webmanifest", ".wav", ".txt")
"""Kinds of file worth compressing (the PNG icons are compressed already)."""
MIN_SAVING = 0.1
"""A gzipped copy is kept only when it is at least this much smaller."""
TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".webmanifest": "application/manifest+json",
    ".wav": "audio/wav",
    ".png": "image/png",
}
NO_CACHE = "no-cache"


@dataclass(frozen=True)
class Asset:
    """One file of the client: its bytes, its gzipped bytes (or None), its type."""

    body: bytes
    gzipped: bytes | None
    media_type: str
    etag: str

    @classmethod
    def read(cls, path: Path) -> Asset:
        body = path.read_bytes()
        suffix = path.suffix.lower()
        guessed = mimetypes.guess_type(path.name)[0]
        media = TYPES.get(suffix) or guessed or "application/octet-stream"
        gzipped = None
        if suffix in COMPRESSIBLE:
            # mtime=0: the same bytes (and ETag) on every start and every instance.
            packed = gzip.compress(body, compresslevel=9, mtime=0)
            if len(packed) <= len(body) * (1 - MIN_SAVING):
                gzipped = packed
        return cls(body, gzipped, media, f'"{hashlib.sha256(body).hexdigest()[:20]}"')


def accepts_gzip(header: str) -> bool:
    """Whether an `Accept-Encoding` header allows gzip (`gzip;q=0` refuses it)."""
    for part in header.lower().split(","):
        name, _, params = part.strip().partition(";")
        if name.strip() not in ("gzip", "*"):
            continue
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        return quality > 0
    return False


class ClientFiles:
    """Every file under the client's directory, by its path relative to it."""

    def __init__(self, web: Path) -> None:
        self.assets = {
            path.relative_to(web).as_posix(): Asset.read(path)
            for path in sorted(web.rglob("*"))
            if path.is_file() and not path.name.startswith(".")
        }

    def answer(self, request: Request, name: str, cache_control: str = NO_CACHE) -> Response:
        """The file `name` for this request: gzipped when the client takes it, `304`
        when the client's copy is current, `404` when there is no such file."""
        asset = self.assets.get(name)
        if asset is None:
            return PlainTextResponse("Not Found", status_code=404)
        packed = asset.gzipped is not None and accepts_gzip(
            request.headers.get("accept-encoding", "")
        )
        etag = f'{asset.etag[:-1]}-gz"' if packed else asset.etag
        headers = {"ETag": etag, "Cache-Control": cache_control}
        if asset.gzipped is not None:
            headers["Vary"] = "Accept-Encoding"
        if packed:
            headers["Content-Encoding"] = "gzip"
        if etag in _etags(request.headers.get("if-none-match", "")):
            return Response(status_code=304, headers=headers)
        body = asset.gzipped if packed and asset.gzipped is not None else asset.body
        # A HEAD gets the same headers (the length included); the server sends no body.
        return Response(body, headers=headers, media_type=asset.media_type)


def _etags(header: str) -> set[str]:
    """The entity tags of an `If-None-Match` header (weak ones compared as strong)."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def static_routes(files: ClientFiles) -> APIRouter:
    """`GET` and `HEAD` of `/static/{path}`: the client's files."""
    routes = APIRouter()

    @routes.api_route("/static/{name:path}", methods=["GET", "HEAD"], include_in_schema=False)
    async def static_file(request: Request, name: str) -> Response:
        return files.answer(request, name)

    return routes
