"""HTTP and WebSocket routes around the room actors; `create_app` builds the server."""

from __future__ import annotations

from schmier.api.app import create_app

__all__ = ["create_app"]
