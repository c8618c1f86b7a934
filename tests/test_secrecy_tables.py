"""Another table and the comparison of the tables tell nobody anything of a hand in play.

A table of three people plays a whole game. Before each of their actions (a hand in
play), the hand in play and the one after it can be neither dealt again
(`POST /api/rooms/{code}/hands/{n}/practice`) nor compared (`GET .../tables`): 404s, as
for their records; the hand before it can, and its comparison holds no card at all.
Afterwards another table plays the first hand's deal, two people and the bot, with a
spectator there:

- every state frame there, to its players and its spectator, is the engine's redacted
  view of a true state of the practice room (replayed from its log), and the practice
  hand was dealt exactly the original's cards;
- while it is played, the original's comparison counts it and shows neither its code
  nor anything of it; once it is played out, the comparison shows its result, and still
  no card.
"""

from __future__ import annotations

import random
from typing import Any

import httpx

from schmier.rooms.practice import position
from tests.support import loopback
from tests.support.secrecy import cards_in, states_of
from tests.support.servers import Client, Player, ServerFactory, play_all, seat_table
from tests.test_secrecy_review import scored_so_far
from tests.test_secrecy_server import check_client, read_log

SCORED = ("hand_over", "game_over")


async def test_another_table_reveals_nothing_of_a_hand_in_play(
    server_factory: ServerFactory,
) -> None:
    server = server_factory(autoplay_after=0.2)
    rules = {"target": 7}
    rng = random.Random("secrecy-tables")
    code, clients, _, _ = await seat_table(server, "wisconsin4", [0, 1, 2], rules=rules)
    probed = 0
    made: list[str] = []
    http = loopback.async_client(base_url=server.base_url)

    async def probe(view: dict[str, Any]) -> None:
        nonlocal probed
        hand = scored_so_far(clients[0]) + 1  # the hand in play (or about to be)
        for n in (hand, hand + 1):
            posted = await http.post(f"/api/rooms/{code}/hands/{n}/practice")
            got = await http.get(f"/api/rooms/{code}/hands/{n}/tables")
            assert (posted.status_code, got.status_code) == (404, 404), (n, view["phase"])
            probed += 1
        if hand > 1:
            before = await http.get(f"/api/rooms/{code}/hands/{hand - 1}/tables")
            assert before.status_code == 200 and cards_in(before.json()) == set()
            if len(made) < hand - 1:  # one table of each finished hand, during play
                posted = await http.post(f"/api/rooms/{code}/hands/{hand - 1}/practice")
                assert posted.status_code == 201
                made.append(posted.json()["code"])

    async with http:
        players = [Player(clients[0], rng, before_act=probe)]
        players += [Player(clients[s], rng) for s in (1, 2)]
        await play_all(players, lambda v: v["phase"] == "game_over", timeout=300)
        assert probed > 10 and made
        hand = (await http.get(f"/api/rooms/{code}/hands/1")).json()
        await play_again(server, http, code, hand, made[0])
    for client in clients.values():
        await client.close()


async def play_again(
    server: Any, http: httpx.AsyncClient, original: str, hand: dict[str, Any], code: str
) -> None:
    """Two people and the bot play the table of hand 1 made during the game."""
    tokens = {}
    for seat, name in ((0, "Dan"), (2, "Fay")):
        tokens[seat] = (await server.join(code, name, seat))[1]
    players = {k: await Client.seated(server, code, token) for k, token in tokens.items()}
    onlooker = await Client.seated(server, code, None)
    during = await http.get(f"/api/rooms/{original}/hands/1/tables")
    assert during.json()["playing"] >= 1 and code not in during.text
    assert cards_in(during.json()) == set()
    rng = random.Random("again")
    await play_all([Player(c, rng) for c in players.values()], lambda v: v["phase"] in SCORED)
    await onlooker.wait_state(lambda v: v["phase"] in SCORED)
    log = await read_log(server, code)
    states = states_of("wisconsin4", hand["rules"], hand["dealer"], log)
    assert states[1].hands == position(hand, 0)[0].hands  # the original's deal
    for seat, client in players.items():
        assert check_client(client, seat, states) > 3
    assert check_client(onlooker, None, states) > 3
    after = (await http.get(f"/api/rooms/{original}/hands/1/tables")).json()
    assert [t["room"] for t in after["tables"]] == [original, code]
    assert cards_in(after) == set()
    for client in [*players.values(), onlooker]:
        await client.close()
