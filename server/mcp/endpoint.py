"""The hosted MCP route, ``POST /mcp``: stateless JSON-RPC 2.0 over HTTP, hand-written on orjson.

Why not the SDK's streamable-HTTP session manager: it builds a transport, memory streams and a
task group for every POST, about 1.3-2.2 ms of CPU per request (~600 req/s on two cores). This
handler decodes once, dispatches on the method and splices pre-encoded bytes: tens of µs. A
``tools/call`` whose body differs from one seen before only in its integer id (a client numbers
its requests) is not decoded or checked again (``server.mcp.kept``, a mixin of the endpoint): a
WSGI call with numbered ids 108,076 -> 94,925 instructions (``bench/run_instructions.py``;
REST's 80,221).

Both eras of the protocol that the installed ``mcp`` SDK client speaks are served:

- handshake era (2024-11-05 .. 2025-11-25): ``initialize``, then plain requests; the version is
  echoed when known, else the newest handshake version is offered; a JSON-RPC batch is answered
  only where 2025-03-26 allowed it (that version, or no version header), else refused with 400;
- per-request era (2026-07-28): ``server/discover`` and requests carrying the version, client
  info and capabilities in ``params._meta`` and mirrored in routing headers (``_envelope``).

The handler knows nothing of ASGI: ``McpEndpoint.handle(method, headers, body, gate, throttle,
context)`` returns a ``Reply`` (``server.mcp.jsonrpc``: a ``server.api.Response`` with the
JSON-RPC body) and the app writes it; its two halves, ``answer`` (no waiting) and ``batch`` (a
coroutine), let the app await only a batch (a coroutine and a ``functools.partial`` less per
call: 132,056 -> 129,946 instructions a ``tools/call``, ``bench/run_instructions.py``). Keys,
limits, quota and the request log come in through the service's one ``Gate``
(``server.mcp.gate``; ``None`` = no auth, the ``--no-auth`` mode), called with the caller's ``context`` of the exchange, so REST and
MCP share one implementation. Only ``mcp_types`` is imported at run time: the ``mcp`` package
itself (client, server, starlette, httpx2) costs over a second of start-up per worker and is not
needed here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from functools import lru_cache
from typing import Any

import orjson
from mcp_types import SERVER_INFO_META_KEY
from mcp_types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)

from engine.errors import HarmonyError, InvalidChord, MethodNotAllowed
from server.api import STATUS, RequestHeaders
from server.mcp.gate import Admitted, Gate, Throttle
from server.mcp.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    JSON,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    Reply,
    RpcError,
    error_body,
    result_body,
    rpc_reply,
    service_reply,
)
from server.mcp.kept import KEPT_BODY, KEPT_RESULT, KeptCalls
from server.mcp.requests import MODERN_STATUS, check_request, is_request
from server.mcp.tools import McpTool, error_text, result_text, tool_error, tool_table

# API.md 8: the hosted server's name and version as the original service reported them (the
# package's own version is /health's and the stdio servers').
SERVER_INFO = {"name": "harmony", "version": "0.4.0"}
SUPPORTED_VERSIONS: tuple[str, ...] = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
CAPABILITIES = {"tools": {"listChanged": False}}

MAX_BODY = 64 * 1024
# The one version whose clients may send a JSON-RPC batch (2025-06-18 removed batches). A POST
# without MCP-Protocol-Version is taken for it, as the transport spec asks of servers.
BATCH_VERSION = "2025-03-26"
# At most this many messages in one batch: its elements run one after the other in one worker,
# so a longer one is refused whole (-32600, HTTP 400) before any of it runs.
MAX_BATCH = 16

class McpEndpoint(KeptCalls):
    """``POST /mcp``. Build once per process; ``handle`` is safe to call concurrently."""

    def __init__(self, tools: Mapping[str, McpTool] | None = None) -> None:
        self.tools = dict(tool_table() if tools is None else tools)
        listing = [t.descriptor for t in self.tools.values()]
        self._list_legacy = orjson.dumps({"tools": listing})
        self._list_modern = orjson.dumps({"tools": listing, "ttlMs": 0, "cacheScope": "public",
                                          "resultType": "complete", "_meta": _STAMP})
        self._methods: dict[str, Callable[[dict[str, Any], bool], bytes]] = {
            "initialize": self._initialize, "server/discover": self._discover,
            "ping": self._ping, "tools/list": self._tools_list,
        }
        self._kept = {}  # the kept calls (``KeptCalls``)

    async def handle(self, method: str, headers: RequestHeaders, body: bytes,
                     gate: Gate | None = None, throttle: Throttle | None = None,
                     context: Any = None) -> Reply:
        """One HTTP exchange. ``headers`` are looked up by lower-case name; ``context`` goes to
        each of ``gate``'s calls."""
        answer = self.answer(method, headers, body, gate, context)
        if isinstance(answer, list):
            return await self.batch(answer, headers, gate, throttle, context)
        return answer if isinstance(answer, Reply) else await answer

    def answer(self, method: str, headers: RequestHeaders, body: bytes,
               gate: Gate | None = None, context: Any = None
               ) -> Reply | list[Any] | Awaitable[Reply]:
        """``handle`` without waiting: the ``Reply``, or for a JSON-RPC batch (whose elements
        yield the worker between them) its messages, to pass to ``batch``; or, for a tool call
        whose gate answers later (``Gate.admit``), the reply to await."""
        if method != "POST":
            return Reply(405, error_body(
                None, METHOD_NOT_FOUND, "method not allowed: /mcp accepts POST only",
                {"code": "method_not_allowed", "message": "use POST"}), [("allow", "POST"), JSON],
                error=MethodNotAllowed("/mcp accepts POST only"))
        if len(body) > MAX_BODY:
            return rpc_reply(None, PARSE_ERROR, "request body is over 64 KiB", 413)
        version = headers.get("mcp-protocol-version")
        if version is not None and version not in SUPPORTED_VERSIONS:
            return rpc_reply(None, UNSUPPORTED_PROTOCOL_VERSION,
                              f"unsupported MCP-Protocol-Version {version!r}", 400,
                              {"supported": list(SUPPORTED_VERSIONS), "requested": version})
        if len(body) <= KEPT_BODY:
            kept = self._kept_call(body, version, headers, gate, context)
            if kept is not None:
                return kept
        try:
            message = orjson.loads(body)
        except orjson.JSONDecodeError:
            return rpc_reply(None, PARSE_ERROR, "parse error: the body is not JSON", 400)
        if isinstance(message, list):
            if version in (None, BATCH_VERSION):
                return message
            return rpc_reply(None, INVALID_REQUEST,
                              f"invalid request: JSON-RPC batches were removed after protocol "
                              f"{BATCH_VERSION}; send one message a request (this one says "
                              f"{version})", 400)
        return self._message(message, headers, gate, context, version)

    # Below, everything but a batch (which yields between its elements) runs without waiting:
    # plain calls, no coroutine per layer.

    def _message(self, message: Any, headers: RequestHeaders, gate: Gate | None,
                 context: Any, version: str | None) -> Reply | Awaitable[Reply]:
        """One JSON-RPC message: a notification or response (202), else a request, checked
        (``server.mcp.requests.check_request``) and answered; ``version`` is the
        MCP-Protocol-Version header."""
        request = check_request(message, headers, version)
        if isinstance(request, Reply):
            return request
        rid, name, params, modern = request
        try:
            if name == "tools/call":  # the one method that runs a tool: it answers itself
                tool, encoded = self._tool_arguments(params)
                return self._tools_call(rid, tool, encoded, modern, headers, gate, context)[0]
            handler = self._methods.get(name)
            if handler is None or (modern and name == "initialize"):
                raise RpcError(METHOD_NOT_FOUND, f"method not found: {name}")
            result = handler(params, modern)
        except RpcError as e:
            status = MODERN_STATUS.get(e.code, 200) if modern else 200
            return rpc_reply(rid, e.code, e.message, status, e.data)
        return Reply(200, result_body(rid, result), [JSON])

    async def batch(self, messages: list[Any], headers: RequestHeaders,
                    gate: Gate | None, throttle: Throttle | None, context: Any = None
                    ) -> Reply:
        """A JSON-RPC batch of at most ``MAX_BATCH`` messages: each answered as if posted alone,
        in order, the answers in one array; notifications and responses get none (only those:
        202). Each element after the first counts against ``throttle`` as a request of its own,
        and the worker is yielded between elements, so it answers other requests meanwhile.
        The status is 200, a refused call's 401/429 is its element's error (its ``data`` is the
        error object); the headers are those of the elements, the last one of a name winning
        (the quota as it stands after the batch)."""
        if not messages:
            return rpc_reply(None, INVALID_REQUEST, "invalid request: an empty batch", 400)
        if len(messages) > MAX_BATCH:
            return rpc_reply(None, INVALID_REQUEST, f"invalid request: batch too large (at most "
                              f"{MAX_BATCH} messages)", 400, {"maxBatch": MAX_BATCH})
        answers: list[bytes] = []
        merged: dict[str, str] = {}
        for index, message in enumerate(messages):
            if index:
                await asyncio.sleep(0)
            element = self._element(message, headers, gate, context,
                                    throttle if index else None)
            reply = element if isinstance(element, Reply) else await element
            if reply.status != 202:
                answers.append(reply.body)
                merged.update(reply.headers)
        if not answers:
            return Reply(202)
        merged[JSON[0]] = JSON[1]
        return Reply(200, b"[" + b",".join(answers) + b"]", list(merged.items()))

    def _element(self, message: Any, headers: RequestHeaders, gate: Gate | None,
                 context: Any, throttle: Throttle | None) -> Reply | Awaitable[Reply]:
        """One message of a batch, counted by ``throttle`` first. When it refuses, a valid
        request gets the refusal as its error, under its id; anything else runs nothing anyway,
        so it is answered as without the throttle: a notification or response is dropped (202),
        an invalid message gets its -32600."""
        if throttle is not None:
            try:
                throttle()
            except HarmonyError as refused:
                if is_request(message):
                    return service_reply(message["id"], refused, [])
        return self._message(message, headers, gate, context,
                             headers.get("mcp-protocol-version"))

    # -- methods without a tool: each returns the ``result`` as JSON bytes ---------------------

    def _initialize(self, params: dict[str, Any], modern: bool) -> bytes:
        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            raise RpcError(INVALID_PARAMS, "invalid params: protocolVersion must be a string")
        version = asked if asked in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
        return orjson.dumps({"protocolVersion": version, "capabilities": CAPABILITIES,
                             "serverInfo": SERVER_INFO, "instructions": _INSTRUCTIONS})

    def _discover(self, params: dict[str, Any], modern: bool) -> bytes:
        return _DISCOVER

    def _ping(self, params: dict[str, Any], modern: bool) -> bytes:
        return _MODERN_EMPTY if modern else b"{}"

    def _tools_list(self, params: dict[str, Any], modern: bool) -> bytes:
        return self._list_modern if modern else self._list_legacy

    # -- tools/call ----------------------------------------------------------------------------

    def _tool_arguments(self, params: dict[str, Any]) -> tuple[McpTool, bytes]:
        """The tool a ``tools/call`` names and its arguments encoded (the key of REST's kept
        answers); -32602 for an unknown tool or arguments not an object."""
        name, arguments = params.get("name"), params.get("arguments")
        tool = self.tools.get(name) if type(name) is str else None
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"unknown tool: {name!r}",
                            {"tools": list(self.tools)})
        if arguments is None:
            arguments = {}
        elif type(arguments) is not dict:
            raise RpcError(INVALID_PARAMS, "invalid params: arguments must be an object")
        return tool, orjson.dumps(arguments)

    def _tools_call(self, rid: int | str, tool: McpTool, encoded: bytes, modern: bool,
                    headers: RequestHeaders, gate: Gate | None, context: Any,
                    plan: tuple[Any, dict[str, Any]] | None = None
                    ) -> tuple[Reply | Awaitable[Reply], bytes | None]:
        """Run a tool (its name and arguments checked before, by ``_tool_arguments``: -32602
        spends nothing): the gate's admission, the call, the gate's settlement (quota spent on
        success only, one log row either way) and the reply with the gate's headers; a refusal
        (401, 429) is an HTTP-level answer. Returns the reply and, for a call answered without
        an error, its JSON-RPC result (what a kept call may keep). One function for the route's
        common path: with ``_message`` taking in ``_request`` and no ``_Request`` object, it cut
        a WSGI ``tools/call`` from 115,065 to 108,137 instructions
        (``bench/run_instructions.py``). A gate that answers later (``Gate.admit``) makes the
        reply a coroutine (``_tools_call_later``), which keeps a planned call's result itself
        (``plan``: its kept key and params)."""
        started = time.perf_counter()
        if gate is None:
            return self._run_tool(started, None, None, rid, tool, encoded, modern, gate, context)
        admitted = gate.admit(context, headers)
        if not isinstance(admitted, tuple):   # the limit check in flight
            return self._tools_call_later(admitted, started, rid, tool, encoded, modern, gate,
                                          context, plan), None
        return self._run_tool(started, admitted[0], admitted[1], rid, tool, encoded, modern,
                              gate, context)

    async def _tools_call_later(self, admitted: Awaitable[Admitted], started: float,
                                rid: int | str, tool: McpTool, encoded: bytes, modern: bool,
                                gate: Gate, context: Any,
                                plan: tuple[Any, dict[str, Any]] | None) -> Reply:
        ticket, error = await admitted
        reply, result = self._run_tool(started, ticket, error, rid, tool, encoded, modern,
                                       gate, context)
        if plan is not None:
            self._keep(plan[0], tool, encoded, modern, plan[1], result)
        return reply

    def _run_tool(self, started: float, ticket: Any, error: HarmonyError | None,
                  rid: int | str, tool: McpTool, encoded: bytes, modern: bool,
                  gate: Gate | None, context: Any) -> tuple[Reply, bytes | None]:
        """A tool call once admitted (or refused): its run, settlement and reply."""
        refused, payload, status = error, b"", 499  # 499 stands until the call has an outcome
        try:
            if refused is None:
                try:
                    payload = tool.result(encoded)
                except Exception as exc:  # the tool's error is its result
                    error = tool_error(exc)
                    payload = orjson.dumps(error.to_dict())
            status = 200 if error is None else STATUS.get(error.code, 500)
        finally:  # every admitted call is settled: quota spent on success only, one log row
            extra = [] if gate is None else gate.settle(
                context, ticket, tool.operation, status, None if error is None else error.code,
                started, encoded, error.symbol if isinstance(error, InvalidChord) else None)
        if refused is not None:
            return service_reply(rid, refused, extra), None
        result = _call_result(payload, error is not None, modern)
        return Reply(200, result_body(rid, result), [JSON, *extra]), \
            None if error is not None else result


