"""The protocol models: parsing of client frames, and the documentation that names them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from schmier.protocol import (
    CLIENT_TYPES,
    ERROR_CODES,
    SERVER_TYPES,
    Call,
    CloseCode,
    Discard,
    JoinRoom,
    View,
    clean_name,
    parse_client_frame,
    protocol_schema,
)

DOC = (Path(__file__).resolve().parents[1] / "docs" / "protocol.md").read_text()


def test_every_client_frame_parses() -> None:
    assert set(CLIENT_TYPES) == set(protocol_schema()["client_frames"]["discriminator"]["mapping"])
    assert parse_client_frame('{"type": "call", "card": null}') == Call(type="call", card=None)
    frame = parse_client_frame('{"type": "discard", "cards": ["AS", "X1"]}')
    assert isinstance(frame, Discard) and frame.cards == ["AS", "X1"]
    for text in (
        '{"type": "hello", "token": "t"}',
        '{"type": "hello"}',
        '{"type": "rematch"}',
        '{"type": "leave"}',
        '{"type": "trump", "suit": "H"}',
        '{"type": "entropy", "value": "0123456789abcdef"}',
        '{"type": "entropy", "value": "' + "f" * 64 + '"}',
    ):
        assert parse_client_frame(text).type in CLIENT_TYPES


@pytest.mark.parametrize(
    "text",
    [
        "", "nope", "[]", "1", "{}", '{"type": 3}', '{"type": "bid", "amount": 3.5}',
        '{"type": "bid", "amount": true}', '{"type": "call"}', '{"type": "trump", "suit": "s"}',
        '{"type": "play", "card": "1S"}', '{"type": "chat", "text": ""}',
        '{"type": "discard", "cards": "AS"}', '{"type": "start", "now": true}',
        '{"type": "entropy"}', '{"type": "entropy", "value": 12345678901234567890}',
        '{"type": "entropy", "value": "0123456789abcde"}',
        '{"type": "entropy", "value": "0123456789ABCDEF"}',
        '{"type": "entropy", "value": "' + "a" * 65 + '"}',
        '{"type": "entropy", "value": "0123456789abcdef\\n"}',
        '{"type": "entropy", "value": "0123456789abcdeg"}',
    ],
)  # fmt: skip
def test_malformed_frames_are_refused(text: str) -> None:
    with pytest.raises(ValidationError):
        parse_client_frame(text)


def test_names() -> None:
    assert clean_name("  Ann \t\n Lee ") == "Ann Lee"
    assert clean_name("Zoë\u200d") == "Zoë"
    for bad in ("", " ", "\x00\x1b", "a" * 25):
        with pytest.raises(ValueError):
            clean_name(bad)
    with pytest.raises(ValidationError):
        JoinRoom.model_validate({"name": "\x07"})


def test_doc_names_every_frame_code_and_field() -> None:
    for kind in CLIENT_TYPES + SERVER_TYPES:
        assert f'"type": "{kind}"' in DOC, kind
    for code in ERROR_CODES:
        assert re.search(rf"^\| `{code}` \|", DOC, re.M), code
    for close in CloseCode:
        assert f"| `{int(close)}` |" in DOC, close
    for field in View.model_fields:
        assert f"`{field}`" in DOC, field
    paths = ["POST /api/rooms", "GET /api/rooms/{code}", "POST /api/rooms/{code}/join"]
    paths += ["GET /healthz", "GET /livez", "GET /readyz", "GET /metrics"]
    paths += ["GET /api/protocol.json", "/ws/{code}"]
    for path in paths:
        assert path in DOC, path
