"""``harmony-mcp``: the harmony tools over stdio (the five of /mcp and identify_chord), with the ``mcp`` SDK's server; and the
server the three stdio servers share (``build_stdio_server``, ``docs/mcp-stdio.md``): each call's
arguments checked and its result shaped as the clients people run show it
(``server.mcp.results``), its engine work off the event loop with progress notifications
(``server.mcp.progress``); ``conduct_band`` as an assistant wants it, ``detail`` ``"summary"`` by
default (no ``lanes`` or ``midi``) and the MIDI written to ``midiPath`` when asked
(``conduct_tool``).

By default the engine runs in-process and offline. With ``HARMONY_BASE_URL`` set, every call goes
to that service's REST route instead (``SERVICE_API_KEY`` as the bearer key, an explicit
User-Agent, since a hosted gateway may refuse library defaults), and the service's error object is
passed through unchanged as the tool's error result.
"""

from __future__ import annotations

import base64
import binascii
import copy
import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
import httpx
import mcp_types as types
import orjson
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from engine.errors import InternalError, InvalidRequest
from engine.version import PACKAGE_VERSION
from server.mcp.files import write_user_file
from server.mcp.progress import Call
from server.mcp.results import (
    Outcome,
    Summary,
    check_arguments,
    client_schema,
    tool_result,
)
from server.mcp.tools import McpTool, tool_error, tool_table

USER_AGENT = f"harmony-mcp/{PACKAGE_VERSION}"
Caller = Callable[[McpTool, dict[str, Any], Call], Awaitable[tuple[dict[str, Any], bool]]]


async def call_in_process(tool: McpTool, arguments: dict[str, Any],
                          call: Call | None = None) -> tuple[dict[str, Any], bool]:
    """The engine call on a worker thread; an error becomes ``(error object, True)`` as on /mcp:
    an engine error as it is, anything else ``internal_error`` (its trace to stderr, never to the
    client)."""
    try:
        return await (call or Call()).work(lambda: tool.call(arguments),
                                           message=f"{tool.name}: computing"), False
    except Exception as exc:
        return tool_error(exc).to_dict(), True


def remote_caller(base_url: str, api_key: str | None, client: httpx.AsyncClient) -> Caller:
    """A caller that POSTs the arguments to the tool's REST route on ``base_url``."""
    headers = {"user-agent": USER_AGENT, "content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    base = base_url.rstrip("/")

    async def post(tool: McpTool, arguments: dict[str, Any],
                   call: Call | None = None) -> tuple[dict[str, Any], bool]:
        request = orjson.dumps(tool.arguments(arguments))  # the tool's defaults, as in process
        try:
            response = await (call or Call()).during(
                lambda: client.post(base + tool.path, content=request, headers=headers),
                message=f"{tool.name}: calling {base}")
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

    return post


ToolHandler = Callable[[dict[str, Any], Call], Awaitable[Outcome]]


@dataclass(frozen=True)
class StdioTool:
    """A tool of a stdio server: its ``tools/list`` entry, its handler and, for a result whose
    JSON may pass ``TEXT_BUDGET``, how its text is made shorter before the generic abbreviation
    (``answer_text``)."""

    descriptor: dict[str, Any]
    handler: ToolHandler
    summary: Summary | None = None
    name: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.descriptor["name"])


def table_tools(tools: Mapping[str, McpTool], caller: Caller) -> dict[str, StdioTool]:
    """A stdio tool per tool of the operation table, each running through ``caller``;
    ``conduct_band`` as ``conduct_tool`` makes it."""
    def handler(tool: McpTool) -> ToolHandler:
        async def handle(arguments: dict[str, Any], call: Call) -> Outcome:
            return Outcome(*await caller(tool, arguments, call))
        return handle
    special = {"conduct_band": conduct_tool, "identify_chord": identify_tool}
    return {name: special[name](tool, caller) if name in special
            else StdioTool(tool.descriptor, handler(tool)) for name, tool in tools.items()}


# ---------------------------------------------------------------- identify_chord on stdio

IDENTIFY_PATH = {"type": "string", "description": "A MIDI file (.mid, .midi) or a MusicXML "
                 "file (.musicxml, .xml, or compressed .mxl) on this machine, at most 1 MiB, "
                 "to read as an analysed chord chart, in place of 'notes'."}
MAX_FILE = 1 << 20


