"""The clubs' codes, member ids and keys.

A club's code is its invite (anyone who has it may join), so it is long enough that
nobody finds a club by guessing: 16 characters of the rooms' base32 alphabet (80 bits),
with every failed look-up counted against the address (the guessing guard). Member
and admin keys are `secrets.token_urlsafe(24)` (192 bits); the database keeps only
their SHA-256, and a presented key is compared with `hmac.compare_digest`. A member id
is no secret: it names a member in URLs and answers.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from schmier.rooms.codes import CODE_ALPHABET

CLUB_CODE_LENGTH = 16
MEMBER_ID_LENGTH = 10
KEY_MAX = 100
"""The longest key looked at; anything longer is refused before hashing."""


def _random(length: int) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def new_club_code() -> str:
    """A fresh club code."""
    return _random(CLUB_CODE_LENGTH)


def normalise_club_code(raw: str) -> str | None:
    """The canonical form of a typed club code, or None if it cannot be one."""
    code = raw.strip().lower()
    if len(code) != CLUB_CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def new_member_id() -> str:
    """A fresh member id."""
    return _random(MEMBER_ID_LENGTH)


def valid_member_id(raw: str) -> bool:
    """Whether `raw` has the shape of a member id (so nothing else reaches a query)."""
    return len(raw) == MEMBER_ID_LENGTH and all(ch in CODE_ALPHABET for ch in raw)


def new_key() -> str:
    """A fresh member or admin key, shown once and never stored."""
    return secrets.token_urlsafe(24)


def hash_key(key: str) -> str:
    """What the database keeps instead of a key."""
    return hashlib.sha256(key.encode("utf-8", "backslashreplace")).hexdigest()


def key_matches(stored: str | None, presented_hash: str) -> bool:
    """Constant-time comparison of a stored hash with a presented key's hash."""
    return stored is not None and hmac.compare_digest(stored, presented_hash)
