"""CPU cost of the /mcp handler itself (transport overhead, no HTTP server): decode, dispatch,
encode. ``McpEndpoint.answer`` is what the route calls for one message; ``handle`` through an
event loop's ``run_until_complete`` is timed beside it, to show what that wrapper alone costs.
Run: .venv/bin/python -m pytest bench/test_mcp_handler.py --benchmark-enable"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from server.mcp.endpoint import McpEndpoint
from server.mcp.jsonrpc import Reply
from server.mcp.tools import McpTool

RESULT = {"chord": "Dm7", "key": "C", "numeral": "ii7", "notes": ["D", "F", "A", "C"]}
TOOL = McpTool("analyze_chord", "analyze", "/v2/analyze", lambda args: RESULT, {
    "name": "analyze_chord", "description": "Analyze.", "inputSchema": {"type": "object"}})
HEADERS = {"mcp-protocol-version": "2025-11-25", "content-type": "application/json"}


def _body(method: str) -> bytes:
    params = {"name": "analyze_chord", "arguments": {"chord": "Dm7", "key": "C"}}
    return orjson.dumps({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})


@pytest.mark.parametrize("method", ["tools/list", "tools/call"])
def test_handler_overhead(benchmark: Any, method: str) -> None:
    endpoint, body = McpEndpoint({"analyze_chord": TOOL}), _body(method)
    reply = benchmark(endpoint.answer, "POST", HEADERS, body)
    assert isinstance(reply, Reply) and reply.status == 200


@pytest.mark.parametrize("method", ["tools/list", "tools/call"])
def test_handler_through_an_event_loop(benchmark: Any, method: str) -> None:
    endpoint, body = McpEndpoint({"analyze_chord": TOOL}), _body(method)
    loop = asyncio.new_event_loop()
    try:
        reply = benchmark(lambda: loop.run_until_complete(endpoint.handle("POST", HEADERS, body)))
    finally:
        loop.close()
    assert reply.status == 200
