"""POST /mcp on the whole service in-process (httpx.ASGITransport): what the McpGate does with
keys, limits, the monthly quota, the response headers and the request log, compared with REST on
the same key. test_mcp.py covers the JSON-RPC layer alone, test_mcp_client.py a real server."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import orjson

from engine.errors import HarmonyError
from server.api.schemas import OPERATIONS
from server.http.routes import Context
from server.mcp.endpoint import MAX_BATCH
from tests.server_fixtures import (
    bearer,
    make,
    make_counting,
    new_key,
    run,
    running,
)
from tests.test_server_rsgi import Protocol
from tests.test_server_rsgi import call as rsgi_call
from tests.tool_results import tool_error


def tool_call(name: Any, arguments: Any = None, rid: int = 1) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


async def post_mcp(http: httpx.AsyncClient, message: Any, **headers: str) -> httpx.Response:
    return await http.post("/mcp", content=orjson.dumps(message), headers=headers)


def test_conflicting_key_and_key_context_are_refused_on_rest_and_mcp(tmp_path: Path) -> None:
    app, store = make(tmp_path, operations={"analyze": OPERATIONS["analyze"]})
    _, secret = new_key(store)
    conflict = {"chord": "Dm7b5", "key": "Cm", "keyContext": "Gm"}
    agreeing = {"chord": "Dm7b5", "key": "Cm", "keyContext": "Cm"}

    async def scenario() -> list[httpx.Response]:
        async with running(app, headers=bearer(secret)) as http:
            return [await http.post("/v2/analyze", json=conflict),
                    await http.post("/v2/analyze", json=agreeing),
                    await post_mcp(http, tool_call("analyze_chord", conflict)),
                    await post_mcp(http, tool_call("analyze_chord", agreeing))]

    rest, rest_ok, mcp, mcp_ok = run(scenario())
    assert rest.status_code == 400
    assert rest.json()["error"]["code"] == "invalid_request"
    assert rest.json()["error"]["field"] == "keyContext"
    assert rest_ok.status_code == 200 and rest_ok.json()["numeral"] == "iiø7"
    result = mcp.json()["result"]
    assert {"error": tool_error(result)} == rest.json()
    assert mcp_ok.json()["result"]["structuredContent"] == rest_ok.json()


QUOTA_HEADERS = ("x-quota-limit", "x-quota-used", "ratelimit-limit", "ratelimit-remaining",
                 "ratelimit-reset")


def test_only_successful_tool_calls_spend_the_quota(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)
    failing = [tool_call("nope"), tool_call("nope", {}), tool_call(7),            # -32602
               tool_call("analyze_chord", [1]), tool_call("analyze_chord", "C"),  # -32602
               tool_call("analyze_chord", {"chord": "H7"}),                       # isError (400)
               tool_call("analyze_chord", {"chord": "boom"})]                     # isError (500)

    async def scenario() -> tuple[httpx.Response, list[httpx.Response], httpx.Response,
                                  httpx.Response]:
        async with running(app, headers=bearer(secret)) as http:
            before = await http.post("/v2/analyze", json={"chord": "C"})
            failed = [await post_mcp(http, message) for message in failing]
            ok = await post_mcp(http, tool_call("analyze_chord", {"chord": "C"}))
            after = await http.post("/v2/analyze", json={"chord": "C"})
            return before, failed, ok, after

    before, failed, ok, after = run(scenario())
    assert before.headers["x-quota-used"] == "1"
    assert [r.status_code for r in failed] == [200] * 7
    assert [r.json().get("error", {}).get("code") for r in failed] == [-32602] * 5 + [None] * 2
    assert [r.json()["result"]["isError"] for r in failed[5:]] == [True, True]
    # the error results report the quota as it stands, untouched
    assert [r.headers["x-quota-used"] for r in failed[5:]] == ["1", "1"]
    assert ok.headers["x-quota-used"] == "2" and after.headers["x-quota-used"] == "3"


def test_mcp_429s_carry_the_quota_headers_of_rest(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store, "tiny", plan="enterprise")
    store.set_limits("tiny", per_minute=3, per_month=1)
    call = tool_call("analyze_chord", {"chord": "C"})

    async def scenario() -> list[httpx.Response]:
        async with running(app, headers=bearer(secret)) as http:
            return [await post_mcp(http, call),                           # spends the month
                    await post_mcp(http, call),                           # quota_exceeded
                    await http.post("/v2/analyze", json={"chord": "C"}),  # quota_exceeded
                    await post_mcp(http, call),                           # rate_limited
                    await http.post("/v2/analyze", json={"chord": "C"})]  # rate_limited

    ok, mcp_quota, rest_quota, mcp_rate, rest_rate = run(scenario())
    assert ok.status_code == 200 and all(h in ok.headers for h in QUOTA_HEADERS)
    for mcp, rest, code in ((mcp_quota, rest_quota, "quota_exceeded"),
                            (mcp_rate, rest_rate, "rate_limited")):
        assert (mcp.status_code, rest.status_code) == (429, 429)
        assert mcp.json()["error"]["data"]["code"] == rest.json()["error"]["code"] == code
        for name in ("retry-after", *QUOTA_HEADERS):
            assert name in mcp.headers and name in rest.headers, (code, name)
        assert mcp.headers["x-quota-used"] == rest.headers["x-quota-used"] == "1"
        assert mcp.headers["x-quota-limit"] == "1"
    assert mcp_rate.headers["ratelimit-remaining"] == "0"


def test_refused_tool_calls_are_logged_with_their_code_and_operation(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    key_id, secret = new_key(store, "tiny", plan="enterprise")
    store.set_limits("tiny", per_minute=2, per_month=1000)
    call = tool_call("analyze_chord", {"chord": "C"})

    async def scenario() -> None:
        async with running(app) as http:
            await post_mcp(http, call)                                       # 401
            await post_mcp(http, call, authorization="Bearer hk_live_" + "x" * 40)  # 401
            for _ in range(3):                                               # 200, 200, 429
                await post_mcp(http, call, authorization=f"Bearer {secret}")
            await http.post("/v2/analyze", json={"chord": "C"}, headers=bearer(secret))  # 429

    run(scenario())
    rows = [(r[1], r[2], r[3], r[4], r[5]) for r in store.log_rows()]
    assert rows == [(None, "mcp", "analyze", 401, "unauthorized"),
                    (None, "mcp", "analyze", 401, "unauthorized"),
                    (key_id, "mcp", "analyze", 200, None),
                    (key_id, "mcp", "analyze", 200, None),
                    (key_id, "mcp", "analyze", 429, "rate_limited"),
                    (key_id, "rest", "analyze", 429, "rate_limited")]


def test_a_202_has_no_body_and_no_content_type(tmp_path: Path) -> None:
    app, _ = make(tmp_path)

    async def scenario() -> list[httpx.Response]:
        async with running(app) as http:
            return [await post_mcp(http, {"jsonrpc": "2.0", "method": "notifications/initialized"}),
                    await post_mcp(http, {"jsonrpc": "2.0", "id": 5, "result": {}})]

    for accepted in run(scenario()):
        assert accepted.status_code == 202 and accepted.content == b""
        assert "content-type" not in accepted.headers
    # the same through granian's RSGI entry
    body = b'{"jsonrpc":"2.0","id":5,"result":{}}'
    _, status, headers, content = rsgi_call(app, "POST", "/mcp",
                                            {"content-length": str(len(body))}, Protocol([body]))
    assert (status, content) == (202, b"") and "content-type" not in headers


def test_a_2025_03_26_batch_of_tool_calls_counts_each_call(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)
    batch = [tool_call("analyze_chord", {"chord": "C"}, rid=1),
             tool_call("analyze_chord", {"chord": "H7"}, rid=2),
             tool_call("analyze_chord", {"chord": "D"}, rid=3)]

    async def scenario() -> httpx.Response:
        async with running(app, headers=bearer(secret)) as http:
            return await post_mcp(http, batch, **{"mcp-protocol-version": "2025-03-26"})

    reply = run(scenario())
    assert reply.status_code == 200 and reply.headers["content-type"] == "application/json"
    assert [a["result"]["isError"] for a in reply.json()] == [False, True, False]
    assert reply.headers["x-quota-used"] == "2" and reply.headers["ratelimit-remaining"] == "27"
    assert [(r[2], r[4], r[5]) for r in store.log_rows()] == [
        ("mcp", 200, None), ("mcp", 400, "invalid_chord"), ("mcp", 200, None)]


def test_a_batch_counts_each_message_against_the_flood_throttle(tmp_path: Path) -> None:
    app, _ = make(tmp_path, flood_per_minute=5)
    pings = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(6)]

    async def scenario() -> tuple[httpx.Response, httpx.Response, httpx.Response]:
        async with running(app) as http:
            too_large = await post_mcp(http, pings * 3)            # 18 messages: refused whole
            batch = await post_mcp(http, pings)
            return too_large, batch, await http.get("/health")

    too_large, batch, health = run(scenario())
    assert too_large.status_code == 400
    assert too_large.json()["error"]["code"] == -32600
    # The refused POST counted 1, this one 1 for the POST and 1 for each further message:
    # the 5th message is the IP's 6th request this minute, and /health comes after them all.
    answers = batch.json()
    assert batch.status_code == 200 and [a["id"] for a in answers] == [0, 1, 2, 3, 4, 5]
    assert [a.get("error", {}).get("data", {}).get("code") for a in answers] == \
        [None] * 4 + ["rate_limited"] * 2
    assert health.status_code == 429


def test_messages_no_tool_call_logged_are_attributed_to_a_valid_key(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    key_id, secret = new_key(store)
    key = {"authorization": f"Bearer {secret}"}

    async def scenario() -> list[httpx.Response]:
        async with running(app) as http:
            return [await post_mcp(http, tool_call("no_such_tool", {"chord": "C"}), **key),
                    await post_mcp(http, tool_call("analyze_chord", ["C"]), **key),
                    await post_mcp(http, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                   **key),
                    await post_mcp(http, tool_call("no_such_tool")),         # no key
                    await post_mcp(http, tool_call("analyze_chord", {"chord": "C"}), **key)]

    answers = run(scenario())
    assert [a.json()["error"]["code"] for a in answers[:2]] == [-32602, -32602]
    rows = [(r[1], r[2], r[3], r[4], r[5]) for r in store.log_rows()]
    assert rows == [(key_id, "mcp", None, 200, None), (key_id, "mcp", None, 200, None),
                    (key_id, "mcp", None, 200, None), (None, "mcp", None, 200, None),
                    (key_id, "mcp", "analyze", 200, None)]
    # Attributed, not counted: the tool call is the key's first of the minute and the month.
    assert answers[4].headers["x-quota-used"] == "1"
    assert answers[4].headers["ratelimit-remaining"] == "29"
    assert {u["key"]: u["calls"] for u in store.usage()}[key_id] == 4


def test_flood_refusals_inside_a_batch_are_counted_in_the_metric(tmp_path: Path) -> None:
    app, store = make(tmp_path, flood_per_minute=3)
    _, secret = new_key(store)
    batch = [tool_call("analyze_chord", {"chord": "C"}, rid=i) for i in range(5)]

    async def scenario() -> httpx.Response:
        async with running(app, headers=bearer(secret)) as http:
            return await post_mcp(http, batch)

    answers = run(scenario()).json()
    assert [a.get("error", {}).get("data", {}).get("code") for a in answers] == \
        [None] * 3 + ["rate_limited"] * 2
    # The metric counts every 429 of the throttle, those inside a batch too.
    assert b"harmony_flood_refusals_total 2.0" in app.metrics.render()[0]


def test_every_mcp_answer_to_a_valid_key_carries_the_quota_headers(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    key_id, secret = new_key(store)
    pings = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(MAX_BATCH + 1)]
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                             "clientInfo": {"name": "t", "version": "1"}}}

    async def scenario() -> list[httpx.Response]:
        async with running(app, headers=bearer(secret)) as http:
            used = await post_mcp(http, tool_call("analyze_chord", {"chord": "C"}))
            return [used,
                    await post_mcp(http, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
                    await post_mcp(http, initialize),
                    await post_mcp(http, tool_call("no_such_tool")),
                    await post_mcp(http, pings),                                   # 17: 400
                    await http.post("/mcp", content=b"{not json"),                 # 400
                    await post_mcp(http, [1]),                                     # 200 batch
                    await post_mcp(http, {"jsonrpc": "2.0", "method": "notifications/x"})]

    answers = run(scenario())
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 400, 400, 200, 202]
    # Peeked, not counted: the one tool call's minute and month, on every answer after it.
    for answer in answers[1:]:
        assert (answer.headers["x-quota-limit"], answer.headers["x-quota-used"],
                answer.headers["ratelimit-limit"], answer.headers["ratelimit-remaining"]) == \
            ("1000", "1", "30", "29")
        assert "ratelimit-reset" in answer.headers
    # Each logged under the key; the 400s with the code REST logs for a body it cannot read.
    rows = [(r[1], r[4], r[5]) for r in store.log_rows()]
    assert rows[1:] == [(key_id, 200, None)] * 3 + [(key_id, 400, "invalid_request")] * 2 + \
        [(key_id, 200, None), (key_id, 202, None)]


def test_mcp_gate_checks_keys_spends_quota_on_success_and_logs(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    key_id, secret = new_key(store)

    async def scenario() -> None:
        await app.startup()
        ctx = Context("POST", "/mcp", {}, "127.0.0.1", 0.0)
        gate = app.mcp_gate
        assert gate is not None  # auth is on
        ticket, refused = gate.admit(ctx, {})
        assert ticket is None and isinstance(refused, HarmonyError)
        assert refused.code == "unauthorized"
        ticket, refused = gate.admit(ctx, {"authorization": f"Bearer {secret}"})
        assert refused is None
        headers = dict(gate.settle(ctx, ticket, operation="analyze", status=200, error=None,
                                   started=time.perf_counter(), body=b"{}"))
        assert headers["x-quota-used"] == "1"
        ticket, _ = gate.admit(ctx, {"authorization": f"Bearer {secret}"})
        headers = dict(gate.settle(ctx, ticket, operation="analyze", status=400,
                                   error="invalid_chord", started=time.perf_counter(),
                                   body=b"{}"))
        assert headers["x-quota-used"] == "1" and headers["ratelimit-remaining"] == "28"
        await app.shutdown()

    run(scenario())
    assert [(r[1], r[2], r[3], r[4], r[5]) for r in store.log_rows()] == [
        (key_id, "mcp", "analyze", 200, None), (key_id, "mcp", "analyze", 400, "invalid_chord")]


def test_mcp_tool_calls_share_the_rest_answers_and_are_still_counted(tmp_path: Path) -> None:
    app, store, calls = make_counting(tmp_path)
    _, secret = new_key(store)

    def tool_call(arguments: dict[str, Any]) -> bytes:
        return orjson.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                             "params": {"name": "analyze_chord", "arguments": arguments}})

    async def scenario() -> tuple[httpx.Response, list[httpx.Response]]:
        async with running(app, headers=bearer(secret)) as http:
            rest = await http.post("/v2/analyze", content=b'{"chord":"Dm7"}')
            mcp = [await http.post("/mcp", content=tool_call(a), headers={
                "accept": "application/json, text/event-stream"})
                for a in ({"chord": "Dm7"}, {"chord": "Dm7"}, {"chord": "H7"}, {"chord": "H7"})]
            return rest, mcp

    rest, mcp = run(scenario())
    # The REST answer is kept and serves both MCP calls; errors run (and are logged) each time.
    assert calls == [{"chord": "Dm7"}, {"chord": "H7"}, {"chord": "H7"}]
    for answer in mcp[:2]:
        result = answer.json()["result"]
        assert result["structuredContent"] == rest.json()
        assert orjson.loads(result["content"][0]["text"]) == rest.json()
        assert result["isError"] is False
    assert [a.json()["result"]["isError"] for a in mcp[2:]] == [True, True]
    assert [r.headers["x-quota-used"] for r in (rest, *mcp)] == ["1", "2", "3", "3", "3"]
    assert [row[2] for row in store.log_rows()] == ["rest", "mcp", "mcp", "mcp", "mcp"]
    assert [(g["symbol"], g["count"]) for g in store.vocab_gaps()] == [("H7", 2)]


def test_numbered_tool_calls_are_each_admitted_counted_and_logged(tmp_path: Path) -> None:
    """A client numbers its calls: after the second, /mcp keeps the call and its result
    (``server.mcp.endpoint``'s kept calls), and each one still passes the key, the limits and
    the log, under its own id, with REST's answer."""
    app, store = make(tmp_path)
    key_id, secret = new_key(store, "tiny", plan="enterprise")
    store.set_limits("tiny", per_minute=5, per_month=1000)

    async def scenario() -> tuple[httpx.Response, list[httpx.Response]]:
        async with running(app, headers=bearer(secret)) as http:
            rest = await http.post("/v2/analyze", json={"chord": "Dm7", "key": "C"})
            mcp = [await post_mcp(http, tool_call("analyze_chord", {"chord": "Dm7", "key": "C"},
                                                  rid=rid)) for rid in range(1, 7)]
            return rest, mcp

    rest, mcp = run(scenario())
    for rid, answer in enumerate(mcp[:4], start=1):
        assert answer.status_code == 200 and answer.json()["id"] == rid
        assert answer.json()["result"]["structuredContent"] == rest.json()
    assert [a.headers["x-quota-used"] for a in mcp[:4]] == ["2", "3", "4", "5"]
    for rid, answer in enumerate(mcp[4:], start=5):  # the minute's five calls are spent
        assert answer.status_code == 429 and answer.json()["id"] == rid
        assert answer.json()["error"]["data"]["code"] == "rate_limited"
        assert "retry-after" in answer.headers
    assert [(r[1], r[2], r[4], r[5]) for r in store.log_rows()] == [
        (key_id, "rest", 200, None), *[(key_id, "mcp", 200, None)] * 4,
        *[(key_id, "mcp", 429, "rate_limited")] * 2]


def test_a_key_less_client_is_told_that_an_api_key_is_needed_and_how_to_send_it(
        tmp_path: Path) -> None:
    # API.md 8.1: the 401 stays (with WWW-Authenticate: Bearer) and its text says what to do;
    # an OAuth-capable client's discovery finds no OAuth, each answer saying so the same way.
    from server.http.routes import OAUTH_PROBES

    app, _ = make(tmp_path, operations=OPERATIONS)

    async def scenario() -> tuple[httpx.Response, list[httpx.Response]]:
        async with running(app) as http:
            refused = await post_mcp(http, tool_call("analyze_chord", {"chord": "C"}))
            probes = [await http.request(method, path)
                      for path, method in OAUTH_PROBES.items()]
            return refused, probes

    refused, probes = run(scenario())
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"].startswith("Bearer")
    message = refused.json()["error"]["message"]
    assert "an API key is needed" in message and "Authorization: Bearer hk_live_" in message
    for path, probe in zip(OAUTH_PROBES, probes, strict=True):
        assert probe.status_code == 404, path
        error = probe.json()["error"]
        assert error["code"] == "not_found"
        assert error["message"].startswith("this service does not use OAuth: an API key is needed")
