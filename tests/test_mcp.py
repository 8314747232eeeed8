"""The /mcp JSON-RPC handler at the protocol level: every response shape is checked with the SDK's
own types (``mcp.types`` for the handshake era, the 2026-07-28 wire models for the per-request
era). A tiny inline tool table keeps these tests about the transport; the real tools are tested
in test_mcp_service.py (the service in-process) and through real clients in
test_mcp_client.py."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import anyio
import mcp.types as types
import orjson
import pytest
from mcp_types import _v2026_07_28 as wire
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from engine.errors import InvalidChord, QuotaExceeded, RateLimited, Unauthorized
from server.mcp.endpoint import MAX_BATCH, McpEndpoint, Reply
from server.mcp.tools import McpTool
from tests.tool_results import tool_error

MODERN = "2026-07-28"


def _echo(arguments: dict[str, Any]) -> dict[str, Any]:
    if arguments.get("chord") == "H7":
        raise InvalidChord("H7", "H is not a note letter")
    return {"chord": arguments.get("chord"), "size": len(arguments)}


ECHO = McpTool("echo_chord", "echo", "/v2/echo", _echo, {
    "name": "echo_chord", "description": "Echo a chord.",
    "inputSchema": {"type": "object", "properties": {"chord": {"type": "string"}}},
    "outputSchema": {"type": "object", "properties": {"chord": {"type": "string"},
                                                      "size": {"type": "integer"}},
                     "required": ["chord", "size"]},
    "annotations": {"readOnlyHint": True, "idempotentHint": True}})


class FakeGate:
    """Keys as a dict; records what the route settles, like the service's store would."""

    def __init__(self, keys: dict[str, str], refuse: Exception | None = None) -> None:
        self.keys, self.refuse, self.settled = keys, refuse, []  # type: ignore[var-annotated]
        self.admitted = 0

    def admit(self, context: Any, headers: Any) -> tuple[str | None, Exception | None]:
        self.admitted += 1
        auth = headers.get("authorization", "")
        account = self.keys.get(auth.removeprefix("Bearer ")) if auth.startswith("Bearer ") \
            else None
        if account is None:
            return None, Unauthorized("a valid API key is required")
        return account, self.refuse

    def settle(self, context: Any, ticket: Any, operation: str, status: int, error: str | None,
               started: float, body: bytes, symbol: str | None = None
               ) -> list[tuple[bytes, bytes]]:
        self.settled.append((ticket, {"operation": operation, "status": status, "error": error,
                                      "started": started, "body": body, "symbol": symbol}))
        if ticket is None:  # no valid key: no quota to report
            return []
        used = sum(t is not None and r["status"] == 200 for t, r in self.settled)
        return [("x-quota-used", str(used))]


def call(endpoint: McpEndpoint, message: Any, headers: dict[str, str] | None = None,
         method: str = "POST", gate: FakeGate | None = None) -> Reply:
    body = message if isinstance(message, bytes) else orjson.dumps(message)

    async def run() -> Reply:
        return await endpoint.handle(method, headers or {}, body, gate)
    return anyio.run(run)


