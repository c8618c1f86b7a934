"""The archive's tables, as SQLAlchemy Core metadata (docs/archive.md, "The schema").

Times are Unix milliseconds (UTC) in BIGINT columns: the same on SQLite and PostgreSQL,
exact, and ordered as numbers. JSON columns hold what the API answers as JSON (a hand's
record exactly as `GET /api/rooms/{code}/hands/{n}` gives it, scores, rules); they are
JSONB on PostgreSQL. The migrations (`migrations/versions/`) create these tables; this
module is what the queries are written against, and a test checks that the two agree.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

JSON = sa.JSON().with_variant(JSONB(), "postgresql")

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

clubs = sa.Table(
    "clubs",
    metadata,
    sa.Column("code", sa.String(16), primary_key=True),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("admin_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)
"""A club: its code (the invite), its name, and the SHA-256 of its admin key."""

members = sa.Table(
    "members",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column(
        "club", sa.String(16), sa.ForeignKey("clubs.code", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("name", sa.String(24), nullable=False),
    sa.Column("name_key", sa.String(96), nullable=True),
    sa.Column("key_hash", sa.String(64), nullable=True, unique=True),
    sa.Column("joined_at", sa.BigInteger, nullable=False),
    sa.Column("left_at", sa.BigInteger, nullable=True),
    sa.UniqueConstraint("club", "name_key"),
    sa.Index(None, "club"),
)
"""A club's members, past ones too: a member who left (or was removed) keeps the row,
named "former member", with no key and no `name_key` (the case-folded name that keeps
two present members from sharing a name), so archived games still point at it."""

club_rooms = sa.Table(
    "club_rooms",
    metadata,
    sa.Column(
        "club", sa.String(16), sa.ForeignKey("clubs.code", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("room", sa.String(16), primary_key=True),
    sa.Column("variant", sa.String(16), nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)
"""Rooms created from a club (the live room itself is in the room store)."""

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("room", sa.String(16), nullable=False),
    sa.Column("room_created", sa.Float, nullable=False),
    sa.Column("game", sa.Integer, nullable=False),
    sa.Column("club", sa.String(16), nullable=True),
    sa.Column("variant", sa.String(16), nullable=False),
    sa.Column("rules", JSON, nullable=False),
    sa.Column("teams", JSON, nullable=False),
    sa.Column("scores", JSON, nullable=False),
    sa.Column("winners", JSON, nullable=False),
    sa.Column("hands", sa.Integer, nullable=False),
    sa.Column("finished_at", sa.BigInteger, nullable=False),
    sa.Column("archived_at", sa.BigInteger, nullable=False),
    sa.Index(None, "club", "finished_at"),
    sa.Index(None, "finished_at"),
)
"""Every finished game: the id (room code, game number, room's creation), its club (if
its room was a club's), the result. No foreign key to `clubs`: the archive takes a game
whatever happened to its club meanwhile."""

game_players = sa.Table(
    "game_players",
    metadata,
    sa.Column(
        "game", sa.String(64), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(24), nullable=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("member", sa.String(16), nullable=True),
    sa.Column("bot", sa.String(16), nullable=True),
    sa.Column("unit", sa.Integer, nullable=False),
    sa.Column("won", sa.Boolean, nullable=False),
    sa.Column("score", sa.Integer, nullable=False),
    sa.Column("hands", sa.Integer, nullable=False),
    sa.Column("points", sa.Integer, nullable=False),
    sa.Column("bids", sa.Integer, nullable=False),
    sa.Column("made", sa.Integer, nullable=False),
    sa.Column("set", sa.Integer, nullable=False),
    sa.Index(None, "member"),
)
"""Who sat where at the end of a game, and what that seat did over its hands: the
scoring unit (`teams` index), won, final score, hands, points (the sum of the unit's
score changes), bids, bids made and set."""

hands = sa.Table(
    "hands",
    metadata,
    sa.Column(
        "game", sa.String(64), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("n", sa.Integer, primary_key=True),
    sa.Column("record", JSON, nullable=False),
)
"""Every finished hand of a game: `n` is the room's hand number, `record` the record."""
