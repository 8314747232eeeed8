"""Errors of the engine and the service: one class per error code of the contract (API.md §9).

The engine raises the first three; the server raises the rest. HTTP statuses live in the
server's error table, not here: the engine knows nothing of transports.
"""

from __future__ import annotations

from typing import Any


class HarmonyError(Exception):
    """Base of every error the engine or the service reports to a user.

    ``details`` are extra fields of the error body (``symbol``, ``index``, ``field``,
    ``retryAfter``), emitted after ``code`` and ``message`` in insertion order.
    """

    code: str = "internal_error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = {k: v for k, v in details.items() if v is not None}

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, **self.details}}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, {self.details!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Whole across a process boundary (a render runs in a worker process): the default
        # pickling would call ``cls(message)`` and lose the details (``field``, ``symbol``).
        return _restore, (type(self), self.args, self.__dict__)


def _restore(cls: type[HarmonyError], args: tuple[Any, ...],
             state: dict[str, Any]) -> HarmonyError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class InvalidChord(HarmonyError):
    code = "invalid_chord"

    def __init__(self, symbol: str, reason: str, *, position: int | None = None,
                 index: int | None = None) -> None:
        where = f" at position {position}" if position is not None else ""
        super().__init__(f"cannot parse chord symbol {symbol!r}{where}: {reason}",
                         symbol=symbol, index=index)
        self.symbol = symbol
        self.reason = reason
        self.position = position

    def at_index(self, index: int) -> InvalidChord:
        """The same error, located at position ``index`` of a progression."""
        return InvalidChord(self.symbol, self.reason, position=self.position, index=index)


class InvalidKey(HarmonyError):
    code = "invalid_key"


class InvalidRequest(HarmonyError):
    code = "invalid_request"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.field = field


class Unauthorized(HarmonyError):
    code = "unauthorized"


class KeyRevoked(HarmonyError):
    code = "key_revoked"


class ForbiddenOrigin(HarmonyError):
    code = "forbidden_origin"


class BlockedUserAgent(HarmonyError):
    code = "blocked_user_agent"


class NotFound(HarmonyError):
    code = "not_found"


class MethodNotAllowed(HarmonyError):
    code = "method_not_allowed"


class PayloadTooLarge(HarmonyError):
    code = "payload_too_large"


class RateLimited(HarmonyError):
    code = "rate_limited"


class QuotaExceeded(HarmonyError):
    code = "quota_exceeded"


class Busy(HarmonyError):
    """A bounded background job (a render) could not start: its queue is full."""

    code = "busy"


class Unavailable(HarmonyError):
    """The store (or another shared component) could not answer within its short timeout: a
    503 with ``retryAfter``, never a stalled request nor a bare 500."""

    code = "unavailable"


class AudioUnavailable(HarmonyError):
    """Tool-only (stdio): nothing on this machine can play sound; names the file written."""

    code = "audio_unavailable"


class InternalError(HarmonyError):
    code = "internal_error"


ERROR_CLASSES: dict[str, type[HarmonyError]] = {
    cls.code: cls
    for cls in (InvalidChord, InvalidKey, InvalidRequest, Unauthorized, KeyRevoked,
                ForbiddenOrigin, BlockedUserAgent, NotFound, MethodNotAllowed,
                PayloadTooLarge, RateLimited, QuotaExceeded, Busy, Unavailable,
                AudioUnavailable, InternalError)
}
