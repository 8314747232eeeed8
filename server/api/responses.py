"""HTTP responses and the one error table (code → status) of API.md section 9."""

from __future__ import annotations

import secrets
import sys
import traceback
from dataclasses import dataclass, field
from typing import Protocol

import orjson

from engine.errors import HarmonyError, InternalError

STATUS: dict[str, int] = {
    "invalid_chord": 400,
    "invalid_key": 400,
    "invalid_request": 400,
    "unauthorized": 401,
    "key_revoked": 401,
    "forbidden_origin": 403,
    "blocked_user_agent": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "payload_too_large": 413,
    "rate_limited": 429,
    "quota_exceeded": 429,
    "busy": 503,
    "unavailable": 503,
    "internal_error": 500,
}

JSON_TYPE = "application/json"


class ClientDisconnected(Exception):
    """The client went away before its request was read: there is no one to answer."""

Headers = list[tuple[str, str]]   # as granian takes them; ASGI: raw_headers()


class RequestHeaders(Protocol):
    """A request's headers as the service reads them, by lower-case name: a ``dict`` (ASGI,
    tests) or granian's own headers object, used as it comes (copying it into a dict cost
    0.58 µs a request, its six lookups 0.23 µs). Of a repeated header, ``get`` gives one."""

    def get(self, key: str, /) -> str | None: ...

    def __contains__(self, key: object, /) -> bool: ...


@dataclass
class Response:
    status: int
    body: bytes
    headers: Headers = field(default_factory=list)
    content_type: str | None = JSON_TYPE  # None: no body, no content-type (a 202)

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """The headers as ASGI sends them (bytes; a value's characters are its bytes)."""
        typed = [] if self.content_type is None else [("content-type", self.content_type)]
        return [(k.encode("latin-1"), v.encode("latin-1"))
                for k, v in (*typed, ("content-length", str(len(self.body))), *self.headers)]


def error_response(error: HarmonyError) -> Response:
    """The error body (exactly the engine's ``to_dict``) with its status and headers."""
    response = Response(STATUS.get(error.code, 500), orjson.dumps(error.to_dict()))
    if error.code == "unauthorized":
        response.headers.append(("www-authenticate", 'Bearer realm="harmony"'))
    elif error.code == "key_revoked":
        response.headers.append(
            ("www-authenticate", 'Bearer realm="harmony", error="invalid_token"'))
    retry = error.details.get("retryAfter")
    if retry is not None:
        response.headers.append(("retry-after", str(retry)))
    return response


def size_text(limit: int) -> str:
    """A body cap as people write it: 64 KiB, 1 MiB."""
    return f"{limit >> 20} MiB" if limit >= 1 << 20 and not limit % (1 << 20) \
        else f"{limit // 1024} KiB"


def internal_error(exc: BaseException, where: str) -> InternalError:
    """A bug met while answering ``where`` (e.g. ``POST /v2/compose``): ONE line on the
    server's stderr - a request id, where, the exception and the line that raised it - and the
    contract's ``internal_error`` carrying the same id (``requestId``), so a user's report
    finds the line. A traceback per request let one client write 140 KB of log per 2 KB call;
    the line that raised is what a traceback's last frame says."""
    request_id = secrets.token_hex(6)
    frames = traceback.extract_tb(exc.__traceback__)
    at = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    text = " ".join(str(exc).split())[:200]
    print(f"harmony: internal error {request_id}: {where}: {type(exc).__name__}: {text}{at}",
          file=sys.stderr)
    return InternalError("internal error", requestId=request_id)
