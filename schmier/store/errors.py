"""redis-py's failures as the store's errors: an outage, or a bug.

Callers of the store know `StoreError` and its kind `StoreUnavailable` only, not
redis-py's exception tree (nor that a refused socket surfaces as `OSError`). Whether a
failure means "Redis cannot be reached or cannot serve now" decides who hears of it:
an outage is reported to the store's health, which logs it once (`health.py`); any
other failure is a bug and is logged where it happens, with its traceback.
"""

from __future__ import annotations

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from schmier.store.base import StoreError, StoreUnavailable
from schmier.store.resp import OUTAGE_REPLIES


def classify(what: str, exc: BaseException) -> StoreError:
    """The store's error for a client-side failure: `StoreUnavailable` when Redis could
    not be reached or cannot serve now, a plain `StoreError` otherwise (a bug)."""
    if isinstance(exc, StoreError):
        return exc
    message = f"redis {what} failed: {exc}"
    if isinstance(exc, RedisConnectionError | RedisTimeoutError | OSError):
        return StoreUnavailable(message)
    if isinstance(exc, ResponseError) and str(exc).startswith(OUTAGE_REPLIES):
        return StoreUnavailable(message)
    return StoreError(message)
