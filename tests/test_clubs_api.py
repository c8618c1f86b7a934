"""The clubs' API: who may do what (every endpoint refuses a non-member and a wrong key;
an unknown club is a 404 before any key is looked at), bad input refused with nothing
changed, members renaming themselves and leaving, the admin's renames, removals and
deletions, the member key at a room's join, the CSV, and the per-club budget."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from tests.support.clubs import ClubApi, club_table, join_room, play_to_end, room_records
from tests.support.servers import RunningServer, ServerFactory

ENDPOINTS = [
    ("GET", "/api/clubs/{club}", None),
    ("PATCH", "/api/clubs/{club}", {"name": "New name"}),
    ("POST", "/api/clubs/{club}/rooms", {"variant": "wisconsin4"}),
    ("GET", "/api/clubs/{club}/games", None),
    ("GET", "/api/clubs/{club}/games/{game}", None),
    ("DELETE", "/api/clubs/{club}/games/{game}", None),
    ("GET", "/api/clubs/{club}/standings?variant=wisconsin4", None),
    ("GET", "/api/clubs/{club}/standings.csv?variant=wisconsin4", None),
    ("GET", "/api/clubs/{club}/export", None),
    ("PATCH", "/api/clubs/{club}/members/{member}", {"name": "Renamed"}),
    ("DELETE", "/api/clubs/{club}/members/{member}", None),
]
ADMIN_ONLY = {("PATCH", "/api/clubs/{club}"), ("DELETE", "/api/clubs/{club}/games/{game}")}


@pytest.fixture
def server(server_factory: ServerFactory, archive: dict[str, Any]) -> RunningServer:
    """A server on each archive in turn (the checks that reach into the archive's rows)."""
    return server_factory(**archive)


@pytest.fixture
def sqlite_server(server_factory: ServerFactory, tmp_path: Any) -> RunningServer:
    """A server on SQLite (the checks the database cannot change)."""
    return server_factory(data_dir=str(tmp_path / "data"))


async def a_club_with_a_game(
    server: RunningServer, api: ClubApi
) -> tuple[str, str, list[tuple[str, str]], dict[str, Any], str]:
    """A club, two members, and one finished game of theirs in the archive."""
    club, admin = await api.create("Thursday club")
    ann, bo = await api.join(club, "Ann"), await api.join(club, "Bo")
    room = await api.room(club, ann[1], "wisconsin4", {"target": 5})
    clients = await club_table(server, room, {0: ann[1], 2: bo[1]}, "wisconsin4")
    await play_to_end(clients, "api")
    for client in clients.values():
        await client.close()
    (game,) = await api.archived(club, admin, 1)
    return club, admin, [ann, bo], game, room


async def test_every_endpoint_refuses_a_non_member_and_a_wrong_key(server: RunningServer) -> None:
    api = ClubApi(server)
    club, admin, [ann, bo], game, _room = await a_club_with_a_game(server, api)
    other, other_admin = await api.create("Other club")
    _, stranger = await api.join(other, "Zed")
    wrong = [None, ann[1] + "x", stranger, other_admin, "x" * 500]
    for method, template, body in ENDPOINTS:
        path = template.format(club=club, game=game["id"], member=bo[0])
        for key in wrong:
            answer = await api.call(method, path, key, json=body)
            assert answer.status_code == 401, (method, path, key, answer.text)
            assert answer.headers["www-authenticate"] == "Bearer"
        answer = await api.call(method, path, None, json=body,
                                headers={"Authorization": f"Basic {ann[1]}"})  # fmt: skip
        assert answer.status_code == 401
        unknown = template.format(club="a" * 16, game=game["id"], member=bo[0])
        for key in (None, ann[1], admin):
            answer = await api.call(method, unknown, key, json=body)
            assert answer.status_code == 404, (method, unknown, answer.text)
        bad_code = template.format(club="../x", game=game["id"], member=bo[0])
        assert (await api.call(method, bad_code, admin, json=body)).status_code == 404
        if (method, template) in ADMIN_ONLY:
            answer = await api.call(method, path, ann[1], json=body)
            assert answer.status_code == 403, (method, path, answer.text)
    # A key in the URL is no key.
    answer = await api.call("GET", f"/api/clubs/{club}?key={ann[1]}")
    assert answer.status_code == 401
    # Nothing was changed by any of that.
    info = await api.ok("GET", f"/api/clubs/{club}", ann[1])
    assert info["name"] == "Thursday club"
    assert [m["name"] for m in info["members"]] == ["Ann", "Bo"]
    assert info["you"] == {"member": ann[0], "name": "Ann", "admin": False}
    assert len(await api.games(club, admin)) == 1
    # An unknown game of a known club: 404 to a member, 401 without a key.
    assert (await api.call("GET", f"/api/clubs/{club}/games/nope", ann[1])).status_code == 404
    assert (await api.call("GET", f"/api/clubs/{club}/games/nope")).status_code == 401


async def test_bad_input_is_refused_and_changes_nothing(sqlite_server: RunningServer) -> None:
    server = sqlite_server
    api = ClubApi(server)
    for body in ({}, {"name": ""}, {"name": " \u200b "}, {"name": "x" * 41}, {"name": 5},
                 {"name": "ok", "extra": 1}, {"name": "\u0000\u0007"}, []):  # fmt: skip
        answer = await api.call("POST", "/api/clubs", json=body)
        assert answer.status_code == 422, (body, answer.text)
    club, admin = await api.create("  Spaced \t  out  ")
    info = await api.ok("GET", f"/api/clubs/{club}", admin)
    assert info["name"] == "Spaced out"
    assert info["you"] == {"member": None, "name": None, "admin": True}
    ann = await api.join(club, "Ann")
    for body in ({"name": "x" * 25}, {"name": ""}, {"name": ["Ann"]}):
        answer = await api.call("POST", f"/api/clubs/{club}/members", json=body)
        assert answer.status_code == 422, (body, answer.text)
    assert (
        await api.call("POST", f"/api/clubs/{club}/members", json={"name": "ANN"})
    ).status_code == 409
    queries: list[dict[str, Any]] = [
        {"variant": "poker"}, {"limit": 0}, {"limit": 1000}, {"before": "yesterday"},
        {"member": "x"}, {"member": "../../etc"},
    ]  # fmt: skip
    for query in queries:
        answer = await api.call("GET", f"/api/clubs/{club}/games", ann[1], params=query)
        assert answer.status_code == 422, (query, answer.text)
    for query in ({}, {"variant": "poker"}):
        answer = await api.call("GET", f"/api/clubs/{club}/standings", ann[1], params=query)
        assert answer.status_code == 422
    answer = await api.call(
        "POST",
        f"/api/clubs/{club}/rooms",
        ann[1],
        json={"variant": "wisconsin4", "rules": {"target": 1}},
    )
    assert answer.status_code == 422
    info = await api.ok("GET", f"/api/clubs/{club}", admin)
    assert [m["name"] for m in info["members"]] == ["Ann"] and info["rooms"] == []


async def test_member_keys_at_the_join(sqlite_server: RunningServer) -> None:
    server = sqlite_server
    api = ClubApi(server)
    club, admin = await api.create("Join club")
    ann = await api.join(club, "Ann")
    other, _ = await api.create("Other")
    _, stranger = await api.join(other, "Zed")
    room = await api.room(club, ann[1], "wisconsin4", {"target": 5})
    plain = await server.create_room("wisconsin4")
    assert (await server.room(room))["club"] is True
    assert (await server.room(plain))["club"] is False
    for key in (stranger, ann[1] + "x", admin):
        assert (await join_room(server, room, "Ann", 0, key)).status_code == 403
    assert (await join_room(server, plain, "Ann", 0, ann[1])).status_code == 422
    seated = await join_room(server, room, "Somebody else", 1, ann[1])
    assert seated.status_code == 200
    assert (await server.room(room))["seats"][1]["name"] == "Ann", "seated under the member's name"
    again = await join_room(server, room, "Ann", 2, ann[1])
    assert again.status_code == 409, "a member holds one seat"
    guest = await join_room(server, room, "Guest", 2, None)
    assert guest.status_code == 200, "a room of a club takes guests too"
    info = await api.ok("GET", f"/api/clubs/{club}", ann[1])
    assert info["rooms"] == [{"code": room, "variant": "wisconsin4", "phase": "lobby"}]


async def test_renames_leaving_removal_and_deletion(server: RunningServer) -> None:
    api = ClubApi(server)
    club, admin, [ann, bo], game, room = await a_club_with_a_game(server, api)
    # A member renames themself; not another member.
    assert (await api.call("PATCH", f"/api/clubs/{club}/members/{bo[0]}", ann[1],
                           json={"name": "Bob"})).status_code == 403  # fmt: skip
    assert (await api.call("PATCH", f"/api/clubs/{club}/members/{ann[0]}", ann[1],
                           json={"name": "bo"})).status_code == 409  # fmt: skip
    await api.ok("PATCH", f"/api/clubs/{club}/members/{ann[0]}", ann[1], json={"name": "Annie"})
    listed = await api.games(club, bo[1])
    assert {p["name"] for p in listed[0]["players"] if p["member"]} == {"Annie", "Bo"}
    # The admin renames the club.
    await api.ok("PATCH", f"/api/clubs/{club}", admin, json={"name": "Friday club"})
    assert (await api.ok("GET", f"/api/clubs/{club}", bo[1]))["name"] == "Friday club"

    # Bo leaves: the key stops at once, the archive says "former member", the room's
    # own records (live until the room expires) are untouched.
    before = await api.game(club, admin, game["id"])
    bo_seat = next(p["seat"] for p in before["players"] if p["member"] == bo[0])
    assert all(h["seats"][bo_seat]["name"] == "Bo" for h in before["hands"])
    answer = await api.call("DELETE", f"/api/clubs/{club}/members/{bo[0]}", bo[1])
    assert answer.status_code == 204
    assert (await api.call("GET", f"/api/clubs/{club}", bo[1])).status_code == 401
    after = await api.game(club, admin, game["id"])
    player = next(p for p in after["players"] if p["member"] == bo[0])
    assert player["name"] == "former member"
    assert all(h["seats"][bo_seat]["name"] == "former member" for h in after["hands"])
    assert all(h["seats"][0]["name"] == "Ann" for h in after["hands"]), "others keep theirs"
    exported = await api.ok("GET", f"/api/clubs/{club}/export", admin)
    assert "Bo" not in {m["name"] for m in exported["members"]}
    assert b'"Bo"' not in (await api.call("GET", f"/api/clubs/{club}/export", admin)).content
    assert (await room_records(server, room))[0]["seats"][bo_seat]["name"] == "Bo"
    assert (
        await api.call("DELETE", f"/api/clubs/{club}/members/{bo[0]}", admin)
    ).status_code == 404
    table = await api.standings(club, admin, "wisconsin4")
    assert "former member" in {r["name"] for r in table["players"]}
    # A new member may take the freed name.
    await api.join(club, "Bo")

    # Ann may not remove the admin's game nor another member; the admin may.
    assert (
        await api.call("DELETE", f"/api/clubs/{club}/games/{game['id']}", ann[1])
    ).status_code == 403
    assert (
        await api.call("DELETE", f"/api/clubs/{club}/games/{game['id']}", admin)
    ).status_code == 204
    assert await api.games(club, admin) == []
    assert (
        await api.call("GET", f"/api/clubs/{club}/games/{game['id']}", admin)
    ).status_code == 404
    answer = await api.call("DELETE", f"/api/clubs/{club}/members/{ann[0]}", admin)
    assert answer.status_code == 204
    assert (await api.call("GET", f"/api/clubs/{club}", ann[1])).status_code == 401


async def test_standings_csv(sqlite_server: RunningServer) -> None:
    server = sqlite_server
    api = ClubApi(server)
    club, admin = await api.create("CSV club")
    ann = await api.join(club, "=HYPERLINK(1)")
    room = await api.room(club, ann[1], "wisconsin4", {"target": 5})
    clients = await club_table(server, room, {0: ann[1]}, "wisconsin4")
    await play_to_end(clients, "csv")
    for client in clients.values():
        await client.close()
    await api.archived(club, admin, 1)
    answer = await api.call("GET", f"/api/clubs/{club}/standings.csv", ann[1],
                            params={"variant": "wisconsin4"})  # fmt: skip
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    table = await api.standings(club, admin, "wisconsin4")
    assert len(rows) == len(table["players"]) == 2
    names = {row["name"] for row in rows}
    assert names == {"'=HYPERLINK(1)", "Normal"}, "no cell is a formula"
    for row, player in zip(rows, table["players"], strict=True):
        assert float(row["rating"]) == player["rating"]
        assert int(row["games"]) == player["games"]
        assert player["games"] == (1 if player["member"] else 3), "a bot level counts seats"


async def test_each_club_has_its_budget(server_factory: ServerFactory, tmp_path: Any) -> None:
    server = server_factory(club_rate=5, data_dir=str(tmp_path / "d"))
    api = ClubApi(server)
    club, admin = await api.create("Busy club")
    other, other_admin = await api.create("Quiet club")
    codes = [(await api.call("GET", f"/api/clubs/{club}", admin)).status_code for _ in range(7)]
    assert codes[:5] == [200] * 5 and codes[5:] == [429, 429]
    assert (await api.call("GET", f"/api/clubs/{club}", admin)).headers.get("retry-after") == "60"
    assert (await api.call("GET", f"/api/clubs/{other}", other_admin)).status_code == 200
