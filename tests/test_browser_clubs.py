"""A club in a real Chromium: started from the home page, joined by three people from
three browsers (one of them a phone), a club game played with bots to its end, the
standings and the rating chart drawn from it, the archive opening the game's hands'
review from the archived record, the member's own name and leaving."""

from __future__ import annotations

import re

import pytest

from tests.support.browsers import PHONE, PageFactory, Table, screenshot
from tests.support.play import check_fits, drive, fill_and_start, open_club_archived, sit
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.browser


def test_a_club_from_start_to_archive(pages: PageFactory, server_factory: ServerFactory) -> None:
    server = server_factory(hand_pause=0.2)
    ann = pages()
    ann.goto(server.base_url + "/")
    assert ann.locator(".clubs-home").is_hidden(), "no club yet: no 'your clubs'"
    ann.fill("#new-club-name", "Thursday club")
    ann.fill("#new-club-me", "Ann")
    ann.click('button[data-action="create-club"]')
    ann.wait_for_url(re.compile(r"/c/[a-z2-7]{16}$"))
    ann.wait_for_selector("#club-name")
    assert ann.inner_text("#club-name") == "Thursday club"
    code = ann.url.rsplit("/c/", 1)[1]
    invite = ann.input_value("#club-invite")
    assert invite == f"{server.base_url}/c/{code}"
    admin_link = ann.input_value("#club-admin-link")
    assert "#admin=" in admin_link and "#key=" in ann.input_value("#club-own-link")

    # Two more people join from their own browsers, one of them on a phone.
    others = {}
    for name, viewport in (("Bo", None), ("Cy", PHONE)):
        page = pages(viewport)
        page.goto(invite)
        page.fill("#club-join-name", name)
        page.click('button[data-action="join-club"]')
        page.wait_for_selector("#club-name")
        others[name] = page
    ann.reload()
    ann.wait_for_selector("#club-name")
    members = ann.locator(".member-list .member-name").all_inner_texts()
    assert members == ["Ann", "Bo", "Cy"]
    # The keys never went into an address the server saw.
    assert "#" not in ann.url

    # A club room: Ann takes a seat (seated as the member) and plays with bots.
    ann.select_option("#club-room-variant", "wisconsin4")
    ann.fill("#club-room-target", "5")
    ann.click('button[data-action="club-room"]')
    ann.wait_for_url(re.compile(r"/r/[^/]+$"))
    room = ann.url.rsplit("/r/", 1)[1]
    table = Table(ann)
    ann.wait_for_selector("body[data-seq]")
    sit(ann, "Someone", 0)
    assert ann.locator('.seat.me[data-seat="0"]').inner_text().count("Ann") >= 1
    fill_and_start(ann)
    end = drive(table, lambda v: v["phase"] == "game_over")
    assert end["winners"]

    # The club's page: the room, the standings, the chart, the archive.
    open_club_archived(ann, f"{server.base_url}/c/{code}", "wisconsin4", "Ann")
    ann.wait_for_selector(f'a[data-room="{room}"]')
    row = ann.locator('.standings-table tr[data-player]:has-text("Ann")')
    assert row.locator("td").nth(1).inner_text() == "1", "one game"
    chart = ann.locator('figure[data-chart="ratings"]')
    chart.wait_for()
    assert chart.get_attribute("data-games") == "1"
    assert ann.locator(".rating-chart g.chart-line circle").count() >= 2  # Ann and a bot
    # The archive has the game; its hands open their review, by keyboard.
    game = ann.locator("li.game").first
    game.wait_for()
    game.locator('button[data-action="game-hands"]').click()
    first_hand = game.locator('button[data-action="review-archived"]').first
    first_hand.wait_for()
    first_hand.focus()
    ann.keyboard.press("Enter")
    review = ann.locator("#review-dialog .review")
    review.wait_for()
    step = review.locator(".review-stage").get_attribute("data-step")
    ann.keyboard.press("ArrowRight")
    assert review.locator(".review-stage").get_attribute("data-step") != step
    assert ann.locator('#review-dialog [data-review="page"]').count() == 0, "no room page link"
    screenshot(ann, "desktop-club-review")
    ann.keyboard.press("Escape")

    # On the phone, Cy sees the same standings, and the page fits the screen.
    cy = others["Cy"]
    cy.reload()
    cy.select_option("#standings-variant", "wisconsin4")
    cy.locator('.standings-table tr[data-player]:has-text("Ann")').wait_for()
    cy.locator('figure[data-chart="ratings"]').wait_for()
    check_fits(cy)
    screenshot(cy, "phone-club")

    # Bo renames himself, then leaves; the key is gone from his browser.
    bo = others["Bo"]
    bo.fill("#club-my-name", "Bob")
    bo.click('button[data-action="rename-me"]')
    bo.wait_for_selector("text=You are a member, as Bob.")
    # The page drawn anew loads its standings and archive with Bo's key: leaving before
    # they are answered would have them answered 401 (a console error), so wait.
    bo.wait_for_function("() => !document.querySelector('#club [aria-busy]')")
    bo.click('button[data-action="leave-club"]')
    bo.click('button[data-confirm="yes"]')
    bo.wait_for_selector("#club-join-name")
    bo.goto(server.base_url + "/")
    assert bo.locator(".clubs-home").is_hidden()

    # Ann's home page lists her club.
    ann.goto(server.base_url + "/")
    link = ann.locator(f'.your-clubs a[data-club="{code}"]')
    link.wait_for()
    assert link.inner_text() == "Thursday club"
