"""Room codes and seat tokens: the two secrets of a room.

A room code is 10 characters of a lowercase base32 alphabet (50 random bits): long
enough that nobody finds a room by guessing, short enough to read out at a table, and
case-insensitive because people type it. A token is `secrets.token_urlsafe(24)`
(192 bits); the room keeps only its SHA-256, so a leaked snapshot or store dump does not
let anybody act for a seat, and compares hashes with `hmac.compare_digest`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

CODE_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
CODE_LENGTH = 10


def new_code() -> str:
    """A fresh random room code."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(raw: str) -> str | None:
    """The canonical (lower-case) form of a typed code, or None if it cannot be one."""
    code = raw.strip().lower()
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def new_token() -> str:
    """A fresh seat token, shown to its player once and never stored."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """What the room stores instead of the token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token_hash: str | None, token: str) -> bool:
    """Constant-time check of a presented token against a stored hash."""
    if token_hash is None:
        return False
    return hmac.compare_digest(token_hash, hash_token(token))
