"""JSON-RPC 2.0 bodies and replies of the hosted MCP route (``server.mcp``).

``Reply`` is one HTTP answer of ``POST /mcp``; ``error`` is the contract's error (API.md §9) of a
JSON-RPC failure answered with an HTTP error status, which the app writes into the request log,
as REST's log would carry it for the same refusal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from engine.errors import HarmonyError, InvalidRequest, NotFound, PayloadTooLarge
from server.api import Response, error_response

# JSON-RPC 2.0 codes, and the MCP ones for the per-request era.
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION = -32020, -32022
# Service errors on the HTTP layer (key, limits) travel as JSON-RPC server errors; the HTTP
# status and the contract's error object (in ``data``) are what clients act on.
SERVICE_ERROR = -32001

JSON = ("content-type", "application/json")

# HTTP status of a JSON-RPC failure -> its contract error: a body that is not JSON-RPC, bad
# params or routing headers (400), a method not found in the per-request era (404), a body over
# the limit (413). A failure answered 200 (the handshake era's) is an answer, not an error.
CONTRACT_ERROR: dict[int, type[HarmonyError]] = {
    400: InvalidRequest, 404: NotFound, 413: PayloadTooLarge,
}


@dataclass
class Reply(Response):
    """A ``Response`` (the app writes it as it is: no second object a call) whose headers carry
    its own content type (none on a 202), and the contract's error for the request log."""

    body: bytes = b""
    content_type: str | None = None
    error: HarmonyError | None = None   # for the request log: the contract's error, if any


RESULT_HEAD = b'{"jsonrpc":"2.0","id":'  # a result's body: this, the id, result_tail(result)
_RESULT_KEY = b',"result":'


def result_body(rid: int | str, result: bytes) -> bytes:
    # an integer id (bools never get here) is its digits: no encoder call
    encoded = b"%d" % rid if type(rid) is int else orjson.dumps(rid)
    return b"".join((RESULT_HEAD, encoded, _RESULT_KEY, result, b"}"))


def result_tail(result: bytes) -> bytes:
    """What follows the id in ``result_body``."""
    return b"".join((_RESULT_KEY, result, b"}"))


def error_body(rid: int | str | None, code: int, message: str, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "error": error})


def rpc_reply(rid: int | str | None, code: int, message: str, status: int,
              data: Any = None) -> Reply:
    contract = CONTRACT_ERROR.get(status)
    return Reply(status, error_body(rid, code, message, data), [JSON],
                 error=contract(message) if contract else None)


def service_reply(rid: int | str | None, e: HarmonyError,
                  extra: Iterable[tuple[str, str]]) -> Reply:
    """A key or limit refusal: REST's status and headers (``WWW-Authenticate``,
    ``Retry-After``) from the one error table, the error object inside a JSON-RPC error. (The
    gate logged it: ``error`` stays empty.)"""
    rest = error_response(e)
    return Reply(rest.status, error_body(rid, SERVICE_ERROR, e.message, e.to_dict()["error"]),
                 [JSON, *rest.headers, *extra])


class RpcError(Exception):
    """A JSON-RPC error a method raises, answered under the request's id (``code``,
    ``message``, ``data``)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data
