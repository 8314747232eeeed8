"""``harmony-mcp`` as a subprocess, driven by the SDK's stdio client: in-process (the default,
offline) and as a proxy to a running ``harmony serve`` (``HARMONY_BASE_URL``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from mcp import Client, StdioServerParameters

import engine
from tests.mcp_live import LiveServer, running_server

HARMONY_MCP = str(Path(sys.executable).parent / "harmony-mcp")
TOOLS = ["analyze_chord", "conduct_band", "generate_voicing", "reharmonize", "resolve_chord"]


def stdio(env: dict[str, str], script: Any, mode: str = "auto") -> Any:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("HARMONY_BASE_URL", "SERVICE_API_KEY")}
    params = StdioServerParameters(command=HARMONY_MCP, env={**clean, **env})

    async def run() -> Any:
        with anyio.fail_after(60):
            async with Client(params, mode=mode) as client:
                return await script(client)
    return anyio.run(run)


async def analyze_twice(client: Client) -> Any:
    listing = await client.list_tools()
    good = await client.call_tool("analyze_chord", {"chord": "Bb7", "keyContext": "F"})
    bad = await client.call_tool("analyze_chord", {"chord": "Bb7", "key": "F lydian"})
    return listing, good, bad


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_in_process_serves_the_five_tools_offline(mode: str) -> None:
    listing, good, bad = stdio({}, analyze_twice, mode)
    assert sorted(t.name for t in listing.tools) == TOOLS
    assert all(t.output_schema and t.annotations for t in listing.tools)
    expected = engine.analyze({"chord": "Bb7", "keyContext": "F"})
    assert not good.is_error
    assert good.structured_content == orjson.loads(orjson.dumps(expected))
    assert good.content[0].text.encode() == orjson.dumps(expected)
    assert bad.is_error and bad.structured_content["error"]["code"] == "invalid_key"
    assert "use key C" in bad.structured_content["error"]["message"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with running_server(tmp_path_factory.mktemp("stdio-proxy")) as live:
        yield live


def test_proxy_mode_calls_the_service_with_the_key(server: LiveServer) -> None:
    env = {"HARMONY_BASE_URL": server.url, "SERVICE_API_KEY": server.key or ""}
    listing, good, bad = stdio(env, analyze_twice)
    assert sorted(t.name for t in listing.tools) == TOOLS
    assert good.structured_content == orjson.loads(orjson.dumps(
        engine.analyze({"chord": "Bb7", "keyContext": "F"})))
    assert bad.is_error and bad.structured_content["error"]["code"] == "invalid_key"
    usage = server.harmony("usage", "--account", "mcp-test")
    assert "analyze" in usage


def test_proxy_mode_passes_service_errors_through(server: LiveServer) -> None:
    env = {"HARMONY_BASE_URL": server.url, "SERVICE_API_KEY": "hk_live_" + "x" * 40}

    async def script(client: Client) -> Any:
        return await client.call_tool("resolve_chord", {"chord": "C"})

    refused = stdio(env, script)
    assert refused.is_error
    assert refused.structured_content["error"]["code"] == "unauthorized"


def test_proxy_mode_reports_an_unreachable_service() -> None:
    from tests.mcp_live import free_port

    env = {"HARMONY_BASE_URL": f"http://127.0.0.1:{free_port()}", "SERVICE_API_KEY": "k"}

    async def script(client: Client) -> Any:
        return await client.call_tool("resolve_chord", {"chord": "C"})

    failed = stdio(env, script)
    assert failed.is_error and failed.structured_content["error"]["code"] == "internal_error"
    assert "cannot reach" in failed.structured_content["error"]["message"]
