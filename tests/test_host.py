"""The host runs the table (docs/protocol.md, "The host"), over real sockets: who hosts,
`free_seat`, `set_rules`, `pause`/`resume`, `move_seat`, `swap_seats`, the rematch the
seated players confirm, one name per table, and the `timed_out` notice.

Every refusal is checked to change nothing (`seq` stays, no `state` follows), host-only
frames are refused to the others with `forbidden`, spectators' with `forbidden`.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from typing import Any

from schmier.rooms import autoplay
from tests.support import loopback
from tests.support.servers import (
    Client,
    Player,
    RunningServer,
    ServerFactory,
    eventually,
    seat_table,
)


async def refused(
    client: Client, frame: dict[str, Any], code: str, room: Any = None
) -> dict[str, Any]:
    """Send `frame`; it is answered `error` `code`. With `room` (the server's actor of a
    quiet room), the room's version is checked not to have moved."""
    before = None if room is None else room.version
    await client.send(frame)
    await client.send({"type": "hello"})  # a second hello: refused, changes nothing
    error = await client.next_error()
    assert (error["code"], bool(error["message"])) == (code, True), (frame, error)
    fence = await client.next_error()
    assert fence["code"] == "bad_message"
    if room is not None:
        assert room.version == before, frame
    return error


def actor(server: RunningServer, code: str) -> Any:
    """The server's live actor of room `code` (to read its version)."""
    return server.app.state.rooms.live[code]


async def settled(*clients: Client, seats: list[int]) -> None:
    """Wait until every client has seen every seat in `seats` connected."""
    for client in clients:
        await client.wait_state(lambda v: all(v["seats"][k]["connected"] for k in seats))


async def lobby(server: RunningServer, variant: str = "wisconsin4") -> tuple[str, dict[int, str]]:
    """A room with Ann in seat 0 and Bob in seat 2 (no sockets yet): code, tokens."""
    code = await server.create_room(variant, {"target": 5})
    _, ann = await server.join(code, "Ann", 0)
    _, bob = await server.join(code, "Bob", 2)
    return code, {0: ann, 2: bob}


async def test_the_first_to_sit_hosts_and_hosting_passes_when_they_leave(
    server: RunningServer,
) -> None:
    code = await server.create_room("schmier6")
    watcher = await Client.seated(server, code, None)
    assert watcher.state is not None and watcher.state["view"]["host"] is None
    # Bob sits in seat 4 first, then Ann in seat 1: Bob hosts (the first to sit down).
    _, bob_token = await server.join(code, "Bob", 4)
    _, ann_token = await server.join(code, "Ann", 1)
    bob = await Client.seated(server, code, bob_token)
    ann = await Client.seated(server, code, ann_token)
    await settled(watcher, bob, ann, seats=[1, 4])
    for client in (watcher, bob, ann):
        assert client.state is not None and client.state["view"]["host"] == 4
    # The host leaves: the lowest connected person's seat hosts.
    await bob.send({"type": "leave"})
    for client in (watcher, ann, bob):
        await client.wait_state(lambda v: v["host"] == 1 and v["seats"][4]["kind"] == "empty")
    # A spectator may not run the table.
    room = actor(server, code)
    for frame in (
        {"type": "pause"},
        {"type": "free_seat", "seat": 1},
        {"type": "move_seat", "seat": 0},
        {"type": "set_rules", "rules": {"target": 11}},
        {"type": "swap_seats", "seats": [0, 1]},
        {"type": "resume"},
    ):
        await refused(bob, frame, "forbidden", room)
    for client in (watcher, bob, ann):
        await client.close()


