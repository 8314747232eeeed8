"""The hosted MCP route, ``POST /mcp``: stateless JSON-RPC 2.0 over HTTP, hand-written on orjson.

Why not the SDK's streamable-HTTP session manager: it builds a transport, memory streams and a
task group for every POST, about 1.3-2.2 ms of CPU per request (~600 req/s on two cores). This
handler decodes once, dispatches on the method and splices pre-encoded bytes: tens of µs. A
``tools/call`` whose body differs from one seen before only in its integer id (a client numbers
its requests) is not decoded or checked again: its plan is kept by the body's bytes around the
id (``_kept_call``, the counterpart of REST's kept answers), and where REST keeps the tool's
answers its result is kept with it (``_kept_answer``): a WSGI call with numbered ids 108,076 ->
94,925 instructions (``bench/run_instructions.py``; REST's 80,221).

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
limits, quota and the request log come in through the service's one ``Gate`` (``None`` = no
auth, the ``--no-auth`` mode), called with the caller's ``context`` of the exchange, so REST and
MCP share one implementation. Only ``mcp_types`` is imported at run time: the ``mcp`` package
itself (client, server, starlette, httpx2) costs over a second of start-up per worker and is not
needed here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from functools import lru_cache
from typing import Any, Protocol

import orjson
from mcp_types import SERVER_INFO_META_KEY
from mcp_types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)

from engine.errors import HarmonyError, InvalidChord, MethodNotAllowed
from server.api import STATUS, Headers, RequestHeaders
from server.mcp.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    JSON,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RESULT_HEAD,
    UNSUPPORTED_PROTOCOL_VERSION,
    Reply,
    error_body,
    result_body,
    result_tail,
    rpc_reply,
    service_reply,
)
from server.mcp.requests import MODERN_STATUS, check_request, envelope, is_request
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

Admitted = tuple[Any, HarmonyError | None]   # a gate's ticket and its refusal, if any


class Gate(Protocol):
    """The service's keys, limits, quota and request log, as seen by the MCP route. One for the
    service; ``context`` is the exchange's own (what the caller passed to ``handle``/``answer``:
    the app's request context), so no gate object is made per request."""

    def admit(self, context: Any, headers: RequestHeaders) -> Admitted | Awaitable[Admitted]:
        """Check the bearer key and the limits of a tool call: ``(ticket, None)`` to run it,
        ``(ticket, error)`` to refuse it (401, 429). The ticket goes to ``settle`` either way.
        On an event loop with limits in Redis, an awaitable of that pair (the check in
        flight, pipelined with the loop's other checks): the call then answers by a
        coroutine."""

    def settle(self, context: Any, ticket: Any, operation: str, status: int, error: str | None,
               started: float, body: bytes, symbol: str | None = None) -> Headers:
        """Log the call (surface ``mcp``; ``symbol``: a chord that failed to parse), spend quota
        when ``status`` is 2xx; return the quota and rate-limit headers for the response. (The
        endpoint passes the arguments in this order, positionally: a call with six keywords
        cost ~200 instructions more.)"""


# Counts one more request against the flood throttle (each batch element after the first: the
# HTTP request itself was counted); raises its HarmonyError (429) to refuse the element.
Throttle = Callable[[], None]


