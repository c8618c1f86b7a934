"""The archive of finished games, and the clubs.

Revision ID: 0001
Revises:
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("admin_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("code", name="pk_clubs"),
        sa.UniqueConstraint("admin_hash", name="uq_clubs_admin_hash"),
    )
    op.create_table(
        "members",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("club", sa.String(16), nullable=False),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("name_key", sa.String(96), nullable=True),
        sa.Column("key_hash", sa.String(64), nullable=True),
        sa.Column("joined_at", sa.BigInteger, nullable=False),
        sa.Column("left_at", sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_members"),
        sa.ForeignKeyConstraint(
            ["club"], ["clubs.code"], name="fk_members_club_clubs", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("club", "name_key", name="uq_members_club_name_key"),
        sa.UniqueConstraint("key_hash", name="uq_members_key_hash"),
    )
    op.create_index("ix_members_club", "members", ["club"])
    op.create_table(
        "club_rooms",
        sa.Column("club", sa.String(16), nullable=False),
        sa.Column("room", sa.String(16), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("club", "room", name="pk_club_rooms"),
        sa.ForeignKeyConstraint(
            ["club"], ["clubs.code"], name="fk_club_rooms_club_clubs", ondelete="CASCADE"
        ),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(64), nullable=False),
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
        sa.PrimaryKeyConstraint("id", name="pk_games"),
    )
    op.create_index("ix_games_club_finished_at", "games", ["club", "finished_at"])
    op.create_index("ix_games_finished_at", "games", ["finished_at"])
    op.create_table(
        "game_players",
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
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
        sa.PrimaryKeyConstraint("game", "seat", name="pk_game_players"),
        sa.ForeignKeyConstraint(
            ["game"], ["games.id"], name="fk_game_players_game_games", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_game_players_member", "game_players", ["member"])
    op.create_table(
        "hands",
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("record", JSON, nullable=False),
        sa.PrimaryKeyConstraint("game", "n", name="pk_hands"),
        sa.ForeignKeyConstraint(
            ["game"], ["games.id"], name="fk_hands_game_games", ondelete="CASCADE"
        ),
    )


def downgrade() -> None:
    op.drop_table("hands")
    op.drop_index("ix_game_players_member", table_name="game_players")
    op.drop_table("game_players")
    op.drop_index("ix_games_finished_at", table_name="games")
    op.drop_index("ix_games_club_finished_at", table_name="games")
    op.drop_table("games")
    op.drop_table("club_rooms")
    op.drop_index("ix_members_club", table_name="members")
    op.drop_table("members")
    op.drop_table("clubs")
