"""The HTTP API fuzzed from its own OpenAPI document: no input makes it answer 5xx.

Schemathesis reads `/openapi.json` from the app itself and generates requests for every
operation (valid bodies, bodies that break the schema, odd path parameters, strings
with control characters and lone surrogates); each answer must be below 500 and carry
the security headers.

The test drives schemathesis through its documented library API (`as_strategy` under a
plain Hypothesis `@given`), not its pytest plugin: the plugin rewrites pytest's test
items through pytest internals (`Function._nodeid`), which pytest 9.2 removed, and such
a coupling breaks again with the next release of either. The library API depends on
neither pytest nor its internals. It runs against a real server (uvicorn in a thread, memory
store) with the rate limits out of the way, so that a 429 does not hide what a request
would have done; a live server rather than an in-process ASGI client because that client
runs the app's lifespan around every call, and a server shut down after each request
answers 503 to everything.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck
from schemathesis import Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.transport import Response

from schmier.config import Settings
from tests.support import loopback
from tests.support.servers import FAST, RunningServer, start_thread_server


@pytest.fixture(scope="module")
def live() -> Iterator[RunningServer]:
    running = start_thread_server(Settings(**FAST))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def api_schema(live: RunningServer) -> schemathesis.schemas.BaseSchema:
    return schemathesis.openapi.from_url(live.base_url + "/openapi.json")


def security_headers_present(ctx: object, response: Response, case: Case[Any]) -> bool:
    """Every answer, including the refusals the fuzzer provokes, has the headers."""
    headers = {k.lower(): v for k, v in response.headers.items()}
    assert headers.get("x-content-type-options") == ["nosniff"], case.path
    assert "content-security-policy" in headers, case.path
    return True


def test_the_schema_covers_the_api(api_schema: schemathesis.schemas.BaseSchema) -> None:
    """The fuzzing below is only as wide as the document: every API route is in it."""
    paths = set(api_schema.raw_schema["paths"])
    assert {"/api/rooms", "/api/rooms/{code}", "/api/rooms/{code}/join"} <= paths
    assert {"/healthz", "/metrics", "/api/protocol.json", "/api/variants"} <= paths
    assert "/api/version" in paths
    assert {"/api/rooms/{code}/hands", "/api/rooms/{code}/hands/{n}"} <= paths
    assert "/api/rooms/{code}/history" in paths
    assert {"/api/rooms/{code}/hands/{n}/practice", "/api/rooms/{code}/hands/{n}/tables"} <= paths


EXAMPLES = 50
"""Requests generated per operation and generation mode (valid, then schema-breaking)."""


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_request_gets_a_server_error(
    api_schema: schemathesis.schemas.BaseSchema, live: RunningServer, mode: GenerationMode
) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 6
    if mode is GenerationMode.NEGATIVE:
        # Only a body has a schema to break: a path parameter is a plain string, and
        # every string is one (the positive run already sends odd ones).
        operations = [op for op in operations if len(op.body)]
        assert len(operations) >= 2
    for operation in operations:

        @hypothesis.given(case=operation.as_strategy(generation_mode=mode))
        @hypothesis.settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def no_server_error(case: Case[Any]) -> None:
            response = case.call(base_url=live.base_url)
            case.validate_response(response, checks=[not_a_server_error])
            security_headers_present(None, response, case)

        no_server_error()


def test_a_lone_surrogate_is_refused_not_a_crash(live: RunningServer) -> None:
    """The 500 the fuzzer first found: FastAPI echoed the input into a 422 it could not
    encode. Now the 422 names where and why, never the input."""
    with loopback.client(base_url=live.base_url) as client:
        code = client.post("/api/rooms", json={"variant": "schmier6"}).json()["code"]
        for body in (b'{"name": "a\\ud800b"}', b'{"variant": "\\ud800"}', b'{"\\udfff": 1}'):
            answer = client.post(
                f"/api/rooms/{code}/join",
                content=body,
                headers={"content-type": "application/json"},
            )
            assert answer.status_code == 422, answer.text
            assert "ud800" not in answer.text or "\\\\ud800" in answer.text
            assert all("input" not in entry for entry in answer.json()["detail"])
        answer = client.post("/api/rooms", content=b'{"variant": "\\ud800"}')
        assert answer.status_code == 422
