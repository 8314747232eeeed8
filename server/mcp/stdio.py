"""``harmony-mcp``: the five harmony tools over stdio, with the ``mcp`` SDK's server.

By default the engine runs in-process and offline. With ``HARMONY_BASE_URL`` set, every call goes
to that service's REST route instead (``SERVICE_API_KEY`` as the bearer key, an explicit
User-Agent, since a hosted gateway may refuse library defaults), and the service's error object is
passed through unchanged as the tool's error result.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import mcp_types as types
import orjson
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from engine.errors import InternalError
from engine.version import PACKAGE_VERSION
from server.mcp.tools import McpTool, tool_error, tool_table

USER_AGENT = f"harmony-mcp/{PACKAGE_VERSION}"
Caller = Callable[[McpTool, dict[str, Any]], Awaitable[tuple[dict[str, Any], bool]]]


async def call_in_process(tool: McpTool, arguments: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The engine call; an error becomes ``(error object, True)`` as on /mcp: an engine error as
    it is, anything else ``internal_error`` (its trace to stderr, never to the client)."""
    try:
        return tool.call(arguments), False
    except Exception as exc:
        return tool_error(exc).to_dict(), True


def remote_caller(base_url: str, api_key: str | None, client: httpx.AsyncClient) -> Caller:
    """A caller that POSTs the arguments to the tool's REST route on ``base_url``."""
    headers = {"user-agent": USER_AGENT, "content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    base = base_url.rstrip("/")

    async def call(tool: McpTool, arguments: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        try:
            response = await client.post(base + tool.path, content=orjson.dumps(arguments),
                                         headers=headers)
        except httpx.HTTPError as e:
            return InternalError(f"cannot reach {base}: {type(e).__name__}").to_dict(), True
        try:
            body = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            body = None
        if response.is_success and isinstance(body, dict):
            return body, False
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            return body, True  # the service's own error object, passed through
        return InternalError(f"{base} answered HTTP {response.status_code}").to_dict(), True

    return call


@dataclass(frozen=True)
class Outcome:
    """What a stdio tool call gives: its result or error object, and extra content blocks (the
    audio of a render) after the JSON text."""

    payload: dict[str, Any]
    is_error: bool = False
    extra: tuple[types.ContentBlock, ...] = ()


ToolHandler = Callable[[dict[str, Any]], Awaitable[Outcome]]


def table_handlers(tools: Mapping[str, McpTool], caller: Caller) -> dict[str, ToolHandler]:
    """A handler per tool of the operation table, each running through ``caller``."""
    def handler(tool: McpTool) -> ToolHandler:
        async def call(arguments: dict[str, Any]) -> Outcome:
            return Outcome(*await caller(tool, arguments))
        return call
    return {name: handler(tool) for name, tool in tools.items()}


def build_server(tools: Mapping[str, McpTool], caller: Caller) -> Server[Any]:
    """``harmony-mcp``: the SDK's low-level server over the shared tool table."""
    return build_stdio_server(
        "harmony", "Harmony engine: chord analysis, chord tones, voicings, reharmonisation and "
        "band arrangements, computed deterministically from chord symbols and keys.",
        [t.descriptor for t in tools.values()], table_handlers(tools, caller))


def build_stdio_server(name: str, instructions: str, descriptors: list[dict[str, Any]],
                       handlers: Mapping[str, ToolHandler]) -> Server[Any]:
    """An SDK low-level server listing ``descriptors`` and calling ``handlers`` by tool name;
    an exception a handler lets through becomes a tool error (``tool_error``)."""
    listing = [types.Tool.model_validate(d) for d in descriptors]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        handler = handlers.get(params.name)
        if handler is None:
            error = {"error": {"code": "invalid_request",
                               "message": f"unknown tool {params.name!r}", "field": "name"}}
            return _result(Outcome(error, True))
        try:
            outcome = await handler(dict(params.arguments or {}))
        except Exception as exc:
            outcome = Outcome(tool_error(exc).to_dict(), True)
        return _result(outcome)

    return Server(name, version=PACKAGE_VERSION, instructions=instructions,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def _result(outcome: Outcome) -> types.CallToolResult:
    text = orjson.dumps(outcome.payload).decode()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text), *outcome.extra],
        structured_content=outcome.payload, is_error=outcome.is_error)


async def run_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve(env: Mapping[str, str]) -> None:
    tools = tool_table()
    base_url = env.get("HARMONY_BASE_URL")
    async with httpx.AsyncClient(timeout=30.0) as client:
        caller = (remote_caller(base_url, env.get("SERVICE_API_KEY"), client) if base_url
                  else call_in_process)
        await run_stdio(build_server(tools, caller))


def preamble(name: str, what: str, argv: list[str] | None = None) -> None:
    """``--help`` and ``--version`` answered and the process ended; on a terminal, a line on
    stderr saying this is a server waiting for an MCP client (stdout stays JSON-RPC only)."""
    args = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in args):
        print(f"usage: {name} [--help] [--version]\n\n{what}\n\nAn MCP server over stdio: "
              "an MCP client starts it, e.g.\n"
              f'  {{"mcpServers": {{"harmony": {{"command": "{sys.argv[0]}"}}}}}}\n\n'
              "environment: HARMONY_BASE_URL and SERVICE_API_KEY (proxy to a running service "
              "instead of the engine in-process)")
        raise SystemExit(0)
    if "--version" in args:
        print(f"{name} {PACKAGE_VERSION}")
        raise SystemExit(0)
    if args:
        print(f"{name}: unknown arguments {' '.join(args)} (see {name} --help)", file=sys.stderr)
        raise SystemExit(2)
    if sys.stdin.isatty():
        print(f"{name}: an MCP server over stdio, waiting for a client's JSON-RPC on stdin "
              "(Ctrl-D or Ctrl-C to stop; --help shows how to configure a client)",
              file=sys.stderr)


def main() -> None:
    preamble("harmony-mcp", "The five harmony tools: analyze_chord, resolve_chord, "
             "generate_voicing, reharmonize, conduct_band.")
    anyio.run(serve, dict(os.environ))


if __name__ == "__main__":
    main()
