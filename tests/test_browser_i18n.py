"""Languages in the browser: the catalogues' plural forms are the ones Chromium's
`Intl.PluralRules` asks for, the page picks them by count, and numbers are written by
`Intl.NumberFormat`. (The language following the browser and the picker being
remembered: tests/test_browser.py.)"""

from __future__ import annotations

import pytest

from tests.support.browsers import PageFactory
from tests.support.play import create_room, sit
from tests.support.servers import ServerFactory
from tests.test_browser_static import LANGUAGES, PLURAL_CATEGORIES

pytestmark = pytest.mark.browser


def test_chromium_asks_for_exactly_the_plural_forms_the_catalogues_have(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    page = pages()
    page.goto(server.base_url + "/")
    found = page.evaluate(
        "(langs) => Object.fromEntries(langs.map((l) => "
        "[l, new Intl.PluralRules(l).resolvedOptions().pluralCategories]))",
        LANGUAGES,
    )
    assert {lang: set(cats) for lang, cats in found.items()} == PLURAL_CATEGORIES


@pytest.mark.parametrize(
    ("locale", "one", "many"),
    [
        ("en-GB", "1 empty seat left.", "2 empty seats left."),
        ("bg-BG", "Остава 1 свободно място.", "Остават 2 свободни места."),
    ],
)
def test_counts_take_their_plural_form(
    locale: str, one: str, many: str, pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    page = pages(locale=locale)
    create_room(page, server, "wisconsin4")
    sit(page, "Ann", 0)
    page.click('button[data-action="add_bot"][data-seat="1"]')
    page.wait_for_selector(f'#actions p:text-is("{many}")')
    page.click('button[data-action="add_bot"][data-seat="2"]')
    page.wait_for_selector(f'#actions p:text-is("{one}")')


def test_numbers_are_written_by_intl_number_format(
    pages: PageFactory, server_factory: ServerFactory
) -> None:
    server = server_factory()
    page = pages(locale="en-US")
    page.goto(server.base_url + "/")
    page.wait_for_selector('button[data-action="create"]')
    written = page.evaluate(
        """async () => {
          const i18n = await import('/static/i18n.js');
          return [i18n.num(12345), i18n.signed(3), i18n.signed(-3), i18n.signed(0),
                  i18n.t('score.target', { n: 1000 })];
        }"""
    )
    plain = page.evaluate("new Intl.NumberFormat('en').format(12345)")
    # Negative numbers carry a real minus (U+2212) in every language, the same
    # everywhere on the page, rather than the hyphen some formats give.
    assert written == [plain, "+3", "\u22123", "0", "to 1,000"]
