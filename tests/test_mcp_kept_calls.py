"""Kept calls of POST /mcp: a ``tools/call`` whose body differs from one seen before only in its
integer id is answered without decoding it again (``McpEndpoint._kept_call``). What a client
relies on: every request is answered under its own id with the result of its own arguments,
exactly as the full path answers it, whatever the body's layout (the id second or last, an "id"
key inside the arguments, a key given twice), in either era of the protocol, and the memory the
kept calls hold is bounded."""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidChord, RateLimited
from server.mcp.endpoint import McpEndpoint, Reply
from server.mcp.kept import _KEPT_CALLS
from server.mcp.tools import McpTool
from tests.tool_results import tool_error

MODERN = "2026-07-28"
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}}


def _echo(arguments: dict[str, Any]) -> dict[str, Any]:
    if arguments.get("chord") == "H7":
        raise InvalidChord("H7", "H is not a note letter")
    return {"arguments": arguments}


RUNS: list[bytes] = []  # the encoded arguments of every call the tool ran


def _answer(encoded: bytes) -> bytes:  # as REST's answerer: encoded arguments -> result bytes
    RUNS.append(encoded)
    return orjson.dumps(_echo(orjson.loads(encoded)))


ECHO = McpTool("echo_all", "echo", "/v2/echo", _echo, {
    "name": "echo_all", "description": "Echo the arguments.",
    "inputSchema": {"type": "object"}}, _answer)
# The same tool as one whose REST answers are kept (analyze, resolve): its result is kept too.
KEPT = dataclasses.replace(ECHO, kept=True)


@pytest.fixture(params=[ECHO, KEPT], ids=["result computed", "result kept"])
def tool(request: pytest.FixtureRequest) -> McpTool:
    RUNS.clear()
    return request.param


class RefusingGate:
    """Admits ``allowed`` calls, then refuses with 429; records what each call settles."""

    def __init__(self, allowed: int) -> None:
        self.allowed, self.settled = allowed, []  # type: ignore[var-annotated]

    def admit(self, context: Any, headers: Any) -> tuple[str, Exception | None]:
        self.allowed -= 1
        return "key", None if self.allowed >= 0 else RateLimited("slow down", retry_after=7)

    def settle(self, context: Any, ticket: Any, operation: str, status: int, error: str | None,
               started: float, body: bytes, symbol: str | None = None
               ) -> list[tuple[str, str]]:
        self.settled.append((status, error))
        return [("x-ratelimit-limit", "60")]


class CountingGate:
    """Admits every call; records what each call settles."""

    def __init__(self) -> None:
        self.settled: list[tuple[int, str | None, bytes]] = []

    def admit(self, context: Any, headers: Any) -> tuple[str, None]:
        return "key", None

    def settle(self, context: Any, ticket: Any, operation: str, status: int, error: str | None,
               started: float, body: bytes, symbol: str | None = None
               ) -> list[tuple[str, str]]:
        self.settled.append((status, error, body))
        return [("x-ratelimit-limit", "60")]


def post(endpoint: McpEndpoint, body: bytes, headers: dict[str, str] | None = None,
         gate: CountingGate | None = None) -> Reply:
    async def run() -> Reply:
        return await endpoint.handle("POST", headers or {}, body, gate)
    return anyio.run(run)


