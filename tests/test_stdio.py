"""``harmony-mcp`` as a subprocess, driven by the SDK's stdio client: in-process (the default,
offline) and as a proxy to a running ``harmony serve`` (``HARMONY_BASE_URL``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest
from mcp import Client, StdioServerParameters

import engine
from server.api.schemas import OPERATIONS
from tests.mcp_live import LiveServer, running_server

HARMONY_MCP = str(Path(sys.executable).parent / "harmony-mcp")
# The five tools of API.md §8.3, named here so that one that stopped being served fails a test.
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
def test_in_process_serves_the_tools_offline(mode: str) -> None:
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
    # the proxied success spent one call of the key's monthly quota, the error none
    rest = httpx.post(server.url + "/v2/resolve", json={"chord": "C"},
                      headers={"authorization": f"Bearer {server.key}"})
    assert rest.headers["x-quota-used"] == "2"


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


def test_proxy_requests_carry_the_key_and_an_explicit_user_agent() -> None:
    from server.mcp.stdio import USER_AGENT, remote_caller
    from server.mcp.tools import McpTool

    seen: list[httpx.Request] = []

    def service(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/v2/analyze":
            return httpx.Response(400, json={"error": {"code": "invalid_chord",
                                                       "message": "no", "symbol": "H"}})
        return httpx.Response(200, json={"chord": "C"})

    tools = [McpTool(name, op, path, lambda args: {}, {})
             for name, op, path in (("analyze_chord", "analyze", "/v2/analyze"),
                                    ("resolve_chord", "resolve", "/v2/resolve"))]

    async def run() -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(service)) as client:
            call = remote_caller("http://svc.test/", "hk_live_k", client)
            return [await call(tool, {"chord": "H"}) for tool in tools]

    (error, failed), (result, ok) = anyio.run(run)
    assert failed and error == {"error": {"code": "invalid_chord", "message": "no",
                                          "symbol": "H"}}
    assert not ok and result == {"chord": "C"}
    assert [str(r.url) for r in seen] == ["http://svc.test/v2/analyze",
                                          "http://svc.test/v2/resolve"]
    assert all(r.headers["user-agent"] == USER_AGENT and
               r.headers["authorization"] == "Bearer hk_live_k" for r in seen)
    assert orjson.loads(seen[0].content) == {"chord": "H"}


def test_in_process_reports_a_bug_as_an_internal_error_result(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    import dataclasses

    from server.mcp.stdio import call_in_process
    from server.mcp.tools import tool_table

    def broken(request: Any) -> dict[str, Any]:
        raise RuntimeError("a bug at /srv/secret")

    monkeypatch.setitem(OPERATIONS, "resolve",
                        dataclasses.replace(OPERATIONS["resolve"], impl=broken))
    tool = tool_table()["resolve_chord"]
    error, failed = anyio.run(call_in_process, tool, {"chord": "C"})
    request_id = error["error"].pop("requestId")
    assert failed and error == {"error": {"code": "internal_error", "message": "internal error"}}
    logged = capsys.readouterr().err  # one line on the server's stderr, never to the client
    assert "/srv/secret" in logged and f"internal error {request_id}" in logged
    # an engine error is still passed as it is
    error, failed = anyio.run(call_in_process, tool_table()["analyze_chord"], {"chord": "H7"})
    assert failed and error["error"]["code"] == "invalid_chord"
