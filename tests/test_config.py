"""Settings: environment variables, defaults, validation, and their documentation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from schmier.config import Settings

DOC = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def test_defaults() -> None:
    settings = Settings()
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert settings.redis_url is None
    assert settings.bot_delay == pytest.approx(0.8)
    assert settings.hand_pause == 5
    assert settings.autoplay_after == 60
    assert settings.room_ttl == 7 * 24 * 3600
    assert settings.hello_timeout == 10
    assert (settings.frame_burst, settings.frame_rate) == (30, 10)
    assert (settings.chat_burst, settings.chat_window) == (5, 5)
    assert settings.max_frame == 8192
    assert settings.origin_allowlist == frozenset()


def test_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHMIER_PORT", "9001")
    monkeypatch.setenv("SCHMIER_REDIS_URL", "redis://example:6379/3")
    monkeypatch.setenv("SCHMIER_BOT_DELAY", "0")
    monkeypatch.setenv("SCHMIER_LOG_JSON", "true")
    monkeypatch.setenv("SCHMIER_ALLOWED_ORIGINS", "https://A.example/, https://b.example:8443")
    settings = Settings()
    assert settings.port == 9001
    assert settings.redis_url == "redis://example:6379/3"
    assert settings.bot_delay == 0
    assert settings.log_json is True
    assert Settings().default_bot == "strong"
    assert settings.origin_allowlist == {"https://a.example", "https://b.example:8443"}


@pytest.mark.parametrize(
    ("name", "value"),
    [("SCHMIER_PORT", "-1"), ("SCHMIER_BOT_DELAY", "-2"), ("SCHMIER_FRAME_BURST", "0"),
     ("SCHMIER_HELLO_TIMEOUT", "0"), ("SCHMIER_MAX_FRAME", "12"), ("SCHMIER_PORT", "x"),
     ("SCHMIER_DEFAULT_BOT", "grandmaster"), ("SCHMIER_DATABASE_URL", "mysql://db/s"),
     ("SCHMIER_DATABASE_URL", "no url at all")],
)  # fmt: skip
def test_bad_values_fail_at_start(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings()


def test_the_archive_url_gets_its_asyncio_driver(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An operator writes the URL their database documents; the archive opens it with
    asyncpg or aiosqlite. Without one, the SQLite file in the data directory."""
    given = {
        "postgresql://schmier:secret@db:5432/cards": "postgresql+asyncpg://schmier:secret@db:5432/cards",
        "postgres://db/cards": "postgresql+asyncpg://db/cards",
        "postgresql+asyncpg://db/cards": "postgresql+asyncpg://db/cards",
        "sqlite:////srv/cards.db": "sqlite+aiosqlite:////srv/cards.db",
    }
    for url, expected in given.items():
        monkeypatch.setenv("SCHMIER_DATABASE_URL", url)
        assert Settings().archive_url == expected
    monkeypatch.delenv("SCHMIER_DATABASE_URL")
    monkeypatch.setenv("SCHMIER_DATA_DIR", str(tmp_path))
    assert Settings().archive_url == f"sqlite+aiosqlite:///{tmp_path.resolve()}/schmier.db"


def test_every_setting_is_documented_once() -> None:
    text = DOC.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `SCHMIER_")]
    documented = [row.split("`")[1] for row in rows]
    expected = [f"SCHMIER_{name.upper()}" for name in Settings.model_fields]
    assert sorted(documented) == sorted(expected)
    for name, field in Settings.model_fields.items():
        row = rows[documented.index(f"SCHMIER_{name.upper()}")]
        default = field.default
        if default not in (None, ""):
            shown = str(default).lower()
            assert shown.removesuffix(".0") in row.lower(), (name, default)


def test_the_readme_table_is_the_documented_table() -> None:
    """A user reads the README first: its configuration table must be the full one."""
    readme = (DOC.parent.parent / "README.md").read_text()
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("| `SCHMIER_")]
    for row in rows:
        # Links between documents are relative: docs/x.md seen from the README.
        row = re.sub(r"\]\((?!https?:|docs/)([^)]+\.md)\)", r"](docs/\1)", row)
        assert row in readme, row.split("`")[1]
