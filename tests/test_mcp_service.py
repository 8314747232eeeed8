"""POST /mcp on the whole service in-process (httpx.ASGITransport): what the McpGate does with
keys, limits, the monthly quota, the response headers and the request log, compared with REST on
the same key. test_mcp.py covers the JSON-RPC layer alone, test_mcp_client.py a real server."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import httpx
import orjson

from server.schemas import OPERATIONS
from tests.server_fixtures import bearer, make, new_key, running


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coro)


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
    assert result["isError"] is True and result["structuredContent"] == rest.json()
    assert mcp_ok.json()["result"]["structuredContent"] == rest_ok.json()
