"""Finished games in the archive's database: written once (idempotent by the game's
id), listed with filters, read with their hands, deleted by a club's admin.

Writing a game is one transaction: the `games` row, then its players and hands only if
that row was new (`INSERT ... ON CONFLICT DO NOTHING ... RETURNING`), so archiving the
same outbox entry twice, or by two instances at once, leaves one game.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from schmier.ledger.build import ArchivedGame
from schmier.ledger.clubs import FORMER_MEMBER, now_ms
from schmier.ledger.schema import game_players, games, hands


def iso(ms: int) -> str:
    """Unix milliseconds as ISO-8601 in UTC (`2026-12-05T02:30:15.123Z`)."""
    moment = dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


async def write(conn: AsyncConnection, game: ArchivedGame) -> bool:
    """Archive `game`; False (and nothing written) when it is archived already."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    inserted = await conn.execute(
        dialect.insert(games)
        .values(game.row(now_ms()))
        .on_conflict_do_nothing(index_elements=["id"])
        .returning(games.c.id)
    )
    if inserted.first() is None:
        return False
    await conn.execute(game_players.insert(), [seat.row(game.id) for seat in game.seats])
    if game.records:
        await conn.execute(
            hands.insert(),
            [{"game": game.id, "n": r["n"], "record": r} for r in game.records],
        )
    return True


async def count(conn: AsyncConnection, game_id: str) -> int:
    """How many games of that id the archive holds (0 or 1: the tests' check)."""
    return int(await conn.scalar(sa.select(sa.func.count()).where(games.c.id == game_id)) or 0)


def _players(rows: list[Any], names: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    """The players of each game, as the API shows them: a member by present name."""
    players: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        name = row.name
        if row.member is not None:
            name = names.get(row.member, FORMER_MEMBER)
        players.setdefault(row.game, []).append(
            {
                "seat": row.seat,
                "name": name,
                "member": row.member,
                "bot": row.bot,
                "unit": row.unit,
                "won": row.won,
            }
        )
    return players


def _game(row: Any, players: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": row.id,
        "room": row.room,
        "game": row.game,
        "variant": row.variant,
        "rules": row.rules,
        "finished_at": iso(row.finished_at),
        "players": sorted(players, key=lambda p: int(p["seat"])),
        "teams": row.teams,
        "scores": row.scores,
        "winners": row.winners,
        "hands": row.hands,
    }


async def listed(
    conn: AsyncConnection,
    club: str,
    names: dict[str, str],
    *,
    variant: str | None = None,
    member: str | None = None,
    before: int | None = None,
    after: int | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """The club's games, newest first, filtered (finished before / after the given
    Unix ms, one game, one member)."""
    query = sa.select(games).where(games.c.club == club)
    if variant is not None:
        query = query.where(games.c.variant == variant)
    if before is not None:
        query = query.where(games.c.finished_at < before)
    if after is not None:
        query = query.where(games.c.finished_at >= after)
    if member is not None:
        query = query.where(
            games.c.id.in_(sa.select(game_players.c.game).where(game_players.c.member == member))
        )
    query = query.order_by(games.c.finished_at.desc(), games.c.id.desc()).limit(limit)
    rows = (await conn.execute(query)).all()
    if not rows:
        return []
    seats = (
        await conn.execute(
            sa.select(game_players).where(game_players.c.game.in_([r.id for r in rows]))
        )
    ).all()
    players = _players(list(seats), names)
    return [_game(row, players.get(row.id, [])) for row in rows]


async def one(
    conn: AsyncConnection, club: str, game_id: str, names: dict[str, str]
) -> dict[str, Any] | None:
    """A game of the club with `"hands"`: every hand's record, in order; None: unknown."""
    row = (
        await conn.execute(sa.select(games).where(games.c.id == game_id, games.c.club == club))
    ).first()
    if row is None:
        return None
    seats = (
        await conn.execute(sa.select(game_players).where(game_players.c.game == game_id))
    ).all()
    records = (
        await conn.execute(
            sa.select(hands.c.record).where(hands.c.game == game_id).order_by(hands.c.n)
        )
    ).all()
    game = _game(row, _players(list(seats), names).get(game_id, []))
    game["hands"] = [r.record for r in records]
    return game


async def delete(conn: AsyncConnection, club: str, game_id: str) -> bool:
    """Remove a game of the club from the archive (its players and hands go with it)."""
    found = await conn.scalar(
        sa.select(games.c.id).where(games.c.id == game_id, games.c.club == club)
    )
    if found is None:
        return False
    await conn.execute(hands.delete().where(hands.c.game == game_id))
    await conn.execute(game_players.delete().where(game_players.c.game == game_id))
    await conn.execute(games.delete().where(games.c.id == game_id))
    return True


async def results(conn: AsyncConnection, club: str, variant: str) -> list[dict[str, Any]]:
    """The club's games of `variant` for its standings, oldest first: the result and
    each seat's row (member, bot level, unit, won, hands, points, bids)."""
    rows = (
        await conn.execute(
            sa.select(games.c.id, games.c.finished_at, games.c.teams, games.c.winners)
            .where(games.c.club == club, games.c.variant == variant)
            .order_by(games.c.finished_at, games.c.id)
        )
    ).all()
    seats = (
        await conn.execute(
            sa.select(game_players)
            .join(games, games.c.id == game_players.c.game)
            .where(games.c.club == club, games.c.variant == variant)
        )
    ).all()
    by_game: dict[str, list[dict[str, Any]]] = {}
    for seat in seats:
        by_game.setdefault(seat.game, []).append(dict(seat._mapping))
    return [
        {
            "id": row.id,
            "finished_at": row.finished_at,
            "teams": row.teams,
            "winners": row.winners,
            "seats": sorted(by_game.get(row.id, []), key=lambda s: int(s["seat"])),
        }
        for row in rows
    ]


async def every(
    conn: AsyncConnection, club: str, names: dict[str, str], batch: int = 50
) -> AsyncIterator[dict[str, Any]]:
    """Every game of the club with its hands, oldest first, a batch at a time (the
    export streams them instead of holding the whole archive in memory)."""
    last: tuple[int, str] | None = None
    while True:
        query = sa.select(games.c.id, games.c.finished_at).where(games.c.club == club)
        if last is not None:
            query = query.where(
                sa.or_(
                    games.c.finished_at > last[0],
                    sa.and_(games.c.finished_at == last[0], games.c.id > last[1]),
                )
            )
        page = (
            await conn.execute(query.order_by(games.c.finished_at, games.c.id).limit(batch))
        ).all()
        if not page:
            return
        for row in page:
            game = await one(conn, club, row.id, names)
            if game is not None:
                yield game
        last = (page[-1].finished_at, page[-1].id)