class _RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class McpEndpoint:
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
        # kept calls, by (version header, body before the id, body after it): a plan, False
        # (seen once), True (not a call that can be kept)
        self._kept: dict[tuple[str | None, bytes, bytes], _Plan | bool] = {}

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
        if len(body) <= _KEPT_BODY:
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
                raise _RpcError(METHOD_NOT_FOUND, f"method not found: {name}")
            result = handler(params, modern)
        except _RpcError as e:
            status = MODERN_STATUS.get(e.code, 200) if modern else 200
            return rpc_reply(rid, e.code, e.message, status, e.data)
        return Reply(200, result_body(rid, result), [JSON])

    # -- kept calls: a tools/call seen before, but for its id ----------------------------------

    def _kept_call(self, body: bytes, version: str | None, headers: RequestHeaders,
                   gate: Gate | None, context: Any) -> Reply | Awaitable[Reply] | None:
        """The answer of a ``tools/call`` whose body, but for its integer id, was checked
        before (``_plan``), without decoding or checking it again; ``None`` for any other body,
        which takes the full path. The counterpart of REST's kept answers, keyed by the body
        bytes: an MCP client numbers its requests, so the same call never has the same body.
        A body is only remembered the first time (the full path answers it), and planned the
        second: a call never repeated pays for no plan (planning every body cost a call seen
        once ~2 µs in process; remembering it costs ~0.7 µs)."""
        if body.startswith(_ID_FIRST):  # {"jsonrpc":"2.0","id":7,"method":"tools/call",...
            end = body.find(b",", _AFTER_ID_FIRST)
            if end < 0 or not body.startswith(_CALL_AFTER_ID, end):
                return None  # tools/list, ping, ...: never kept
            digits = body[_AFTER_ID_FIRST:end]
            key = (version, _ID_FIRST, body[end:])
        elif body.startswith(_CALL_FIRST) and body.endswith(_ID_LAST_END):  # ...,"id":7}
            start = body.rfind(_ID_LAST)
            if start < 0:
                return None
            digits = body[start + _ID_LAST_LEN:-1]
            key = (version, body[:start + _ID_LAST_LEN], _ID_LAST_END)
        else:
            return None
        if not digits.isdigit() or len(digits) > 15 or (digits[0] == 48 and len(digits) > 1):
            return None  # not a JSON integer as a kept call's id is written (no sign, no 0s)
        kept = self._kept
        plan = kept.get(key)
        if plan is None:  # the first time: remembered, answered by the full path
            if len(kept) >= _KEPT_CALLS:
                del kept[next(iter(kept))]  # bounded: the oldest remembered goes
            kept[key] = False
            return None
        if plan is False:  # the second time: planned (True: not a call that can be kept)
            plan = kept[key] = self._plan(version, key[1], key[2]) or True
        if isinstance(plan, bool):
            return None
        tool, encoded, modern, params, tail = plan
        if modern and envelope("tools/call", params, headers) is not None:
            return None  # the routing headers do not mirror the body: the full path says so
        if tail is not None:
            return self._kept_answer(digits, tool, encoded, tail, headers, gate, context)
        reply, result = self._tools_call(int(digits), tool, encoded, modern, headers, gate,
                                         context, (key, params))
        self._keep(key, tool, encoded, modern, params, result)
        return reply

    def _keep(self, key: tuple[str | None, bytes, bytes], tool: McpTool, encoded: bytes,
              modern: bool, params: dict[str, Any], result: bytes | None) -> None:
        """Keep a planned call's result with its plan (a tool whose answers REST keeps,
        answered without an error)."""
        if result is not None and tool.kept and len(result) <= _KEPT_RESULT:
            self._kept[key] = (tool, encoded, modern, params, result_tail(result))

    def _kept_answer(self, digits: bytes, tool: McpTool, encoded: bytes, tail: bytes,
                     headers: RequestHeaders, gate: Gate | None, context: Any
                     ) -> Reply | Awaitable[Reply]:
        """A kept call whose result is kept too: a tool whose REST answers are kept (the
        engine gives the same bytes for the same arguments, as those rely on), answered before
        without an error. The gate admits and settles it as ``_tools_call`` does a success or a
        refusal; no tool runs (a WSGI call 101,512 -> 93,792 instructions)."""
        if gate is None:
            return Reply(200, RESULT_HEAD + digits + tail, [JSON])
        started = time.perf_counter()
        admitted = gate.admit(context, headers)
        if not isinstance(admitted, tuple):   # the limit check in flight
            return self._kept_answer_later(admitted, started, digits, tool, encoded, tail,
                                           gate, context)
        return self._kept_settled(admitted, started, digits, tool, encoded, tail, gate,
                                  context)

    async def _kept_answer_later(self, admitted: Awaitable[Admitted], started: float,
                                 digits: bytes, tool: McpTool, encoded: bytes, tail: bytes,
                                 gate: Gate, context: Any) -> Reply:
        return self._kept_settled(await admitted, started, digits, tool, encoded, tail, gate,
                                  context)

    def _kept_settled(self, admitted: Admitted, started: float, digits: bytes, tool: McpTool,
                      encoded: bytes, tail: bytes, gate: Gate, context: Any) -> Reply:
        ticket, refused = admitted
        if refused is None:
            extra = gate.settle(context, ticket, tool.operation, 200, None, started, encoded)
            return Reply(200, RESULT_HEAD + digits + tail, [JSON, *extra])
        extra = gate.settle(context, ticket, tool.operation, STATUS.get(refused.code, 500),
                            refused.code, started, encoded)
        return service_reply(int(digits), refused, extra)

    def _plan(self, version: str | None, head: bytes, tail: bytes) -> _Plan | None:
        """What a body ``head + id + tail`` asks, for any integer id: a valid ``tools/call`` of
        a known tool with object arguments, its routing headers aside (checked per call).
        ``None`` for anything else, and wherever the digits cut out are not the request's id
        (inside a string, a nested object's "id", a key given twice): the body is decoded with
        an id whose digits appear nowhere else in it, so only the cut can have given it."""
        probed = head + _PROBE + tail
        if probed.count(_PROBE) != 1:
            return None
        try:
            message = orjson.loads(probed)
        except orjson.JSONDecodeError:
            return None
        if type(message) is not dict or type(message.get("id")) is not int \
                or message["id"] != _PROBE_ID:
            return None
        request = check_request(message, None, version)
        if isinstance(request, Reply) or request[1] != "tools/call":
            return None
        _, _, params, modern = request
        try:
            tool, encoded = self._tool_arguments(params)
        except _RpcError:
            return None
        return tool, encoded, modern, params, None

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
            raise _RpcError(INVALID_PARAMS, "invalid params: protocolVersion must be a string")
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
            raise _RpcError(INVALID_PARAMS, f"unknown tool: {name!r}",
                            {"tools": list(self.tools)})
        if arguments is None:
            arguments = {}
        elif type(arguments) is not dict:
            raise _RpcError(INVALID_PARAMS, "invalid params: arguments must be an object")
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
    if len(payload) <= _KEPT_RESULT:
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