def identify_tool(tool: McpTool, caller: Caller) -> StdioTool:
    """``identify_chord`` as the stdio server serves it: also a file ``path`` on this machine,
    read here and sent as ``midi`` (base64) or ``musicxml``."""
    descriptor = copy.deepcopy(tool.descriptor)
    descriptor["inputSchema"]["properties"] = {**descriptor["inputSchema"]["properties"],
                                               "path": IDENTIFY_PATH}
    descriptor["description"] += (" Over stdio, 'path' reads a MIDI or MusicXML file on this "
                                   "machine: the answer is its chord chart, key and lead sheet.")

    async def handle(arguments: dict[str, Any], call: Call) -> Outcome:
        args = dict(arguments)
        target = args.pop("path", None)
        if target is not None:
            args.update(read_music_file(target))
        return Outcome(*await caller(tool, args, call))

    return StdioTool(descriptor, handle)


def read_music_file(target: Any) -> dict[str, str]:
    """``{"midi": base64}`` or ``{"musicxml": text}`` of the file at ``target`` (by suffix; a
    compressed MusicXML file unpacked)."""
    from pathlib import Path

    if not isinstance(target, str) or not target.strip():
        raise InvalidRequest("'path' must be a file name", field="path")
    path = Path(target).expanduser()
    try:
        if path.stat().st_size > MAX_FILE:
            raise InvalidRequest(f"{target!r} is larger than 1 MiB", field="path")
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidRequest(f"cannot read {target!r}: {exc.strerror}", field="path") from None
    from engine.identify import music_request

    return music_request(data, path.name, field="path")


# ---------------------------------------------------------------- conduct_band on stdio

CONDUCT_DESCRIPTION = (
    "Arrange a direction in plain English for a jazz band (comping, a pattern lane, bass and "
    "drums): answers the tempo, key, form, the chords bar by bar (leadSheet) and which words "
    "chose what. Pick it to hear how a style, form or set of changes plays as a band; for "
    "harmony alone use reharmonize or generate_voicing; for audio use render_audio "
    "(harmony-conductor), which conducts and renders in one call. Main arguments: prompt "
    "(style, tempo, key, form, feel), durationSec (5-900), progression (your own changes, '|' "
    "between bars), seed. The answer is a summary without the note events and the MIDI "
    "(detail 'full' adds them: ~150 KB for 2 minutes); midiPath writes the MIDI file here. "
    'Example: {"prompt": "medium swing blues in F, walking bass", "durationSec": 60, '
    '"midiPath": "blues.mid"}')
CONDUCT_OPTIONS = {
    "detail": {"type": "string", "enum": ["summary", "full"],
               "description": "'summary' (the default here): the result without 'lanes' and "
                              "'midi'; 'full': with the four lanes' note events and the base64 "
                              "MIDI (large: ~150 KB for 2 minutes)."},
    "midiPath": {"type": "string", "description": "Write the arrangement's Standard MIDI File "
                 "to this file on this machine (its folder must exist); the answer's midiPath "
                 "is where it went. An existing file is an error unless overwrite is true."},
    "overwrite": {"type": "boolean",
                  "description": "Replace an existing midiPath file. Default false."},
}
HEAVY = ("lanes", "midi")


def conduct_descriptor(descriptor: dict[str, Any]) -> dict[str, Any]:
    """The table's ``conduct_band`` as the stdio servers serve it: ``detail`` defaulting to
    ``"summary"``, ``midiPath`` and ``overwrite``; its output schema allows both shapes."""
    out = copy.deepcopy(descriptor)
    out["description"] = CONDUCT_DESCRIPTION
    schema = out["inputSchema"]
    schema["properties"] = {**schema["properties"], **CONDUCT_OPTIONS}
    result = out["outputSchema"]
    result["properties"] = {**result["properties"], "midiPath": {
        "type": "string", "description": "The MIDI file written (when midiPath was given)."}}
    result["required"] = [k for k in result.get("required", []) if k not in HEAVY]
    return out


def conduct_summary(result: dict[str, Any]) -> dict[str, Any]:
    """conduct_band's text when its JSON passes the budget: lanes as their counts, the MIDI as
    its size, the chords as their count (leadSheet shows them bar by bar)."""
    out = dict(result)
    if isinstance(out.get("lanes"), dict):
        out["lanes"] = {k: f"{len(v)} note events (in structuredContent)"
                        for k, v in out["lanes"].items()}
    if isinstance(out.get("midi"), str):
        out["midi"] = (f"base64 Standard MIDI File of {len(out['midi']) * 3 // 4:,} bytes (in "
                       "structuredContent; midiPath writes it to a file)")
    if isinstance(out.get("chords"), list):
        out["chords"] = (f"{len(out['chords'])} changes (in structuredContent; leadSheet shows "
                         "them bar by bar)")
    return out


