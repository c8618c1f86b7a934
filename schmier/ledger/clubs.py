"""Clubs and their members in the archive's database: create, join, look a key up,
rename, leave, and the club's rooms.

Every function takes an open connection (`Database.begin`), so a route does a whole
request in one transaction: either all of it is written or nothing is.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from schmier.ledger import secrets as keys
from schmier.ledger.schema import club_rooms, clubs, game_players, games, hands, members

FORMER_MEMBER = "former member"
"""What a member who left (or was removed) is called from then on, in the archive too."""


class NameTaken(Exception):
    """A present member of the club already has that name (compared case-folded)."""


@dataclass(frozen=True, slots=True)
class Club:
    code: str
    name: str


@dataclass(frozen=True, slots=True)
class Access:
    """Who a key is in a club: its admin, or one of its members (or both, never)."""

    club: Club
    member: str | None
    """The member id; None for the admin key."""
    name: str | None
    """The member's name; None for the admin key."""

    @property
    def admin(self) -> bool:
        return self.member is None


def now_ms() -> int:
    return int(time.time() * 1000)


def name_key(name: str) -> str:
    """The form two names are compared in: case-folded."""
    return name.casefold()


async def create(conn: AsyncConnection, name: str) -> tuple[str, str]:
    """A new club: its code and its admin key (shown once)."""
    admin_key = keys.new_key()
    while True:
        code = keys.new_club_code()
        found = await conn.scalar(sa.select(clubs.c.code).where(clubs.c.code == code))
        if found is None:
            break
    await conn.execute(
        clubs.insert().values(
            code=code, name=name, admin_hash=keys.hash_key(admin_key), created_at=now_ms()
        )
    )
    return code, admin_key


async def find(conn: AsyncConnection, code: str) -> Club | None:
    """The club of that code, or None."""
    row = (
        await conn.execute(sa.select(clubs.c.code, clubs.c.name).where(clubs.c.code == code))
    ).first()
    return None if row is None else Club(row.code, row.name)


async def access(conn: AsyncConnection, club: Club, key: str) -> Access | None:
    """Who `key` is in `club`: its admin, a present member, or nobody (None)."""
    if not key or len(key) > keys.KEY_MAX:
        return None
    presented = keys.hash_key(key)
    admin = await conn.scalar(sa.select(clubs.c.admin_hash).where(clubs.c.code == club.code))
    if keys.key_matches(admin, presented):
        return Access(club, None, None)
    row = (
        await conn.execute(
            sa.select(members.c.id, members.c.name, members.c.key_hash).where(
                members.c.club == club.code, members.c.key_hash == presented
            )
        )
    ).first()
    if row is None or not keys.key_matches(row.key_hash, presented):
        return None
    return Access(club, row.id, row.name)


async def _name_free(conn: AsyncConnection, club: str, name: str, but: str | None = None) -> None:
    query = sa.select(members.c.id).where(
        members.c.club == club, members.c.name_key == name_key(name)
    )
    if but is not None:
        query = query.where(members.c.id != but)
    if await conn.scalar(query) is not None:
        raise NameTaken(name)


async def join(conn: AsyncConnection, club: str, name: str) -> tuple[str, str]:
    """A new member: (member id, member key). NameTaken when the name is in use."""
    await _name_free(conn, club, name)
    key = keys.new_key()
    member = keys.new_member_id()
    await conn.execute(
        members.insert().values(
            id=member,
            club=club,
            name=name,
            name_key=name_key(name),
            key_hash=keys.hash_key(key),
            joined_at=now_ms(),
        )
    )
    return member, key


async def present(conn: AsyncConnection, club: str) -> list[dict[str, Any]]:
    """The club's present members, in the order they joined."""
    rows = await conn.execute(
        sa.select(members.c.id, members.c.name)
        .where(members.c.club == club, members.c.left_at.is_(None))
        .order_by(members.c.joined_at, members.c.id)
    )
    return [{"member": row.id, "name": row.name} for row in rows]


