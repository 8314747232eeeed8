"""Kept calls of POST /mcp: a ``tools/call`` whose body differs from one seen before only in its
integer id is answered without decoding it again (``McpEndpoint._kept_call``). What a client
relies on: every request is answered under its own id with the result of its own arguments,
exactly as the full path answers it, whatever the body's layout (the id second or last, an "id"
key inside the arguments, a key given twice), in either era of the protocol, and the memory the
kept calls hold is bounded."""

from __future__ import annotations

from typing import Any

import anyio
import orjson
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidChord
from server.mcp.endpoint import _KEPT_CALLS, McpEndpoint, Reply
from server.mcp.tools import McpTool

MODERN = "2026-07-28"
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}}


def _echo(arguments: dict[str, Any]) -> dict[str, Any]:
    if arguments.get("chord") == "H7":
        raise InvalidChord("H7", "H is not a note letter")
    return {"arguments": arguments}


def _answer(encoded: bytes) -> bytes:  # as REST's answerer: encoded arguments -> result bytes
    return orjson.dumps(_echo(orjson.loads(encoded)))


ECHO = McpTool("echo_all", "echo", "/v2/echo", _echo, {
    "name": "echo_all", "description": "Echo the arguments.",
    "inputSchema": {"type": "object"}}, _answer)


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


def test_numbered_calls_are_each_answered_under_their_own_id_as_the_full_path_answers():
    endpoint, gate = McpEndpoint({"echo_all": ECHO}), CountingGate()
    for rid in (1, 2, 10, 0, 999_999_999_999_999):
        body = body_of(rid, {"chord": "Dm7", "key": "C"})
        reply = post(endpoint, body, gate=gate)
        # the same request with a space before the colon is not a kept call's shape: the
        # full path answers it, and the two answers are the same
        spaced = body.replace(b'"id":', b'"id" :')
        full = post(McpEndpoint({"echo_all": ECHO}), spaced, gate=CountingGate())
        assert (reply.status, reply.body, reply.headers) == (full.status, full.body, full.headers)
        answer = orjson.loads(reply.body)
        assert answer["id"] == rid
        assert answer["result"]["structuredContent"] == {"arguments": {"chord": "Dm7",
                                                                       "key": "C"}}
    # every call passed the gate and was settled with its arguments
    assert gate.settled == [(200, None, b'{"chord":"Dm7","key":"C"}')] * 5


def test_an_error_result_is_computed_and_settled_for_every_numbered_call():
    endpoint, gate = McpEndpoint({"echo_all": ECHO}), CountingGate()
    for rid in (5, 6):
        reply = post(endpoint, body_of(rid, {"chord": "H7"}), gate=gate)
        answer = orjson.loads(reply.body)
        assert answer["id"] == rid and answer["result"]["isError"] is True
        assert answer["result"]["structuredContent"]["error"]["code"] == "invalid_chord"
    assert [(status, error) for status, error, _ in gate.settled] == [(400, "invalid_chord")] * 2


def test_an_id_inside_the_arguments_or_a_key_given_twice_is_never_taken_for_the_requests():
    endpoint = McpEndpoint({"echo_all": ECHO})
    bodies = [
        # an "id" key in the arguments comes before the request's id
        b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo_all",'
        b'"arguments":{"id":%d}},"id":%d}',
        # a key whose name ends in "id (an escaped quote) before the request's id
        b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo_all",'
        b'"arguments":{"x\\"id":%d}},"id":%d}',
        # the request's id given twice: the decoder's choice is the request's id
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo_all",'
        b'"arguments":{}},"id":%d}',
        # the request's id is the probe's own digits (``_PROBE``), after an "id" argument
        b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo_all",'
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


def test_ids_that_are_not_plain_integers_take_the_full_path():
    endpoint = McpEndpoint({"echo_all": ECHO})
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


def test_a_kept_call_is_checked_again_against_each_requests_headers():
    endpoint, gate = McpEndpoint({"echo_all": ECHO}), CountingGate()
    routing = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call",
               "mcp-name": "echo_all"}
    assert post(endpoint, body_of(1, {}, meta=ENVELOPE), routing, gate).status == 200
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
    assert len(gate.settled) == 5  # the refused requests ran nothing


def test_the_calls_kept_are_bounded():
    endpoint = McpEndpoint({"echo_all": ECHO})
    for n in range(3 * _KEPT_CALLS):
        for rid in (1, 2):
            reply = post(endpoint, body_of(rid, {"n": n}))
            assert orjson.loads(reply.body)["result"]["structuredContent"] == {
                "arguments": {"n": n}}
        assert len(endpoint._kept) <= _KEPT_CALLS


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
