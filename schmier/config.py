"""Server settings, read from `SCHMIER_*` environment variables.

One pydantic-settings class so that `python -m schmier`, the tests and a container all
configure the server the same way, and so that a bad value fails at start-up with a
clear message instead of halfway through a game. Every field is documented in
`docs/configuration.md` (a test keeps the two in step).
"""

from __future__ import annotations

import os

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from schmier.engine.bots import levels
from schmier.ledger.urls import database_url, default_data_dir
from schmier.store.sentinel import parse_sentinels


class Settings(BaseSettings):
    """Everything an operator may tune; defaults suit a small self-hosted server."""

    model_config = SettingsConfigDict(env_prefix="SCHMIER_", extra="ignore", frozen=True)

    host: str = Field("127.0.0.1", description="Address uvicorn listens on.")
    port: int = Field(8000, ge=0, le=65535, description="TCP port uvicorn listens on.")
    redis_url: str | None = Field(
        None, description="Redis URL (redis://host:port/db); unset keeps rooms in memory."
    )
    redis_prefix: str = Field("schmier:", description="Prefix of every Redis key.")
    redis_sentinels: str = Field(
        "",
        description=(
            "Comma-separated host:port of Redis Sentinels; set, the master is found "
            "through them (the URL then gives only database, password and TLS)."
        ),
    )
    redis_sentinel_master: str = Field(
        "mymaster", min_length=1, description="The name the sentinels monitor the master by."
    )
    redis_wait_replicas: int = Field(
        0,
        ge=0,
        le=16,
        description=(
            "Replicas every commit waits for (Redis WAIT) before its views go out; 0: "
            "none (commits are done once the master has them)."
        ),
    )
    redis_wait_ms: int = Field(
        1000,
        ge=1,
        le=60_000,
        description="Milliseconds a commit waits for its replicas before it counts as done.",
    )
    redis_wait_strict: bool = Field(
        False,
        description=(
            "A commit its replicas did not acknowledge in time is not done: the rooms "
            "pause until a write reaches the replicas again (survives a master cut off "
            "from its replicas and replaced)."
        ),
    )
    instance_id: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9_.-]{1,64}$",
        description=(
            "Name of this instance among several sharing one Redis (letters, digits, "
            "`_.-`); unset picks host name, process id and a random suffix."
        ),
    )
    lease_ms: int = Field(
        5000,
        ge=300,
        le=600_000,
        description=(
            "Milliseconds a room's ownership lease lasts without renewal (renewed every "
            "third of it); after an instance dies its rooms move within about this long."
        ),
    )
    bot_delay: float = Field(0.8, ge=0, description="Seconds a bot waits before acting.")
    default_bot: str = Field(
        levels.DEFAULT,
        description=(
            "The bot level that fills seats added without one, plays for away players and "
            "answers hints (`GET /api/bots` lists it first): "
            + ", ".join(f"`{lvl.name}`" for lvl in levels.LEVELS)
            + "."
        ),
    )
    bot_slack: float = Field(
        0.5,
        gt=0,
        le=60,
        description=(
            "Seconds past the bot delay by which a bot's move should be played; when the "
            "workers are too busy for that, decisions get smaller search budgets."
        ),
    )
    bot_workers: int | None = Field(
        None,
        ge=0,
        le=256,
        description=(
            "Worker processes that compute bot decisions and hints off the event loop; "
            "unset: one fewer than the CPUs (at least 1); 0: a thread of the server's own "
            "process (tests, development)."
        ),
    )
    bot_nice: int = Field(
        10,
        ge=0,
        le=19,
        description=(
            "How much lower than the server's the bot workers' CPU priority is (Unix "
            "niceness added): a thinking bot yields the CPU to the rooms' humans."
        ),
    )
    think_queue: int = Field(
        16,
        ge=0,
        le=10_000,
        description=(
            "Hints (and other jobs below a bot's move) that may wait for a bot worker; "
            "past it a hint is refused with `rate_limited` at once instead of waiting."
        ),
    )
    hint_burst: int = Field(
        5, ge=1, description="Hints one seat may have computed at once (then HINT_RATE)."
    )
    hint_rate: float = Field(
        0.5, gt=0, description="Hints per second one seat may have computed after its burst."
    )
    room_hint_rate: float = Field(
        1.0,
        gt=0,
        description="Hints per second one room may have computed (burst: twice HINT_BURST).",
    )
    analysis_max: int = Field(
        2,
        ge=1,
        le=1000,
        description=(
            "Analyses of finished hands this server computes at once (each one decision "
            "at a time in the bot workers, below moves and hints); past it a new one is "
            "refused with 429 and a Retry-After."
        ),
    )
    analysis_effort: int = Field(
        100,
        ge=1,
        le=1000,
        description=(
            "Percent of the coach's measured budget (worlds and playouts per decision) an "
            "analysis spends; below 100 it is quicker and less steady."
        ),
    )
    analysis_room_burst: int = Field(
        4, ge=1, le=1000, description="Analyses one room may start at once (then ROOM_RATE)."
    )
    analysis_room_rate: float = Field(
        1.0,
        gt=0,
        description=(
            "Analyses per minute one room may start after its burst; past it, 429 with a "
            "Retry-After (asking for one being computed or done costs nothing)."
        ),
    )
    idle_turn_seconds: float = Field(
        120.0,
        ge=0,
        description=(
            "Seconds a connected player may leave their turn untouched in a room without "
            "a turn timer before the default bot plays it for them; 0: never."
        ),
    )
    hand_pause: float = Field(
        5.0, ge=0, description="Seconds a hand's score stays up before the next deal."
    )
    trick_pause: float = Field(
        1.0, ge=0, description="Extra seconds before a bot acts after a trick is completed."
    )
    reveal_ms: int = Field(
        2000,
        ge=1,
        le=60_000,
        description=(
            "Milliseconds the deal waits at most for the players who committed to their "
            "entropy to reveal it; a value not revealed in time is withheld (its "
            "commitment goes into the deck instead)."
        ),
    )
    autoplay_after: float = Field(
        60.0,
        ge=0,
        description="Seconds a disconnected player's turn waits before the bot plays it.",
    )
    host_away: float = Field(
        60.0,
        ge=0,
        description=(
            "Seconds the room's host may be disconnected before the lowest connected "
            "person's seat becomes host."
        ),
    )
    lead_grace: float = Field(
        10.0,
        ge=0,
        le=15,
        description=(
            "Seconds the leader of a shared review may be disconnected before the lead "
            "passes to another connected seated person (or the review closes)."
        ),
    )
    turn_timer_scale: float = Field(
        1.0,
        gt=0,
        le=1,
        description=(
            "Factor on the seconds of the `turn_seconds` room rule (1: as set); below 1 "
            "for tests and demonstrations only."
        ),
    )
    room_ttl: int = Field(
        7 * 24 * 3600, ge=60, description="Seconds an untouched room is kept in the store."
    )
    idle_room_seconds: float = Field(
        300.0, ge=0, description="Seconds a room with no sockets stays loaded in memory."
    )
    hello_timeout: float = Field(
        10.0, gt=0, description="Seconds a new socket has to send its hello."
    )
    ws_ping_interval: float = Field(
        5.0,
        gt=0,
        description=(
            "Seconds between the server's WebSocket pings to each socket, so that a "
            "connection whose network died is noticed (the player shown offline)."
        ),
    )
    ws_ping_timeout: float = Field(
        10.0,
        gt=0,
        description="Seconds a ping may go unanswered before the socket is closed.",
    )
    frame_burst: int = Field(30, ge=1, description="Frames a connection may send at once.")
    frame_rate: float = Field(
        10.0, gt=0, description="Frames per second a connection may send after its burst."
    )
    chat_burst: int = Field(5, ge=1, description="Chat messages a seat may send per window.")
    chat_window: float = Field(5.0, gt=0, description="The chat window, in seconds.")
    create_rate: int = Field(
        20, ge=1, description="Rooms one client address may create per minute."
    )
    join_rate: int = Field(60, ge=1, description="Joins one client address may make per minute.")
    lookup_fail_rate: int = Field(
        30,
        ge=1,
        description="Failed room look-ups (unknown code) per address per minute before 429.",
    )
    allowed_origins: str = Field(
        "",
        description="Comma-separated extra origins (https://host:port) allowed to open sockets.",
    )
    gc_step_ms: int = Field(
        25,
        ge=0,
        le=10_000,
        description=(
            "Milliseconds between the server's own young-generation garbage collections "
            "(short pauses instead of CPython's long ones, see docs/performance.md); 0 "
            "leaves collection to CPython."
        ),
    )
    gc_full_growth: int = Field(
        25,
        ge=0,
        le=1000,
        description=(
            "Per cent the Python heap may grow over its smallest size since the last full "
            "garbage collection before the next one runs (CPython's own rule); full "
            "collections reclaim cycles among long-lived objects and pause the server in "
            "proportion to its size. 0: none by growth."
        ),
    )
    gc_full_seconds: float = Field(
        0,
        ge=0,
        description=(
            "Seconds between full garbage collections by the clock, besides those by "
            "growth; 0: none by the clock. With both 0 nothing is frozen, and the "
            "once-a-minute collection walks everything."
        ),
    )
    gc_count_objects: bool = Field(
        False,
        description=(
            "Export schmier_gc_frozen_objects, counted at each scrape of /metrics: the "
            "count walks every frozen object (about 80 ns each, tens of milliseconds at "
            "1,000 tables, with the server stopped), so it is for benchmarks of memory "
            "per table, not for a server in play."
        ),
    )
    log_json: bool = Field(False, description="One JSON object per log line.")
    log_level: str = Field("INFO", description="Python logging level name.")
    proxy_headers: bool = Field(
        False, description="Trust X-Forwarded-For/-Proto from FORWARDED_ALLOW_IPS."
    )
    forwarded_allow_ips: str = Field(
        "127.0.0.1", description="Comma-separated proxy addresses whose headers are trusted."
    )
    sockets_per_seat: int = Field(
        4,
        ge=1,
        le=64,
        description=(
            "Sockets one seat may have open at once; a newer one closes the oldest (4409)."
        ),
    )
    header_timeout: float = Field(
        10.0,
        gt=0,
        le=300,
        description=(
            "Seconds a client has to send a request's headers (a WebSocket's handshake "
            "too) from its first byte; a slower one is disconnected."
        ),
    )
    public_origin: str = Field(
        "",
        description=(
            "Comma-separated origins (https://host[:port]) the server is reached at; set, "
            "the WebSocket Origin check uses them instead of the request's Host header."
        ),
    )
    max_frame: int = Field(
        8192, ge=256, description="Largest WebSocket frame in bytes; larger closes with 1009."
    )
    data_dir: str | None = Field(
        None,
        min_length=1,
        description=(
            "Directory of the archive's SQLite file (`schmier.db`), made if missing; "
            "unset: $XDG_DATA_HOME/schmier or ~/.local/share/schmier; unused when "
            "SCHMIER_DATABASE_URL is set."
        ),
    )
    database_url: str | None = Field(
        None,
        description=(
            "The archive's database: `postgresql://user:password@host:5432/db` or "
            "`sqlite:////path/file.db`; unset: SQLite in SCHMIER_DATA_DIR."
        ),
    )
    club_rate: int = Field(
        300,
        ge=1,
        description="Requests per minute one club's API answers, from all addresses together.",
    )

    @field_validator("default_bot")
    @classmethod
    def _default_bot_known(cls, value: str) -> str:
        if value not in levels.BY_NAME:
            known = ", ".join(lvl.name for lvl in levels.LEVELS)
            raise ValueError(f"unknown bot level {value!r}; known: {known}")
        return value

    @field_validator("database_url")
    @classmethod
    def _database_known(cls, value: str | None) -> str | None:
        if value:
            database_url(value, ".")
        return value or None

    @property
    def archive_url(self) -> str:
        """The SQLAlchemy URL of the archive's database (docs/archive.md)."""
        return database_url(self.database_url, self.data_dir or default_data_dir())

    @field_validator("redis_sentinels")
    @classmethod
    def _sentinels_parse(cls, value: str) -> str:
        parse_sentinels(value)
        return value

    @property
    def sentinel_addresses(self) -> list[tuple[str, int]]:
        """The sentinels' addresses (empty: no Sentinel)."""
        return parse_sentinels(self.redis_sentinels)

    @property
    def thinking_workers(self) -> int:
        """`bot_workers`, with its default filled in (0: no worker process)."""
        if self.bot_workers is not None:
            return self.bot_workers
        return max(1, (os.cpu_count() or 1) - 1)

    @property
    def uses_redis(self) -> bool:
        """Whether rooms live in Redis (a URL or sentinels are set)."""
        return bool(self.redis_url or self.redis_sentinels.strip())

    @property
    def public_origins(self) -> frozenset[str]:
        """`public_origin`, normalised as `origin_allowlist` is (empty: not set)."""
        return _origins(self.public_origin)

    @property
    def origin_allowlist(self) -> frozenset[str]:
        """The allowed origins, normalised (lower case, no trailing slash)."""
        return _origins(self.allowed_origins)


def _origins(value: str) -> frozenset[str]:
    """Comma-separated origins, each lower case and without a trailing slash."""
    return frozenset(o.strip().rstrip("/").lower() for o in value.split(",") if o.strip())