async def names(conn: AsyncConnection, club: str) -> dict[str, str]:
    """Every member the club ever had, by id: the name, or "former member"."""
    rows = await conn.execute(sa.select(members.c.id, members.c.name).where(members.c.club == club))
    return {row.id: row.name for row in rows}


async def is_present(conn: AsyncConnection, club: str, member: str) -> bool:
    """Whether `member` is a present member of `club`."""
    found = await conn.scalar(
        sa.select(members.c.id).where(
            members.c.club == club, members.c.id == member, members.c.left_at.is_(None)
        )
    )
    return found is not None


async def rename(conn: AsyncConnection, club: str, name: str) -> None:
    """The club's new name."""
    await conn.execute(clubs.update().where(clubs.c.code == club).values(name=name))


async def rename_member(conn: AsyncConnection, club: str, member: str, name: str) -> None:
    """A present member's new name (NameTaken when another member has it). Archived
    games show members by their present name."""
    await _name_free(conn, club, name, but=member)
    await conn.execute(
        members.update()
        .where(members.c.club == club, members.c.id == member)
        .values(name=name, name_key=name_key(name))
    )


async def remove(conn: AsyncConnection, club: str, member: str) -> None:
    """A member leaves (or is removed): the key stops working at once, and the name is
    replaced by "former member" everywhere the archive kept it (the member's rows and
    the seats of the hands' records the member held under that name)."""
    old = await conn.scalar(
        sa.select(members.c.name).where(members.c.club == club, members.c.id == member)
    )
    await conn.execute(
        members.update()
        .where(members.c.club == club, members.c.id == member)
        .values(name=FORMER_MEMBER, name_key=None, key_hash=None, left_at=now_ms())
    )
    seats = (
        await conn.execute(
            sa.select(game_players.c.game, game_players.c.seat, game_players.c.name)
            .join(games, games.c.id == game_players.c.game)
            .where(games.c.club == club, game_players.c.member == member)
        )
    ).all()
    for game, seat, archived_name in seats:
        await _forget_in_records(conn, game, seat, {archived_name, old} - {None})
    await conn.execute(
        game_players.update()
        .where(
            game_players.c.member == member,
            game_players.c.game.in_(sa.select(games.c.id).where(games.c.club == club)),
        )
        .values(name=FORMER_MEMBER)
    )


async def _forget_in_records(
    conn: AsyncConnection, game: str, seat: int, old_names: set[str]
) -> None:
    """Rename seat `seat` in every hand record of `game` where it bears an old name."""
    rows = (
        await conn.execute(sa.select(hands.c.n, hands.c.record).where(hands.c.game == game))
    ).all()
    for n, record in rows:
        changed = False
        for entry in record.get("seats", []):
            if entry.get("seat") == seat and entry.get("name") in old_names:
                entry["name"] = FORMER_MEMBER
                changed = True
        if changed:
            await conn.execute(
                hands.update().where(hands.c.game == game, hands.c.n == n).values(record=record)
            )


async def add_room(conn: AsyncConnection, club: str, room: str, variant: str) -> None:
    """Remember a room created from the club."""
    await conn.execute(
        club_rooms.insert().values(club=club, room=room, variant=variant, created_at=now_ms())
    )


async def rooms(conn: AsyncConnection, club: str, limit: int) -> list[str]:
    """The codes of the club's rooms, newest first."""
    rows = await conn.execute(
        sa.select(club_rooms.c.room)
        .where(club_rooms.c.club == club)
        .order_by(club_rooms.c.created_at.desc())
        .limit(limit)
    )
    return [row.room for row in rows]


async def forget_rooms(conn: AsyncConnection, club: str, gone: list[str]) -> None:
    """Drop rooms that no longer exist (expired) from the club's list."""
    if gone:
        await conn.execute(
            club_rooms.delete().where(club_rooms.c.club == club, club_rooms.c.room.in_(gone))
        )
