"""Kept calls of ``POST /mcp``: a ``tools/call`` whose body differs from one seen before only in
its integer id (a client numbers its requests) is not decoded or checked again. Its plan is kept
by the body's bytes around the id (``_kept_call``, the counterpart of REST's kept answers), and
where REST keeps the tool's answers its result is kept with it (``_kept_answer``): a WSGI call
with numbered ids 108,076 -> 94,925 instructions (``bench/run_instructions.py``).

``KeptCalls`` is a mixin ``McpEndpoint`` (``server.mcp.endpoint``) inherits: the full path's
``_tool_arguments`` and ``_tools_call`` are the endpoint's (declared here for the type checker),
so a kept call is admitted, run, settled and answered exactly as the full path does it.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from server.api import STATUS, RequestHeaders
from server.mcp.gate import Admitted, Gate
from server.mcp.jsonrpc import JSON, RESULT_HEAD, Reply, RpcError, result_tail, service_reply
from server.mcp.requests import check_request, envelope
from server.mcp.tools import McpTool

# A kept call (``McpEndpoint._kept_call``): the id where clients write it, cut out to key the
# plan: second, after "jsonrpc", the method next (the Python SDK: httpx's compact JSON of the
# request's fields in order), or last, the method first (a client that adds the id to a request
# made before). Any other layout, or a spaced one, takes the full path. Bodies up to KEPT_BODY
# bytes, at most _KEPT_CALLS of them kept, each with its plan (the params decoded, the arguments
# encoded) and for a kept tool a result of at most KEPT_RESULT bytes.
_ID_FIRST = b'{"jsonrpc":"2.0","id":'
_AFTER_ID_FIRST = len(_ID_FIRST)
_CALL_AFTER_ID = b',"method":"tools/call",'
_CALL_FIRST = b'{"method":"tools/call",'  # the id-last layout is kept in this order only
_ID_LAST, _ID_LAST_END = b',"id":', b"}"
_ID_LAST_LEN = len(_ID_LAST)
KEPT_BODY = 2048
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
KEPT_RESULT = 4096    # bytes: results of payloads up to this size are kept (analyze: ~1.5 KB)


class KeptCalls:
    """The kept calls of ``McpEndpoint``; the full path's state and methods it calls are the
    endpoint's, declared here for the type checker."""

    # kept calls, by (version header, body before the id, body after it): a plan, False
    # (seen once), True (not a call that can be kept)
    _kept: dict[tuple[str | None, bytes, bytes], _Plan | bool]
    _tool_arguments: Callable[[dict[str, Any]], tuple[McpTool, bytes]]
    _tools_call: Callable[..., tuple[Reply | Awaitable[Reply], bytes | None]]

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
        if result is not None and tool.kept and len(result) <= KEPT_RESULT:
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
        except RpcError:
            return None
        return tool, encoded, modern, params, None
