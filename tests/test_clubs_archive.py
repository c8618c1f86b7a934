"""Whole games over the wire in club rooms of every variant, on SQLite and on
PostgreSQL: each lands in the archive once, with every hand's record exactly as the
room serves it, its players (members by key, bots by level) and its result; the export
holds every game; the standings count them."""

from __future__ import annotations

from typing import Any

from schmier import engine
from tests.support.clubs import ClubApi, club_table, play_to_end, room_records
from tests.support.servers import ServerFactory

TABLES = {"schmier6": [0, 1, 3], "schmier5": [0, 2, 4], "wisconsin4": [0, 1, 2]}


async def test_club_games_of_every_variant_land_in_the_archive(
    server_factory: ServerFactory, archive: dict[str, Any]
) -> None:
    server = server_factory(**archive)
    api = ClubApi(server)
    club, admin = await api.create("Thursday club")
    members = [await api.join(club, name) for name in ("Ann", "Bo", "Cy")]
    played: dict[str, dict[str, Any]] = {}
    for variant, humans in TABLES.items():
        room = await api.room(club, members[0][1], variant, {"target": 5})
        seats = {seat: members[i][1] for i, seat in enumerate(humans)}
        clients = await club_table(server, room, seats, variant)
        final = await play_to_end(clients, f"club-{variant}")
        played[variant] = {"room": room, "final": final, "seats": seats}
        for client in clients.values():
            await client.close()

    listed = await api.archived(club, admin, len(TABLES))
    assert len(listed) == len(TABLES)
    assert [g["variant"] for g in listed] == list(reversed(TABLES)), "newest first"
    names = ("Ann", "Bo", "Cy")
    by_id = {member: name for (member, _key), name in zip(members, names, strict=True)}
    for entry in listed:
        variant = entry["variant"]
        room, final = played[variant]["room"], played[variant]["final"]
        assert entry["room"] == room
        assert entry["game"] == 1
        assert entry["scores"] == final["scores"]
        assert entry["winners"] == final["winners"]
        assert entry["teams"] == final["teams"]
        humans = TABLES[variant]
        for player in entry["players"]:
            seat = player["seat"]
            if seat in humans:
                member = members[humans.index(seat)][0]
                assert player["member"] == member
                assert player["name"] == by_id[member]
                assert player["bot"] is None
            else:
                assert player["member"] is None
                assert player["bot"] == "normal"  # the tests' default bot
        unit_of = {s: k for k, team in enumerate(final["teams"]) for s in team}
        assert [p["won"] for p in entry["players"]] == [
            unit_of[p["seat"]] in final["winners"] for p in entry["players"]
        ]
        # Every hand's record, exactly as the room serves it.
        whole = await api.game(club, members[1][1], entry["id"])
        assert whole["hands"] == await room_records(server, room)
        assert whole["hands"], "a finished game has hands"
        assert entry["hands"] == len(whole["hands"])
        assert whole["hands"][-1]["winners"] == final["winners"]
        assert len(whole["players"]) == engine.seat_count(variant)

    # The filters: one game, one member.
    assert [g["variant"] for g in await api.games(club, admin, variant="schmier5")] == ["schmier5"]
    cy = members[2][0]
    assert {g["variant"] for g in await api.games(club, admin, member=cy)} == set(TABLES)
    assert await api.games(club, admin, before="2000-01-01") == []
    assert len(await api.games(club, admin, limit=1)) == 1

    # The export holds every game with its hands.
    exported = await api.ok("GET", f"/api/clubs/{club}/export", members[0][1])
    assert exported["club"]["code"] == club
    assert {m["name"] for m in exported["members"]} == {"Ann", "Bo", "Cy"}
    assert sorted(g["id"] for g in exported["games"]) == sorted(g["id"] for g in listed)
    for game in exported["games"]:
        assert game["hands"] == (await api.game(club, admin, game["id"]))["hands"]

    # Standings count every game of the variant for each member and bot level.
    table = await api.standings(club, admin, "wisconsin4")
    rows = {(r["member"], r["bot"]): r for r in table["players"]}
    for i in range(3):
        assert rows[(members[i][0], None)]["games"] == 1
    assert rows[(None, "normal")]["games"] == 1  # one bot seat in wisconsin4
    assert {p["names"][0] for p in table["partnerships"]} <= {"Ann", "Bo", "Cy", "Normal"}