async def test_the_host_frees_an_absent_players_seat_who_takes_it_back_by_name(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(autoplay_after=600)
    code, clients, watchers, tokens = await seat_table(
        server, "wisconsin4", [0, 1], rules={"target": 5}, spectators=1
    )
    host, other = clients[0], clients[1]
    assert host.state is not None and host.state["view"]["host"] == 0
    # Bob's phone is gone: his seat is a person's, and not connected.
    await other.close()
    await host.wait_state(lambda v: not v["seats"][1]["connected"])
    # Only the host frees a seat, only an absent person's, and only a real seat.
    await refused(watchers[0], {"type": "free_seat", "seat": 1}, "forbidden")
    for bad in (0, 2, 4, -1):  # the host's own (connected), a bot's, out of range
        await refused(host, {"type": "free_seat", "seat": bad}, "illegal")
    for shape in ({"type": "free_seat", "seat": "1"}, {"type": "free_seat"}):
        await refused(host, shape, "bad_message")
    assert host.state is not None and host.state["view"]["seats"][1]["kind"] == "human"
    await host.send({"type": "free_seat", "seat": 1})
    freed = await watchers[0].wait_state(lambda v: v["seats"][1]["kind"] == "bot")
    assert freed["view"]["seats"][1]["name"] == "Bot 2"
    # The old token is worthless from now on.
    stale = await Client.connect(server.ws_url(code))
    await stale.send({"type": "hello", "token": tokens[1]})
    assert await stale.closed() == 4401
    # Bob, on another device, takes his seat over by name, hand and all.
    seat, token = await server.join(code, "Bob", 1)
    assert seat == 1 and token != tokens[1]
    bob = await Client.seated(server, code, token)
    assert bob.state is not None
    view = bob.state["view"]
    assert view["you"] == 1 and view["seats"][1]["name"] == "Bob"
    assert view["phase"] == "game_over" or len(view["hand"]) > 0
    for client in (host, bob, *watchers):
        await client.close()


async def test_a_freed_seats_socket_is_closed_with_4401(server: RunningServer) -> None:
    """A seat the room shows absent may still have a socket on its way (another
    instance's, say): freeing the seat closes it as a hello with the old token would be,
    and the last view it got is a spectator's, never the bot's hand."""
    code, tokens = await lobby(server)
    ann = await Client.seated(server, code, tokens[0])
    bob = await Client.seated(server, code, tokens[2])
    await settled(ann, bob, seats=[0, 2])
    room = actor(server, code)

    def absent() -> None:  # on the server's loop: the record says Bob is away
        seats = list(room.record.seats)
        seats[2] = replace(seats[2], connected=False)
        room.record = replace(room.record, seats=tuple(seats))

    room._loop.call_soon_threadsafe(absent)
    await eventually(_true_soon(lambda: not room.record.seats[2].connected))
    await ann.send({"type": "free_seat", "seat": 2})
    assert await bob.closed() == 4401
    states = [f for f in bob.frames if f["type"] == "state"]
    assert states[-1]["view"]["you"] is None and states[-1]["view"]["seats"][2]["kind"] == "bot"
    await ann.close()


async def test_the_host_sets_the_rules_of_the_next_game(server: RunningServer) -> None:
    code, tokens = await lobby(server)
    ann = await Client.seated(server, code, tokens[0])
    bob = await Client.seated(server, code, tokens[2])
    await settled(ann, bob, seats=[0, 2])
    room = actor(server, code)
    await refused(bob, {"type": "set_rules", "rules": {"target": 11}}, "forbidden", room)
    for bad in (
        {"target": 200},
        {"target": "11"},
        {"target": 11.5},
        {"target": True},
        {"nonsense": 1},
        {"turn_seconds": 5},
        {"kitty": 9},
        {"joker_order": "sideways"},
        {"hints": 1},
        {"": 1},
        {str(k): 1 for k in range(17)},
    ):
        await refused(ann, {"type": "set_rules", "rules": bad}, "bad_message", room)
    for shape in ({"type": "set_rules"}, {"type": "set_rules", "rules": [1]}):
        await refused(ann, shape, "bad_message", room)
    await ann.send({"type": "set_rules", "rules": {"target": 11, "kitty": 3, "turn_seconds": 30}})
    view = (await bob.wait_state(lambda v: v["rules"]["target"] == 11))["view"]
    assert view["rules"]["kitty"] == 3 and view["rules"]["turn_seconds"] == 30
    await ann.wait_state(lambda v: v["rules"]["target"] == 11)
    await refused(ann, {"type": "set_rules", "rules": {"target": 11}}, "illegal", room)
    await refused(ann, {"type": "set_rules", "rules": {}}, "illegal", room)
    assert (await server.room(code))["rules"]["target"] == 11
    # schmier6 has no kitty: a rule of another game is refused as at creation.
    other = await server.create_room("schmier6")
    _, token = await server.join(other, "Cy", 0)
    cy = await Client.seated(server, other, token)
    await refused(cy, {"type": "set_rules", "rules": {"kitty": 2}}, "bad_message")
    # Not during a game.
    for seat in (1, 3):
        await ann.send({"type": "add_bot", "seat": seat})
    await ann.wait_state(lambda v: {"type": "start"} in v["legal"])
    await ann.send({"type": "start"})
    await ann.wait_state(lambda v: v["phase"] != "lobby")
    await refused(ann, {"type": "set_rules", "rules": {"target": 7}}, "illegal")
    assert ann.state is not None and ann.state["view"]["rules"]["target"] == 11
    for client in (ann, bob, cy):
        await client.close()


async def test_pause_stops_bots_and_timers_and_resume_goes_on(
    server_factory: ServerFactory,
) -> None:
    # Bots at once; a timer of 10 s run at 0.2 (2 s), plenty to pause in.
    server = server_factory(turn_timer_scale=0.2)
    code, clients, watchers, _ = await seat_table(
        server, "schmier6", [0, 3], rules={"target": 5, "turn_seconds": 10}, spectators=1
    )
    ann, bob = clients[0], clients[3]
    await refused(ann, {"type": "resume"}, "illegal")
    # A person's timed turn: pause it.
    turn = await ann.wait_state(lambda v: v["turn_ends_in"] is not None)
    waiting = turn["view"]["turn"]
    await ann.send({"type": "pause"})
    paused = await watchers[0].wait_state(lambda v: v["paused"])
    view = paused["view"]
    left = view["turn_ends_in"]
    assert left is not None and 0 < left <= 2
    assert view["turn"] == waiting
    room = actor(server, code)
    await refused(ann, {"type": "pause"}, "illegal", room)
    await refused(bob, {"type": "pause"}, "forbidden", room)
    await refused(bob, {"type": "resume"}, "forbidden", room)
    await refused(watchers[0], {"type": "resume"}, "forbidden", room)
    # Nothing of the game is taken: no action is listed, any sent is refused.
    player = clients[waiting[0]]
    await player.wait_state(lambda v: v["paused"])
    assert player.state is not None and player.state["view"]["legal"] == []
    for frame in ({"type": "pass"}, {"type": "bid", "amount": 2}, {"type": "hint"}):
        await refused(player, frame, "paused", room)
    # Longer than the turn had left: no bot played it, the count stood still.
    await asyncio.sleep(left + 0.5)
    late = await Client.seated(server, code, None)
    assert late.state is not None and late.state["seq"] == paused["seq"]
    still = late.state["view"]
    assert still["paused"] and still["turn"] == waiting and still["turn_ends_in"] == left
    await ann.send({"type": "resume"})
    resumed = await watchers[0].wait_state(lambda v: not v["paused"])
    again = resumed["view"]["turn_ends_in"]
    assert again is not None and left - 0.5 <= again <= left
    # The game goes on: the timer runs out and the bot plays that turn.
    await watchers[0].wait_state(lambda v: v["turn"] != waiting, timeout=left + 5)
    for client in (ann, bob, late, *watchers):
        await client.close()


async def test_move_and_swap_seats(server: RunningServer) -> None:
    code, tokens = await lobby(server)
    ann = await Client.seated(server, code, tokens[0])
    bob = await Client.seated(server, code, tokens[2])
    watcher = await Client.seated(server, code, None)
    await settled(ann, bob, watcher, seats=[0, 2])
    room = actor(server, code)
    await refused(watcher, {"type": "move_seat", "seat": 1}, "forbidden", room)
    for bad in (0, 2, 9, -1):  # taken, his own, out of range
        await refused(bob, {"type": "move_seat", "seat": bad}, "illegal", room)
    await refused(bob, {"type": "move_seat", "seat": True}, "bad_message", room)
    # Bob (not the host) moves himself to seat 3; his token and socket go with him.
    await bob.send({"type": "move_seat", "seat": 3})
    moved = await bob.wait_state(lambda v: v["you"] == 3)
    assert moved["view"]["seats"][2]["kind"] == "empty"
    assert moved["view"]["seats"][3]["name"] == "Bob"
    again = await Client.seated(server, code, tokens[2])
    assert again.state is not None and again.state["view"]["you"] == 3
    await again.close()
    # The host swaps: only the host, two different seats in range, two of them.
    await ann.send({"type": "add_bot", "seat": 1, "bot": "easy"})
    await ann.wait_state(lambda v: v["seats"][1]["kind"] == "bot" and v["seats"][3]["connected"])
    await bob.wait_state(lambda v: v["seats"][1]["kind"] == "bot" and v["seats"][3]["connected"])
    await refused(bob, {"type": "swap_seats", "seats": [0, 3]}, "forbidden", room)
    for bad in ([1, 1], [0, 4], [-1, 0]):
        await refused(ann, {"type": "swap_seats", "seats": bad}, "illegal", room)
    for shape in ([0], [0, 1, 2], "01", [0, "1"]):
        await refused(ann, {"type": "swap_seats", "seats": shape}, "bad_message", room)
    await ann.send({"type": "swap_seats", "seats": [0, 1]})
    swapped = await ann.wait_state(lambda v: v["you"] == 1)
    view = swapped["view"]
    assert view["host"] == 1  # the host's role goes with the host
    assert (view["seats"][0]["name"], view["seats"][0]["bot"]) == ("Bot 1", "easy")
    assert view["seats"][1]["name"] == "Ann"
    # Not during a game.
    await ann.send({"type": "add_bot", "seat": 2})
    await ann.wait_state(lambda v: {"type": "start"} in v["legal"])
    await ann.send({"type": "start"})
    await ann.wait_state(lambda v: v["phase"] != "lobby")
    await refused(ann, {"type": "swap_seats", "seats": [0, 2]}, "illegal")
    await refused(bob, {"type": "move_seat", "seat": 0}, "illegal")
    for client in (ann, bob, watcher):
        await client.close()


async def test_one_name_per_table(server: RunningServer) -> None:
    code = await server.create_room("schmier6")
    await server.join(code, "Sam", 0)
    async with loopback.async_client(base_url=server.base_url) as http:
        # Trimmed and case folded, and no bot's name at this table (seat 2's is "Bot 2").
        for same in ("Sam", "sam", "  SAM ", "Bot 2", "bot  6"):
            answer = await http.post(f"/api/rooms/{code}/join", json={"name": same, "seat": 3})
            assert answer.status_code == 409, (same, answer.text)
            assert answer.json()["detail"].startswith("name taken")
        for fine in ("Sam B", "Bot 7"):
            answer = await http.post(f"/api/rooms/{code}/join", json={"name": fine})
            assert answer.status_code == 200, answer.text
    info = await server.room(code)
    assert [s["name"] for s in info["seats"]] == ["Sam", "Sam B", "Bot 7", None, None, None]


async def test_the_rematch_waits_for_every_person_and_the_rules_may_change(
    server: RunningServer,
) -> None:
    code, clients, watchers, _ = await seat_table(
        server, "wisconsin4", [0, 2], rules={"target": 5}, spectators=1
    )
    ann, bob = clients[0], clients[2]
    players = [Player(ann, random.Random("host-a")), Player(bob, random.Random("host-b"))]
    await asyncio.gather(*(p.play_until(_over) for p in players))
    for client in (*clients.values(), *watchers):
        await client.wait_state(_over)
    room = actor(server, code)
    await refused(watchers[0], {"type": "rematch"}, "forbidden", room)
    await ann.send({"type": "rematch"})
    await bob.wait_state(lambda v: v["rematch"] == [0])
    await ann.wait_state(lambda v: v["rematch"] == [0])
    await refused(ann, {"type": "rematch"}, "illegal", room)  # asked already
    # The host changes the target: the votes are taken back, everybody confirms anew.
    await refused(bob, {"type": "set_rules", "rules": {"target": 7}}, "forbidden", room)
    await ann.send({"type": "set_rules", "rules": {"target": 7}})
    view = (await bob.wait_state(lambda v: v["rules"]["target"] == 7))["view"]
    assert view["rematch"] == [] and view["phase"] == "game_over"
    # Between games the seats may change: a bot out, the seat empty, a bot of a level in.
    await bob.send({"type": "remove_bot", "seat": 1})
    await bob.wait_state(lambda v: v["seats"][1]["kind"] == "empty")
    await ann.send({"type": "rematch"})
    await bob.send({"type": "rematch"})
    # Every person asked, but a seat is empty: the game waits for it.
    waiting = await ann.wait_state(lambda v: v["rematch"] == [0, 2])
    assert waiting["view"]["phase"] == "game_over"
    await ann.send({"type": "add_bot", "seat": 1, "bot": "easy"})
    fresh = await watchers[0].wait_state(lambda v: v["phase"] != "game_over")
    view = fresh["view"]
    assert view["rules"]["target"] == 7 and view["rematch"] == [] and view["scores"] == [0, 0]
    assert view["seats"][1]["bot"] == "easy"
    # The finished game's records keep its rules; the new game's have the new ones.
    await asyncio.gather(*(p.play_until(_scored) for p in players))
    async with loopback.async_client(base_url=server.base_url) as http:
        hands = (await http.get(f"/api/rooms/{code}/hands")).json()
        records = [(await http.get(f"/api/rooms/{code}/hands/{h['n']}")).json() for h in hands]
    assert {r["rules"]["target"] for r in records if r["game"] == 1} == {5}
    assert {r["rules"]["target"] for r in records if r["game"] == 2} == {7}
    for client in (ann, bob, *watchers):
        await client.close()


async def test_an_absent_players_seat_freed_or_left_completes_the_rematch(
    server: RunningServer,
) -> None:
    _, clients, _, _ = await seat_table(server, "wisconsin4", [0, 1, 2], rules={"target": 5})
    players = [Player(clients[s], random.Random(f"host-{s}")) for s in (0, 1, 2)]
    await asyncio.gather(*(p.play_until(_over) for p in players))
    await clients[0].send({"type": "rematch"})
    await clients[1].wait_state(lambda v: v["rematch"] == [0])
    # Seat 2 goes home: the host frees the seat; seat 1 leaves; the game starts.
    await clients[2].close()
    await clients[0].wait_state(lambda v: not v["seats"][2]["connected"])
    await clients[0].send({"type": "free_seat", "seat": 2})
    freed = await clients[0].wait_state(lambda v: v["seats"][2]["kind"] == "bot")
    assert freed["view"]["phase"] == "game_over"  # seat 1 has not asked yet
    await clients[1].send({"type": "leave"})
    fresh = await clients[0].wait_state(lambda v: v["phase"] != "game_over")
    assert fresh["view"]["seats"][1]["kind"] == "bot" and fresh["view"]["rematch"] == []
    for client in clients.values():
        await client.close()


async def test_hosting_passes_on_when_the_host_is_away(server_factory: ServerFactory) -> None:
    server = server_factory(host_away=0.3)
    code, tokens = await lobby(server)
    ann = await Client.seated(server, code, tokens[0])
    bob = await Client.seated(server, code, tokens[2])
    await settled(bob, seats=[0, 2])
    assert bob.state is not None and bob.state["view"]["host"] == 0
    await ann.close()
    gone = await bob.wait_state(lambda v: not v["seats"][0]["connected"])
    assert gone["view"]["host"] == 0  # away, not yet for long
    await bob.wait_state(lambda v: v["host"] == 2, timeout=10)
    # Now Bob may free Ann's seat.
    await bob.send({"type": "free_seat", "seat": 0})
    await bob.wait_state(lambda v: v["seats"][0]["kind"] == "bot")
    await bob.close()


async def test_the_timed_out_player_alone_is_told_what_the_bot_played(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(turn_timer_scale=0.05)  # 10 s run 0.5 s
    _, clients, watchers, _ = await seat_table(
        server, "schmier6", [0, 3], rules={"target": 5, "turn_seconds": 10}, spectators=1
    )
    # Nobody plays: the timer plays both people's turns, and each is told its own.
    for client in clients.values():
        await client.wait_state(lambda v: v["phase"] in ("play", "game_over"), timeout=60)
    await asyncio.sleep(0.3)
    for seat, client in clients.items():
        notices = [f for f in client.frames if f["type"] == "timed_out"]
        assert notices, seat
        for notice in notices:
            # Right after the state that shows it, one of what the seat was offered.
            at = client.frames.index(notice)
            shown = client.frames[at - 1]
            assert shown["type"] == "state" and shown["seq"] == notice["seq"]
            offered = [
                f["view"]["legal"]
                for f in client.frames[:at]
                if f["type"] == "state" and f["seq"] < notice["seq"]
            ][-1]
            assert autoplay.is_legal(notice["action"], offered), (notice, offered)
    # Nobody else hears of a seat's timeout.
    assert not [f for f in watchers[0].frames if f["type"] == "timed_out"]
    for client in (*clients.values(), *watchers):
        await client.close()


def _over(view: dict[str, Any]) -> bool:
    return bool(view["phase"] == "game_over")


def _scored(view: dict[str, Any]) -> bool:
    return view["phase"] in ("hand_over", "game_over") and view["last_hand"] is not None


def _true_soon(check: Any) -> Any:
    async def holds() -> bool:
        return bool(check())

    return holds