def conduct_tool(tool: McpTool, caller: Caller) -> StdioTool:
    async def handle(arguments: dict[str, Any], call: Call) -> Outcome:
        args = dict(arguments)
        detail = args.pop("detail", None)
        if detail not in (None, "summary", "full"):
            raise InvalidRequest("'detail' must be 'summary' or 'full'", field="detail")
        target = args.pop("midiPath", None)
        if target is not None and (not isinstance(target, str) or not target.strip()):
            raise InvalidRequest("'midiPath' must be a file name", field="midiPath")
        overwrite = args.pop("overwrite", None)
        if overwrite is not None and not isinstance(overwrite, bool):
            raise InvalidRequest("'overwrite' must be true or false", field="overwrite")
        # the engine (or the service) leaves out the lanes and the MIDI when neither is wanted
        args["detail"] = "full" if detail == "full" or target is not None else "summary"
        payload, failed = await caller(tool, args, call)
        if failed:
            return Outcome(payload, True)
        if target is not None:
            try:
                midi = base64.b64decode(payload["midi"], validate=True)
            except (KeyError, TypeError, binascii.Error):
                raise InternalError("the arrangement came without its MIDI") from None
            written = write_user_file(target, midi, bool(overwrite), "midiPath")
            payload = {**payload, "midiPath": str(written)}
        if detail != "full":
            payload = {k: v for k, v in payload.items() if k not in HEAVY}
        return Outcome(payload)

    return StdioTool(conduct_descriptor(tool.descriptor), handle, conduct_summary)


# ---------------------------------------------------------------- the server


def build_stdio_server(name: str, instructions: str, tools: Sequence[StdioTool]) -> Server[Any]:
    """An SDK low-level server listing ``tools`` (``client_schema``) and calling them by name,
    each call's arguments checked first; an exception a handler lets through becomes a tool
    error (``tool_error``)."""
    served = {t.name: (client_schema(t.descriptor), t) for t in tools}
    listing = [types.Tool.model_validate(d) for d, _ in served.values()]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        entry = served.get(params.name)
        if entry is None:
            return tool_result(Outcome(InvalidRequest(
                f"unknown tool {params.name!r}; this server has {', '.join(served)}",
                field="name").to_dict(), True))
        descriptor, tool = entry
        call = Call(ctx.session.report_progress)
        try:
            arguments = dict(params.arguments or {})
            check_arguments(descriptor, arguments)
            outcome = await tool.handler(arguments, call)
        except Exception as exc:
            outcome = Outcome(tool_error(exc).to_dict(), True)
        await call.finish()
        return tool_result(outcome, tool.summary)

    return Server(name, version=PACKAGE_VERSION, instructions=instructions,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def build_server(tools: Mapping[str, McpTool], caller: Caller) -> Server[Any]:
    """``harmony-mcp``: the SDK's low-level server over the shared tool table."""
    return build_stdio_server(
        "harmony", "Harmony engine: chord analysis, chord tones, voicings, reharmonisation and "
        "band arrangements, computed deterministically from chord symbols and keys. Errors say "
        "what to fix: the code, the message and the argument at fault.",
        list(table_tools(tools, caller).values()))


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


def preamble(name: str, what: str, argv: list[str] | None = None, env_help: str = "") -> None:
    """``--help`` and ``--version`` answered and the process ended; on a terminal, a line on
    stderr saying this is a server waiting for an MCP client (stdout stays JSON-RPC only)."""
    args = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in args):
        print(f"usage: {name} [--help] [--version]\n\n{what}\n\nAn MCP server over stdio: "
              "an MCP client starts it, e.g.\n"
              f'  {{"mcpServers": {{"harmony": {{"command": "{sys.argv[0]}"}}}}}}\n\n'
              "environment: HARMONY_BASE_URL and SERVICE_API_KEY (proxy to a running service "
              f"instead of the engine in-process){env_help}")
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
    preamble("harmony-mcp", "The harmony tools: analyze_chord, resolve_chord, "
             "generate_voicing, reharmonize, conduct_band, identify_chord.")
    anyio.run(serve, dict(os.environ))


if __name__ == "__main__":
    main()