def body_of(rid: Any, arguments: Any, order: tuple[str, ...] = ("jsonrpc", "id", "method",
                                                               "params"),
            meta: dict[str, Any] | None = None) -> bytes:
    params: dict[str, Any] = {"name": "echo_all", "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    fields = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
    return orjson.dumps({k: fields[k] for k in order})


ID_SECOND = ("jsonrpc", "id", "method", "params")  # the Python SDK's order
ID_LAST = ("method", "params", "jsonrpc", "id")


@pytest.mark.parametrize("order", [ID_SECOND, ID_LAST], ids=["id second", "id last"])
def test_numbered_calls_are_each_answered_under_their_own_id_as_the_full_path_answers(
        tool, order):
    endpoint, gate, ran = McpEndpoint({"echo_all": tool}), CountingGate(), 0
    for rid in (1, 2, 10, 0, 999_999_999_999_999):
        body = body_of(rid, {"chord": "Dm7", "key": "C"}, order)
        before = len(RUNS)
        reply = post(endpoint, body, gate=gate)
        ran += len(RUNS) - before
        # the same request with a space before the colon is not a kept call's shape: the
        # full path answers it, and the two answers are the same
        spaced = body.replace(b'"id":', b'"id" :')
        full = post(McpEndpoint({"echo_all": tool}), spaced, gate=CountingGate())
        assert (reply.status, reply.body, reply.headers) == (full.status, full.body, full.headers)
        answer = orjson.loads(reply.body)
        assert answer["id"] == rid
        assert answer["result"]["structuredContent"] == {"arguments": {"chord": "Dm7",
                                                                       "key": "C"}}
    # every call passed the gate and was settled with its arguments; the tool ran for each,
    # or, where REST keeps its answers, until its result was kept (the first two calls)
    assert gate.settled == [(200, None, b'{"chord":"Dm7","key":"C"}')] * 5
    assert ran == (2 if tool.kept else 5)


def test_an_error_result_is_computed_and_settled_for_every_numbered_call(tool):
    endpoint, gate = McpEndpoint({"echo_all": tool}), CountingGate()
    for rid in (5, 6, 7, 8):
        reply = post(endpoint, body_of(rid, {"chord": "H7"}), gate=gate)
        answer = orjson.loads(reply.body)
        assert answer["id"] == rid and answer["result"]["isError"] is True
        assert tool_error(answer["result"])["code"] == "invalid_chord"
    assert [(status, error) for status, error, _ in gate.settled] == [(400, "invalid_chord")] * 4
    assert len(RUNS) == 4  # an error is never kept: the tool ran every time


def test_an_id_inside_the_arguments_or_a_key_given_twice_is_never_taken_for_the_requests(tool):
    endpoint = McpEndpoint({"echo_all": tool})
    bodies = [
        # an "id" key in the arguments comes before the request's id
        b'{"method":"tools/call","jsonrpc":"2.0","params":{"name":"echo_all",'
        b'"arguments":{"id":%d}},"id":%d}',
        # a key whose name ends in "id (an escaped quote) before the request's id
        b'{"method":"tools/call","jsonrpc":"2.0","params":{"name":"echo_all",'
        b'"arguments":{"x\\"id":%d}},"id":%d}',
        # an "id" key in the arguments, and then the id given again
        b'{"method":"tools/call","params":{"name":"echo_all","arguments":{"id":%d}},'
        b'"jsonrpc":"2.0","id":1,"id":%d}',
        # the request's id given twice: the decoder's choice is the request's id
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo_all",'
        b'"arguments":{}},"id":%d}',
        # the request's id is the probe's own digits (``_PROBE``), after an "id" argument
        b'{"method":"tools/call","jsonrpc":"2.0","params":{"name":"echo_all",'
        b'"arguments":{"id":%d,"m":%d}},"id":918273645546372}',
    ]
    for template in bodies:
        for first, second in ((3, 4), (3, 5), (3, 6), (5, 6), (5, 7), (5, 8)):
            body = template % (first, second)
            sent = orjson.loads(body)
            answer = orjson.loads(post(endpoint, body).body)
            assert answer["id"] == sent["id"], body
            assert answer["result"]["structuredContent"] == {
                "arguments": sent["params"]["arguments"]}, body


def test_ids_that_are_not_plain_integers_take_the_full_path(tool):
    endpoint = McpEndpoint({"echo_all": tool})
    for _ in range(3):  # kept, and its result too
        ok = post(endpoint, body_of(7, {}))
        assert orjson.loads(ok.body)["id"] == 7
    for body, status in ((body_of(7, {}).replace(b'"id":7', b'"id":07'), 400),   # not JSON
                         (body_of(7, {}).replace(b'"id":7', b'"id":7.5'), 400),  # a float
                         (body_of(7, {}).replace(b'"id":7', b'"id":7e0'), 400),
                         (body_of(12345678901234567, {}), 200)):                 # 17 digits
        reply = post(endpoint, body)
        assert reply.status == status, body
        if status == 200:
            assert orjson.loads(reply.body)["id"] == 12345678901234567


def test_a_kept_call_is_checked_again_against_each_requests_headers(tool):
    endpoint, gate = McpEndpoint({"echo_all": tool}), CountingGate()
    routing = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call",
               "mcp-name": "echo_all"}
    for rid in (1, 11, 12):
        assert post(endpoint, body_of(rid, {}, meta=ENVELOPE), routing, gate).status == 200
    for wrong in ({"mcp-name": "other"}, {"mcp-method": "tools/list"}):
        reply = post(endpoint, body_of(2, {}, meta=ENVELOPE), {**routing, **wrong}, gate)
        assert reply.status == 400 and orjson.loads(reply.body)["error"]["code"] == -32020
    reply = post(endpoint, body_of(3, {}, meta=ENVELOPE), routing, gate)
    assert reply.status == 200 and orjson.loads(reply.body)["id"] == 3
    # a body kept under no version header is checked afresh under the per-request era's
    for rid in (4, 5, 6):
        assert post(endpoint, body_of(rid, {}), gate=gate).status == 200
    reply = post(endpoint, body_of(7, {}), routing, gate)
    assert reply.status == 400 and orjson.loads(reply.body)["error"]["code"] == -32602
    assert len(gate.settled) == 7  # the refused requests ran nothing


