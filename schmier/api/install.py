"""The installable app: the web app manifest and the service worker, served at the root.

A service worker controls only the addresses under its own, so it is served at
`/sw.js`, not under `/static/`; the manifest sits beside it. The worker caches the
static client by build: this module writes into `web/sw.js` the build (the server's
version and a hash of every file of the client, so that any change of the client makes
a new worker and a new cache) and the list of the files to keep.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import Response

from schmier import __version__
from schmier.api.statics import ClientFiles

NO_CACHE = {"Cache-Control": "no-cache"}
WORKER = "sw.js"
MANIFEST = "manifest.webmanifest"
BUILD_LINE = re.compile(r'^const BUILD = "[^"\n]*";$', re.MULTILINE)
FILES_LINE = re.compile(r"^const FILES = \[[^\]\n]*\];$", re.MULTILINE)


def client_files(web: Path) -> list[str]:
    """The addresses of the static client the worker keeps: the page, every file under
    `/static/` (the worker itself aside) and the manifest."""
    paths = sorted(
        p.relative_to(web).as_posix()
        for p in web.rglob("*")
        if p.is_file() and p.name != WORKER and not p.name.startswith(".")
    )
    return ["/", f"/{MANIFEST}", *(f"/static/{p}" for p in paths if p != MANIFEST)]


def build_id(web: Path) -> str:
    """The server's version and a short hash of the client's files (names and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in web.rglob("*") if p.is_file()):
        digest.update(path.relative_to(web).as_posix().encode())
        digest.update(path.read_bytes())
    return f"{__version__}-{digest.hexdigest()[:12]}"


def worker_source(web: Path) -> str:
    """`web/sw.js` with this build and its files written in."""
    text = (web / WORKER).read_text(encoding="utf-8")
    text, builds = BUILD_LINE.subn(f"const BUILD = {json.dumps(build_id(web))};", text)
    text, lists = FILES_LINE.subn(f"const FILES = {json.dumps(client_files(web))};", text)
    if builds != 1 or lists != 1:
        raise RuntimeError("web/sw.js lacks its BUILD or FILES line")
    return text


def install_routes(web: Path, files: ClientFiles) -> APIRouter:
    """`/manifest.webmanifest` and `/sw.js` (read once, when the app is made)."""
    routes = APIRouter()
    worker = worker_source(web).encode()

    @routes.get("/sw.js", include_in_schema=False)
    async def service_worker() -> Response:
        return Response(worker, media_type="text/javascript; charset=utf-8", headers=NO_CACHE)

    @routes.api_route(f"/{MANIFEST}", methods=["GET", "HEAD"], include_in_schema=False)
    async def web_manifest(request: Request) -> Response:
        return files.answer(request, MANIFEST)

    return routes