def _call_result(payload: bytes, is_error: bool, modern: bool) -> bytes:
    """The ``tools/call`` result around ``payload``. A kept answer comes back as the same bytes
    object, so its result is kept too (escaping 750 bytes for the text block cost 1.8 µs, and
    the result is 2.4 times the payload's bytes to copy)."""
    if len(payload) <= KEPT_RESULT:
        return _kept_result(payload, is_error, modern)
    return _result(payload, is_error, modern)


def _result(payload: bytes, is_error: bool, modern: bool) -> bytes:
    """A success: structuredContent reuses the encoded bytes, the text block is the same JSON
    as a string (abbreviated past 8 KB, ``result_text``). An error: its text only
    (``error_text``), no structuredContent, which would not match the outputSchema."""
    tail = _MODERN_CALL_TAIL if modern else b"}"
    if is_error:
        return b"".join((b'{"content":[{"type":"text","text":',
                         orjson.dumps(error_text(orjson.loads(payload))),
                         b'}],"isError":true', tail))
    return b"".join((b'{"content":[{"type":"text","text":', orjson.dumps(result_text(payload)),
                     b'}],"structuredContent":', payload, b',"isError":false', tail))


_kept_result = lru_cache(maxsize=4096)(_result)


_INSTRUCTIONS = ("Harmony engine: chord analysis, chord tones, voicings, reharmonisation and "
                 "band arrangements, computed deterministically from chord symbols and keys.")
_STAMP = {SERVER_INFO_META_KEY: SERVER_INFO}
_DISCOVER = orjson.dumps({"supportedVersions": list(SUPPORTED_VERSIONS),
                          "capabilities": CAPABILITIES, "instructions": _INSTRUCTIONS,
                          "ttlMs": 0, "cacheScope": "public", "resultType": "complete",
                          "_meta": _STAMP})
_MODERN_EMPTY = orjson.dumps({"resultType": "complete", "_meta": _STAMP})
_MODERN_CALL_TAIL = b',"resultType":"complete","_meta":' + orjson.dumps(_STAMP) + b"}"