def test_the_calls_kept_are_bounded():
    endpoint = McpEndpoint({"echo_all": ECHO})
    for n in range(3 * _KEPT_CALLS):
        for rid in (1, 2):
            reply = post(endpoint, body_of(rid, {"n": n}))
            assert orjson.loads(reply.body)["result"]["structuredContent"] == {
                "arguments": {"n": n}}
        assert len(endpoint._kept) <= _KEPT_CALLS


def test_a_full_table_forgets_its_oldest_call_only():
    """Real traffic is many distinct calls, each repeated: a full table that forgot every call
    at once kept few of them (the jazz corpus in chart order, bench/load.py --corpus-mix)."""
    endpoint = McpEndpoint({"echo_all": KEPT})
    for n in range(_KEPT_CALLS + 1):  # one more than it holds, each seen once
        post(endpoint, body_of(1, {"n": n}))
    assert len(endpoint._kept) == _KEPT_CALLS
    RUNS.clear()
    for rid in (2, 3):  # still remembered: planned (the tool runs), then answered as kept
        post(endpoint, body_of(rid, {"n": 1}))
    for rid in (2, 3):  # the oldest, forgotten: remembered again, then planned
        post(endpoint, body_of(rid, {"n": 0}))
    assert RUNS == [b'{"n":1}', b'{"n":0}', b'{"n":0}']


ARGUMENTS = st.dictionaries(st.sampled_from(["id", "chord", 'x"id', "key", "n"]),
                            st.one_of(st.integers(-10, 10**16), st.text(max_size=8),
                                      st.dictionaries(st.sampled_from(["id", "a"]),
                                                      st.integers(0, 99), max_size=2)),
                            max_size=4)


@given(ARGUMENTS, st.lists(st.integers(0, 10**17), min_size=2, max_size=4),
       st.permutations(["jsonrpc", "id", "method", "params"]))
def test_any_body_is_answered_under_its_id_with_its_own_arguments(arguments, ids, order):
    endpoint = McpEndpoint({"echo_all": ECHO})
    for rid in [*ids, *ids]:  # each layout kept, then met again
        body = body_of(rid, arguments, tuple(order))
        answer = orjson.loads(post(endpoint, body).body)
        assert answer["id"] == rid
        assert answer["result"]["structuredContent"] == {"arguments": arguments}


def test_a_kept_result_is_answered_without_running_the_tool_but_never_past_the_gate():
    RUNS.clear()
    endpoint, gate = McpEndpoint({"echo_all": KEPT}), RefusingGate(allowed=5)
    answers = [post(endpoint, body_of(rid, {"chord": "G7"}), gate=gate) for rid in range(1, 8)]
    # the first call is remembered, the second planned; both run the tool, the rest do not
    assert len(RUNS) == 2
    for rid, reply in enumerate(answers[:5], start=1):
        assert reply.status == 200 and orjson.loads(reply.body)["id"] == rid
        assert orjson.loads(reply.body)["result"]["structuredContent"] == {
            "arguments": {"chord": "G7"}}
        assert reply.headers == [("content-type", "application/json"),
                                 ("x-ratelimit-limit", "60")]
    for rid, reply in enumerate(answers[5:], start=6):  # refused: 429 under its own id
        assert reply.status == 429 and ("x-ratelimit-limit", "60") in reply.headers
        error = orjson.loads(reply.body)
        assert error["id"] == rid and error["error"]["data"]["code"] == "rate_limited"
    assert gate.settled == [(200, None)] * 5 + [(429, "rate_limited")] * 2


def test_without_a_gate_a_kept_result_answers_as_the_full_path():
    endpoint = McpEndpoint({"echo_all": KEPT})
    for rid in (1, 2, 3, 4):
        reply = post(endpoint, body_of(rid, {"chord": "C"}))
        full = post(McpEndpoint({"echo_all": KEPT}),
                    body_of(rid, {"chord": "C"}).replace(b'"id":', b'"id" :'))
        assert (reply.status, reply.body, reply.headers) == (full.status, full.body,
                                                             full.headers)