def rpc(method: str, params: dict[str, Any] | None = None, rid: int | str = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return message


def result_of(reply: Reply) -> dict[str, Any]:
    assert reply.status == 200, reply.body
    message = types.jsonrpc_message_adapter.validate_json(reply.body)
    assert isinstance(message, types.JSONRPCResponse), reply.body
    return message.result


def error_of(reply: Reply) -> types.ErrorData:
    message = types.jsonrpc_message_adapter.validate_json(reply.body)
    assert isinstance(message, types.JSONRPCError), reply.body
    return message.error


@pytest.fixture
def open_endpoint() -> McpEndpoint:
    return McpEndpoint({"echo_chord": ECHO})


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_initialize_echoes_every_handshake_version_the_sdk_speaks(open_endpoint, version):
    reply = call(open_endpoint, rpc("initialize", {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}))
    init = types.InitializeResult.model_validate(result_of(reply))
    assert init.protocol_version == version
    assert init.server_info.name == "harmony" and init.server_info.version == "0.4.0"
    assert init.capabilities.tools is not None
    assert init.capabilities.resources is None and init.capabilities.prompts is None


def test_initialize_offers_the_newest_version_for_an_unknown_one(open_endpoint):
    reply = call(open_endpoint, rpc("initialize", {"protocolVersion": "2030-01-01",
                                                   "capabilities": {}}))
    assert result_of(reply)["protocolVersion"] == LATEST_HANDSHAKE_VERSION


def test_notifications_and_client_responses_are_accepted_with_202(open_endpoint):
    for message in ({"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 3}},
                    {"jsonrpc": "2.0", "id": 5, "result": {}},
                    {"jsonrpc": "2.0", "id": "s-1", "error": {"code": -32601, "message": "no"}}):
        reply = call(open_endpoint, message)
        assert (reply.status, reply.headers, reply.body) == (202, [], b""), message
    # neither a request, nor a notification, nor a response
    for message in ({"jsonrpc": "2.0", "id": 5}, {"jsonrpc": "2.0", "id": 5, "result": {},
                                                  "error": {"code": 1, "message": "x"}},
                    {"jsonrpc": "2.0", "result": {}}):
        assert call(open_endpoint, message).status == 400, message


def test_ping_and_tools_list_need_no_key():
    endpoint, gate = McpEndpoint({"echo_chord": ECHO}), FakeGate({})
    ping = result_of(call(endpoint, rpc("ping"), gate=gate))
    assert types.EmptyResult.model_validate(ping) is not None
    listing = types.ListToolsResult.model_validate(result_of(call(endpoint, rpc("tools/list"),
                                                                  gate=gate)))
    [tool] = listing.tools
    assert tool.name == "echo_chord" and tool.output_schema is not None
    assert tool.annotations is not None and tool.annotations.read_only_hint


def test_a_call_returns_structured_content_and_the_same_json_as_text(open_endpoint):
    reply = call(open_endpoint, rpc("tools/call", {"name": "echo_chord",
                                                   "arguments": {"chord": "Dm7"}}, rid="a-1"))
    assert orjson.loads(reply.body)["id"] == "a-1"
    result = types.CallToolResult.model_validate(result_of(reply))
    assert not result.is_error
    assert result.structured_content == {"chord": "Dm7", "size": 1}
    [text] = result.content
    assert isinstance(text, types.TextContent)
    assert text.text.encode() == orjson.dumps({"chord": "Dm7", "size": 1})


def test_an_engine_error_is_a_tool_result_carrying_the_error_object(open_endpoint):
    reply = call(open_endpoint, rpc("tools/call", {"name": "echo_chord",
                                                   "arguments": {"chord": "H7"}}))
    result = types.CallToolResult.model_validate(result_of(reply))
    error = tool_error(result)  # the text only: no structuredContent against the outputSchema
    assert (error["code"], error["symbol"]) == ("invalid_chord", "H7")
    assert result.content[0].text.startswith(  # type: ignore[union-attr]
        "Error invalid_chord: cannot parse chord symbol 'H7'")


@pytest.mark.parametrize(("message", "code"), [
    (rpc("resources/list"), -32601),
    (rpc("tools/call", {"name": "no_such_tool", "arguments": {}}), -32602),
    (rpc("tools/call", {"name": "echo_chord", "arguments": ["Dm7"]}), -32602),
    (rpc("tools/call", {"arguments": {}}), -32602),
    (rpc("initialize", {"capabilities": {}}), -32602),
    ({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}, -32602),
])
def test_json_rpc_errors_for_unknown_methods_and_bad_params(open_endpoint, message, code):
    reply = call(open_endpoint, message)
    assert reply.status == 200  # handshake era: protocol errors travel in a 200 body
    assert error_of(reply).code == code


@pytest.mark.parametrize(("body", "code"), [
    (b"{not json", -32700),
    (b"[]", -32600),  # an empty batch
    (orjson.dumps({"jsonrpc": "1.0", "id": 1, "method": "ping"}), -32600),
    (orjson.dumps({"jsonrpc": "2.0", "id": True, "method": "ping"}), -32600),
    (orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": 7}), -32600),
])
def test_bodies_that_are_not_one_json_rpc_request_are_400(open_endpoint, body, code):
    reply = call(open_endpoint, body)
    assert reply.status == 400
    assert error_of(reply).code == code


@pytest.mark.parametrize("headers", [{}, {"mcp-protocol-version": "2025-03-26"}])
def test_a_batch_is_answered_where_2025_03_26_allowed_it(open_endpoint, headers):
    batch = [rpc("ping", rid=1),
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             rpc("tools/call", {"name": "echo_chord", "arguments": {"chord": "G7"}}, rid="two"),
             {"jsonrpc": "2.0", "id": 9, "result": {}},   # a response: no answer
             rpc("tools/call", {"name": "nope"}, rid=3),
             7]
    reply = call(open_endpoint, batch, headers)
    assert reply.status == 200 and ("content-type", "application/json") in reply.headers
    answers = [types.jsonrpc_message_adapter.validate_python(a)
               for a in orjson.loads(reply.body)]
    assert [a.id for a in answers] == [1, "two", 3, None]  # in order, one per request
    assert isinstance(answers[0], types.JSONRPCResponse) and answers[0].result == {}
    call_result = types.CallToolResult.model_validate(answers[1].result)  # type: ignore[union-attr]
    assert call_result.structured_content == {"chord": "G7", "size": 1}
    assert [a.error.code for a in answers[2:]] == [-32602, -32600]  # type: ignore[union-attr]
    only_notifications = [{"jsonrpc": "2.0", "method": "notifications/initialized"},
                          {"jsonrpc": "2.0", "id": 4, "error": {"code": 1, "message": "x"}}]
    accepted = call(open_endpoint, only_notifications, headers)
    assert (accepted.status, accepted.headers, accepted.body) == (202, [], b"")


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", MODERN])
def test_a_batch_is_400_in_the_versions_that_removed_batches(open_endpoint, version):
    reply = call(open_endpoint, [rpc("ping")], {"mcp-protocol-version": version})
    assert reply.status == 400 and error_of(reply).code == -32600


def test_each_tool_call_of_a_batch_passes_the_gate():
    gate = FakeGate({"k": "acme"})
    batch = [rpc("tools/call", {"name": "echo_chord", "arguments": {"chord": c}}, rid=i)
             for i, c in enumerate(("C", "H7", "D"))]
    reply = call(McpEndpoint({"echo_chord": ECHO}), batch, {"authorization": "Bearer k"},
                 gate=gate)
    assert [r["status"] for _, r in gate.settled] == [200, 400, 200]
    assert [a["result"]["isError"] for a in orjson.loads(reply.body)] == [False, True, False]
    assert dict(reply.headers)["x-quota-used"] == "2"  # the quota after the whole batch
    refused = call(McpEndpoint({"echo_chord": ECHO}), batch[:1], gate=gate)
    assert refused.status == 200  # the refusal travels in its element
    [answer] = orjson.loads(refused.body)
    assert answer["error"]["data"]["code"] == "unauthorized"


def test_a_batch_over_16_messages_is_refused_whole_before_any_runs():
    gate = FakeGate({"k": "acme"})
    counted: list[int] = []
    batch = [rpc("tools/call", {"name": "echo_chord", "arguments": {"chord": "C"}}, rid=i)
             for i in range(MAX_BATCH + 1)]

    async def run(messages: list[Any]) -> Reply:
        return await McpEndpoint({"echo_chord": ECHO}).handle(
            "POST", {"authorization": "Bearer k"}, orjson.dumps(messages), gate,
            lambda: counted.append(1))

    reply = anyio.run(run, batch)
    assert reply.status == 400 and error_of(reply).code == -32600
    assert "batch too large" in error_of(reply).message
    assert gate.admitted == 0 and counted == []  # nothing ran, nothing was counted
    reply = anyio.run(run, batch[:MAX_BATCH])
    assert reply.status == 200 and len(orjson.loads(reply.body)) == MAX_BATCH == 16
    assert gate.admitted == 16 and len(counted) == 15  # the POST itself counted the first


def test_each_element_of_a_batch_after_the_first_passes_the_flood_throttle():
    budget = [3]

    def throttle() -> None:
        budget[0] -= 1
        if budget[0] < 0:
            raise RateLimited("too many requests from this address", retryAfter=30)

    batch = [rpc("ping", rid=i) for i in range(4)] + [
        {"jsonrpc": "2.0", "method": "notifications/initialized"}, rpc("ping", rid=5)]

    async def run() -> Reply:
        return await McpEndpoint({"echo_chord": ECHO}).handle(
            "POST", {}, orjson.dumps(batch), None, throttle)

    reply = anyio.run(run)
    assert reply.status == 200
    answers = orjson.loads(reply.body)
    # The first four are answered; the refused notification is dropped, the last ping refused.
    assert [a["id"] for a in answers] == [0, 1, 2, 3, 5]
    assert all("result" in a for a in answers[:4])
    assert answers[4]["error"]["data"]["code"] == "rate_limited"
    assert dict(reply.headers)["retry-after"] == "30"


def test_a_throttled_batch_answers_invalid_elements_as_an_unthrottled_one():
    def exhausted() -> None:
        raise RateLimited("too many requests from this address", retryAfter=30)

    batch = [rpc("ping", rid=1), 5, {"jsonrpc": "1.0", "id": 2, "method": "ping"},
             {"jsonrpc": "2.0", "id": 3, "method": 7}, rpc("ping", rid=4),
             {"jsonrpc": "2.0", "method": "notifications/initialized"}]

    async def run(throttle: Any) -> list[Any]:
        reply = await McpEndpoint({"echo_chord": ECHO}).handle(
            "POST", {}, orjson.dumps(batch), None, throttle)
        return orjson.loads(reply.body)

    free, throttled = anyio.run(run, None), anyio.run(run, exhausted)
    # Nothing invalid vanishes or takes an id it does not have: each gets its -32600 as without
    # the throttle; only the valid request after the first is refused, under its own id.
    assert [(a["id"], a["error"]["code"]) for a in free[1:4]] == \
        [(None, -32600), (None, -32600), (3, -32600)]
    assert throttled[:4] == free[:4]
    assert [a["id"] for a in throttled] == [1, None, None, 3, 4]
    assert throttled[4]["error"]["data"]["code"] == "rate_limited"


def test_a_batch_lets_the_worker_answer_others_between_its_elements():
    events: list[str] = []

    def record(arguments: dict[str, Any]) -> dict[str, Any]:
        events.append("element")
        return _echo(arguments)

    endpoint = McpEndpoint({"echo_chord": dataclasses.replace(ECHO, call=record)})
    batch = [rpc("tools/call", {"name": "echo_chord", "arguments": {"chord": "C"}}, rid=i)
             for i in range(3)]

    async def other_request() -> None:
        for _ in range(3):
            events.append("other")
            await asyncio.sleep(0)

    async def run() -> None:
        await asyncio.gather(endpoint.handle("POST", {}, orjson.dumps(batch)), other_request())

    asyncio.run(run())
    assert events == ["element", "other", "element", "other", "element", "other"]


def test_an_unknown_protocol_version_header_is_400(open_endpoint):
    reply = call(open_endpoint, rpc("tools/list"), {"mcp-protocol-version": "1999-01-01"})
    assert reply.status == 400
    error = error_of(reply)
    assert error.data["requested"] == "1999-01-01" and MODERN in error.data["supported"]
    ok = call(open_endpoint, rpc("tools/list"), {"mcp-protocol-version": "2025-06-18"})
    assert ok.status == 200


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_methods_other_than_post_are_405_with_allow(open_endpoint, method):
    reply = call(open_endpoint, b"", method=method)
    assert reply.status == 405 and ("allow", "POST") in reply.headers


def test_a_body_over_64_kib_is_413(open_endpoint):
    assert call(open_endpoint, b" " * (64 * 1024 + 1)).status == 413


def test_tools_call_needs_the_bearer_key():
    gate = FakeGate({"hk_live_good": "acme"})
    endpoint = McpEndpoint({"echo_chord": ECHO})
    message = rpc("tools/call", {"name": "echo_chord", "arguments": {"chord": "C"}})
    for headers in ({}, {"authorization": "Bearer hk_live_bad"}, {"authorization": "hk_live_good"}):
        reply = call(endpoint, message, headers, gate=gate)
        assert reply.status == 401
        assert dict(reply.headers)["www-authenticate"].startswith("Bearer")
        assert error_of(reply).data["code"] == "unauthorized"
        assert "x-quota-used" not in dict(reply.headers)
    # each refusal is settled (logged with its code and the tool's operation), without a ticket
    assert [(t, r["operation"], r["status"], r["error"]) for t, r in gate.settled] == \
        [(None, "echo", 401, "unauthorized")] * 3
    reply = call(endpoint, message, {"authorization": "Bearer hk_live_good"}, gate=gate)
    assert types.CallToolResult.model_validate(result_of(reply)).structured_content["chord"] == "C"  # type: ignore[index]
    assert ("x-quota-used", "1") in reply.headers


def test_calls_are_settled_with_the_rest_status_of_their_outcome():
    gate = FakeGate({"k": "acme"})
    endpoint = McpEndpoint({"echo_chord": ECHO})
    for chord in ("C", "H7"):
        call(endpoint, rpc("tools/call", {"name": "echo_chord", "arguments": {"chord": chord}}),
             {"authorization": "Bearer k"}, gate=gate)
    [(ticket, ok), (_, failed)] = gate.settled
    assert ticket == "acme"
    assert (ok["operation"], ok["status"], ok["error"]) == ("echo", 200, None)
    assert (failed["status"], failed["error"]) == (400, "invalid_chord")
    assert orjson.loads(failed["body"]) == {"chord": "H7"}


def test_limits_are_429_with_retry_after_and_the_gate_headers():
    gate = FakeGate({"k": "acme"}, refuse=QuotaExceeded("monthly quota used up", retryAfter=3600))
    endpoint = McpEndpoint({"echo_chord": ECHO})
    reply = call(endpoint, rpc("tools/call", {"name": "echo_chord", "arguments": {}}),
                 {"authorization": "Bearer k"}, gate=gate)
    assert reply.status == 429 and ("retry-after", "3600") in reply.headers
    assert ("x-quota-used", "0") in reply.headers  # what settle gave, as on REST's 429
    assert error_of(reply).data == {"code": "quota_exceeded", "message": "monthly quota used up",
                                    "retryAfter": 3600}
    [(ticket, record)] = gate.settled
    assert (ticket, record["status"], record["error"]) == ("acme", 429, "quota_exceeded")


@pytest.mark.parametrize("params", [
    {"name": "no_such_tool", "arguments": {}},
    {"name": "echo_chord", "arguments": [1]},
    {"arguments": {}},
])
def test_invalid_tool_calls_never_reach_the_gate(params):
    gate = FakeGate({"k": "acme"})
    reply = call(McpEndpoint({"echo_chord": ECHO}), rpc("tools/call", params),
                 {"authorization": "Bearer k"}, gate=gate)
    assert error_of(reply).code == -32602
    assert (gate.admitted, gate.settled) == (0, [])  # no minute, no quota, no reservation


def test_an_unexpected_exception_is_an_internal_error_result_and_settled_as_500(capsys):
    def broken(arguments: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("a bug at /srv/secret")

    gate = FakeGate({"k": "acme"})
    endpoint = McpEndpoint({"echo_chord": dataclasses.replace(ECHO, call=broken)})
    reply = call(endpoint, rpc("tools/call", {"name": "echo_chord", "arguments": {}}),
                 {"authorization": "Bearer k"}, gate=gate)
    result = types.CallToolResult.model_validate(result_of(reply))
    error = tool_error(result)
    request_id = error.pop("requestId")
    assert error == {"code": "internal_error", "message": "internal error"}
    logged = capsys.readouterr().err
    assert b"/srv/secret" not in reply.body and "/srv/secret" in logged
    assert logged.count("\n") == 1 and f"internal error {request_id}" in logged
    [(_, record)] = gate.settled
    assert (record["status"], record["error"]) == (500, "internal_error")


# -- the per-request era (2026-07-28): envelope in params._meta, routing headers --------------

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}


def modern(endpoint: McpEndpoint, method: str, params: dict[str, Any] | None = None,
           **headers: str) -> Reply:
    routing = {"mcp-protocol-version": MODERN, "mcp-method": method, **headers}
    return call(endpoint, rpc(method, {**(params or {}), "_meta": ENVELOPE}), routing)


def test_discover_advertises_every_version_and_stamps_server_info(open_endpoint):
    reply = modern(open_endpoint, "server/discover")
    response = wire.DiscoverResultResponse.model_validate_json(reply.body)
    assert MODERN in response.result.supported_versions
    assert set(HANDSHAKE_PROTOCOL_VERSIONS) <= set(response.result.supported_versions)
    assert response.result.meta.io_modelcontextprotocol_server_info == {  # type: ignore[union-attr]
        "name": "harmony", "version": "0.4.0"}


def test_modern_list_and_call_have_the_wire_shapes_of_2026_07_28(open_endpoint):
    listing = wire.ListToolsResultResponse.model_validate_json(
        modern(open_endpoint, "tools/list").body)
    assert [t.name for t in listing.result.tools] == ["echo_chord"]
    reply = modern(open_endpoint, "tools/call", {"name": "echo_chord",
                                                 "arguments": {"chord": "G7"}},
                   **{"mcp-name": "echo_chord"})
    result = wire.CallToolResultResponse.model_validate_json(reply.body).result
    assert result.structured_content == {"chord": "G7", "size": 1}
    assert result.result_type == "complete"


def test_modern_routing_headers_must_match_the_body(open_endpoint):
    reply = modern(open_endpoint, "tools/call", {"name": "echo_chord", "arguments": {}},
                   **{"mcp-name": "other_tool"})
    assert reply.status == 400 and error_of(reply).code == -32020
    reply = modern(open_endpoint, "resources/list")
    assert reply.status == 404 and error_of(reply).code == -32601
    reply = call(open_endpoint, rpc("tools/list", {"_meta": {**ENVELOPE,
                 "io.modelcontextprotocol/protocolVersion": "2027-01-01"}}),
                 {"mcp-protocol-version": MODERN, "mcp-method": "tools/list"})
    assert reply.status == 400 and error_of(reply).code in (-32020, -32022)
