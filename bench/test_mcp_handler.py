"""CPU cost of the /mcp handler itself (transport overhead, no HTTP server): decode, dispatch,
encode. Run: .venv/bin/python -m pytest bench/test_mcp_handler.py --benchmark-enable"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from server.mcp.endpoint import McpEndpoint
from server.mcp.tools import McpTool

RESULT = {"chord": "Dm7", "key": "C", "numeral": "ii7", "notes": ["D", "F", "A", "C"]}
TOOL = McpTool("analyze_chord", "analyze", "/v2/analyze", lambda args: RESULT, {
    "name": "analyze_chord", "description": "Analyze.", "inputSchema": {"type": "object"}})




@pytest.mark.parametrize("method", ["tools/list", "tools/call"])
def test_handler_overhead(benchmark: Any, method: str) -> None:
    endpoint = McpEndpoint({"analyze_chord": TOOL})
    params = {"name": "analyze_chord", "arguments": {"chord": "Dm7", "key": "C"}}
    body = orjson.dumps({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    headers = {"mcp-protocol-version": "2025-11-25", "content-type": "application/json"}
    loop = asyncio.new_event_loop()
    try:
        reply = benchmark(lambda: loop.run_until_complete(endpoint.handle("POST", headers, body)))
    finally:
        loop.close()
    assert reply.status == 200
