"""A JSON-RPC message checked as a request of ``POST /mcp``, in either era of the protocol
(``server.mcp.endpoint``): its id, method and params, and in the per-request era (2026-07-28)
the envelope in ``params._meta`` and the routing headers that mirror it."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from mcp_types import CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from server.api import RequestHeaders
from server.mcp.jsonrpc import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    Reply,
    rpc_reply,
)

# Per-request era: protocol errors carry an HTTP status (the SDK's table); handshake era answers
# them with 200 except for bodies that are not JSON-RPC at all.
MODERN_STATUS = {PARSE_ERROR: 400, INVALID_REQUEST: 400, INVALID_PARAMS: 400, HEADER_MISMATCH: 400,
                 UNSUPPORTED_PROTOCOL_VERSION: 400, METHOD_NOT_FOUND: 404}
ID_TYPES = (int, str)  # a request id's, as orjson makes them (``type(True)`` is bool)


def check_request(message: Any, headers: RequestHeaders | None, version: str | None
                  ) -> Reply | tuple[int | str, str, dict[str, Any], bool]:
    """A JSON-RPC message checked as a request: ``(id, method, params, modern)``, or the
    ``Reply`` for anything else (202 for a notification or response, else its error).
    ``headers`` None skips the routing headers' mirror check (a kept call's plan: checked per
    call)."""
    if type(message) is not dict or message.get("jsonrpc") != "2.0":
        return rpc_reply(None, INVALID_REQUEST,
                         "invalid request: expected one JSON-RPC 2.0 object", 400)
    if "id" not in message or "method" not in message:  # not the common case, a request
        if is_notification_or_response(message):
            return Reply(202)  # nothing to answer, so no body and no content-type
        if "id" not in message:
            return rpc_reply(None, INVALID_REQUEST, "invalid request: no method", 400)
    # Types are checked with ``type(...) is``: orjson makes exact ``dict``, ``str`` and ``int``
    # objects, a bool is not an ``int`` that way, and ``isinstance(x, int | str)`` built a
    # union every call.
    rid, name = message["id"], message.get("method")
    if type(rid) not in ID_TYPES:
        return rpc_reply(None, INVALID_REQUEST, "invalid request: id must be a string or "
                         "an integer", 400)
    if type(name) is not str:
        return rpc_reply(rid, INVALID_REQUEST, "invalid request: method must be a string", 400)
    modern = version in MODERN_PROTOCOL_VERSIONS
    params = message.get("params")
    if params is None:
        params = {}
    elif type(params) is not dict:
        return rpc_reply(rid, INVALID_PARAMS, "invalid params: params must be an object",
                         400 if modern else 200)
    if not modern:
        meta = params.get("_meta")
        modern = type(meta) is dict and PROTOCOL_VERSION_META_KEY in meta
    if modern or name == "server/discover":
        rejection = envelope(name, params, headers)
        if rejection is not None:
            code, text, data = rejection
            return rpc_reply(rid, code, text, MODERN_STATUS[code], data)
        modern = True
    return rid, name, params, modern


def is_notification_or_response(message: dict[str, Any]) -> bool:
    """A notification (a method, no id) or a response (an id and a result or an error, no
    method): the transport answers both 202 Accepted, with no body. (This server sends no
    requests, so a response has nothing to complete here; it is accepted all the same.)"""
    if "method" in message:
        return "id" not in message and isinstance(message["method"], str)
    return "id" in message and ("result" in message) != ("error" in message)


def is_request(message: Any) -> bool:
    """A JSON-RPC 2.0 request that ``_message`` would run: a method and a valid id."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return False
    rid = message.get("id")
    return type(message.get("method")) is str and type(rid) in ID_TYPES


def envelope(method: str, params: dict[str, Any], headers: RequestHeaders | None
              ) -> tuple[int, str, Any] | None:
    """The 2026-07-28 per-request checks, in the SDK's order (``mcp.shared.inbound``): the
    envelope in ``params._meta``, the routing headers mirroring the body (not with ``headers``
    None), a served version. Returns ``(code, message, data)`` of the first failure, ``None``
    when all pass."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or PROTOCOL_VERSION_META_KEY not in meta or \
            CLIENT_CAPABILITIES_META_KEY not in meta:
        return (INVALID_PARAMS, "params._meta must carry the protocol version and the client "
                "capabilities", None)
    version = meta[PROTOCOL_VERSION_META_KEY]
    if headers is not None:
        if headers.get("mcp-protocol-version") != version or headers.get("mcp-method") != method:
            return (HEADER_MISMATCH, "MCP-Protocol-Version or Mcp-Method header does not match",
                    None)
        name = params.get("name") if method == "tools/call" else None
        if name is not None and header_value(headers.get("mcp-name")) != name:
            return HEADER_MISMATCH, "Mcp-Name header does not match the tool name", None
    if version not in MODERN_PROTOCOL_VERSIONS:
        return (UNSUPPORTED_PROTOCOL_VERSION, "unsupported protocol version",
                {"supported": list(MODERN_PROTOCOL_VERSIONS), "requested": version})
    return None


def header_value(value: str | None) -> str | None:
    """A header value, unwrapped from the ``=?base64?...?=`` form clients use for non-ASCII."""
    if value is None or not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
