"""The ``mcp`` SDK's own client against /mcp on a real ``harmony serve`` (loopback, free port,
throw-away database): both protocol eras, every tool, error results, 401 without a key, and the
monthly quota spent by tool calls exactly as by REST calls."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import mcp.types as types
import orjson
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import engine
from server.mcp.tools import MCP_DEFAULTS
from tests.mcp_live import LiveServer, running_server
from tests.tool_results import tool_error

# The five tools of API.md §8.1 and identify_chord (17), named here (not read from the schema table) so that one that
# stopped being served fails a test instead of dropping out of it.
TOOLS = {"analyze_chord": ("analyze", {"chord": "Dm7b5", "keyContext": "Cm"}),
         "resolve_chord": ("resolve", {"chord": "G13", "octave": 3}),
         "identify_chord": ("identify", {"notes": ["E3", "G3", "B3", "D4"], "key": "C"}),
         "generate_voicing": ("voicing", {"chord": "Cmaj7", "style": "drop2"}),
         "reharmonize": ("reharmonize", {"progression": "Dm7 G7 Cmaj7", "key": "C"}),
         "conduct_band": ("conduct", {"prompt": "medium swing blues in F, 12 bars",
                                      "durationSec": 20})}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with running_server(tmp_path_factory.mktemp("mcp-client"), per_month=1000) as live:
        yield live


def session(live: LiveServer, mode: str, key: str | None, script: Any) -> Any:
    """Run ``script(client)`` with the SDK's client over streamable HTTP, in ``mode``."""
    headers = {"authorization": f"Bearer {key}"} if key else {}

    async def run() -> Any:
        with anyio.fail_after(60):
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
                transport = streamable_http_client(live.url + "/mcp", http_client=http)
                async with Client(transport, mode=mode) as client:
                    return await script(client)
    return anyio.run(run)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_initialize_list_and_call_every_tool(server: LiveServer, mode: str) -> None:
    async def script(client: Client) -> Any:
        listing = await client.list_tools()
        calls = {name: await client.call_tool(name, args) for name, (_, args) in TOOLS.items()}
        return client.protocol_version, client.server_info, listing, calls

    version, info, listing, calls = session(server, mode, server.key, script)
    assert version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert (info.name, info.version) == ("harmony", "0.4.0")  # API.md 8
    assert sorted(t.name for t in listing.tools) == sorted(TOOLS)
    for name, (operation, args) in TOOLS.items():
        result = calls[name]
        assert isinstance(result, types.CallToolResult) and not result.is_error, name
        # the same result as the engine (and REST) for the same arguments, the MCP tool's one
        # default of its own filled in (conduct_band: detail "summary", API.md 7)
        expected = getattr(engine, operation)({**MCP_DEFAULTS.get(operation, ({}, None))[0],
                                               **args})
        assert result.structured_content == orjson.loads(orjson.dumps(expected))
        assert result.content[0].text.encode() == orjson.dumps(expected)  # type: ignore[union-attr]


def test_tools_carry_descriptions_schemas_and_annotations(server: LiveServer) -> None:
    async def script(client: Client) -> Any:
        return await client.list_tools()

    for tool in session(server, "legacy", None, script).tools:
        assert tool.description and tool.description.endswith(".")
        assert tool.input_schema["type"] == "object" and tool.output_schema is not None
        for prop in tool.input_schema["properties"].values():
            assert prop.get("description"), tool.name
        if "key" in tool.input_schema["properties"]:
            assert "keyContext" in tool.input_schema["properties"]
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint and tool.annotations.idempotent_hint


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_engine_errors_are_error_results(server: LiveServer, mode: str) -> None:
    async def script(client: Client) -> Any:
        return (await client.call_tool("analyze_chord", {"chord": "H7"}),
                await client.call_tool("resolve_chord", {"chord": "C", "octave": 12}))

    bad_chord, bad_octave = session(server, mode, server.key, script)
    assert tool_error(bad_chord)["code"] == "invalid_chord"
    assert tool_error(bad_chord)["symbol"] == "H7"
    assert tool_error(bad_octave)["code"] == "invalid_request"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_tools_call_without_a_key_is_refused_but_listing_is_open(server: LiveServer,
                                                                  mode: str) -> None:
    async def script(client: Client) -> Any:
        listing = await client.list_tools()
        with pytest.raises(MCPError) as refused:
            await client.call_tool("analyze_chord", {"chord": "C7"})
        return listing, refused.value

    listing, refused = session(server, mode, None, script)
    assert len(listing.tools) == len(TOOLS)
    assert refused.error.data["code"] == "unauthorized"
    raw = httpx.post(server.url + "/mcp", json={
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "analyze_chord", "arguments": {"chord": "C7"}}}, timeout=30)
    assert raw.status_code == 401 and raw.headers["www-authenticate"].startswith("Bearer")
    assert raw.json()["error"]["data"]["code"] == "unauthorized"


def test_tool_calls_spend_the_rest_quota(server: LiveServer) -> None:
    def used() -> int:
        reply = httpx.post(server.url + "/v2/analyze", json={"chord": "C"}, timeout=30,
                           headers={"authorization": f"Bearer {server.key}"})
        assert reply.status_code == 200
        return int(reply.headers["x-quota-used"])

    async def script(client: Client) -> Any:
        await client.call_tool("analyze_chord", {"chord": "A7"})
        await client.call_tool("resolve_chord", {"chord": "A7"})
        await client.call_tool("analyze_chord", {"chord": "H7"})  # an error: not counted

    before = used()
    session(server, "legacy", server.key, script)
    assert used() == before + 1 + 2
    # calls of no tool or with arguments that are not an object: JSON-RPC -32602, never counted
    for params in ({"name": "nope"}, {"name": "analyze_chord", "arguments": [1]}):
        raw = httpx.post(server.url + "/mcp", json={"jsonrpc": "2.0", "id": 9,
                                                    "method": "tools/call", "params": params},
                         headers={"authorization": f"Bearer {server.key}"}, timeout=30)
        assert raw.status_code == 200 and raw.json()["error"]["code"] == -32602
    assert used() == before + 1 + 2 + 1


def test_http_surface_of_the_route(server: LiveServer) -> None:
    assert httpx.get(server.url + "/mcp", timeout=30).status_code == 405
    assert httpx.get(server.url + "/mcp", timeout=30).headers["allow"] == "POST"
    assert httpx.delete(server.url + "/mcp", timeout=30).status_code == 405
    assert httpx.get(server.url + "/nothing", timeout=30).status_code == 404
    root = httpx.get(server.url + "/", timeout=30)  # API.md 8: 404 pointing to the routes
    assert root.status_code == 404 and "POST /mcp" in root.json()["error"]["message"]
    bad = httpx.post(server.url + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                     headers={"mcp-protocol-version": "2001-01-01"}, timeout=30)
    assert bad.status_code == 400


def test_quota_exhaustion_is_429(tmp_path: Path) -> None:
    with running_server(tmp_path, per_month=1) as live:
        async def script(client: Client) -> Any:
            first = await client.call_tool("analyze_chord", {"chord": "C"})
            with pytest.raises(MCPError) as refused:
                await client.call_tool("analyze_chord", {"chord": "C"})
            return first, refused.value

        first, refused = session(live, "legacy", live.key, script)
        assert not first.is_error
        assert refused.error.data["code"] == "quota_exceeded"