# A kept call (``McpEndpoint._kept_call``): the id where clients write it, cut out to key the
# plan: second, after "jsonrpc", the method next (the Python SDK: httpx's compact JSON of the
# request's fields in order), or last, the method first (a client that adds the id to a request
# made before). Any other layout, or a spaced one, takes the full path. Bodies up to _KEPT_BODY
# bytes, at most _KEPT_CALLS of them kept, each with its plan (the params decoded, the arguments
# encoded) and for a kept tool a result of at most _KEPT_RESULT bytes.
_ID_FIRST = b'{"jsonrpc":"2.0","id":'
_AFTER_ID_FIRST = len(_ID_FIRST)
_CALL_AFTER_ID = b',"method":"tools/call",'
_CALL_FIRST = b'{"method":"tools/call",'  # the id-last layout is kept in this order only
_ID_LAST, _ID_LAST_END = b',"id":', b"}"
_ID_LAST_LEN = len(_ID_LAST)
_KEPT_BODY = 2048
# The id a plan's body is decoded with: a JSON integer is written one way only (no sign, no
# leading zero; an exponent makes a float), so where these digits appear nowhere else in the
# body, an id that comes back as this integer came from the digits put in the cut.
_PROBE = b"918273645546372"
_PROBE_ID = int(_PROBE)
# As many calls as REST keeps answers (server/api/schemas.py, cache=4096). Real traffic is
# many distinct calls, each repeated (the jazz-ccp corpus in chart order: 133,772 calls, 4,369
# distinct): a table of 1,024 cleared whole when full forgot every call before most were seen
# the three times that keep one, so most took the full path; the oldest one goes instead.
_KEPT_CALLS = 4096
# tool, arguments encoded, modern (per-request era), params (for the routing headers' check),
# and once answered (a kept tool's success) what follows the id in the reply
_Plan = tuple[McpTool, bytes, bool, dict[str, Any], bytes | None]
_KEPT_RESULT = 4096    # bytes: results of payloads up to this size are kept (analyze: ~1.5 KB)
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
