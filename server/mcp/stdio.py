"""``harmony-mcp``: the five harmony tools over stdio, with the ``mcp`` SDK's server; and what the
three stdio servers share (``docs/mcp-stdio.md``):

- a tool result a TypeScript client shows: an error is ``isError`` with one text content carrying
  the code, the message and the details (field, symbol, ...) then the error JSON, and no
  ``structuredContent`` (the TS SDK client validates it against the tool's ``outputSchema``); a
  success keeps ``structuredContent`` = the result and the text = that JSON under 8 KB, else an
  abbreviated copy with a note (``answer_text``);
- arguments a tool does not take are ``invalid_request`` naming the argument and the ones it
  takes (``check_arguments``); input schemas without a top-level ``oneOf``/``anyOf``/``allOf``/
  ``not``/``if`` (``client_schema``);
- engine work off the event loop, so a long call never stops the server answering ``ping``, with
  ``notifications/progress`` when the client gave a ``progressToken`` (``Call``);
- ``conduct_band`` as an assistant wants it: ``detail`` ``"summary"`` by default (no ``lanes`` or
  ``midi``), the MIDI written to ``midiPath`` when asked (``conduct_tool``).

By default the engine runs in-process and offline. With ``HARMONY_BASE_URL`` set, every call goes
to that service's REST route instead (``SERVICE_API_KEY`` as the bearer key, an explicit
User-Agent, since a hosted gateway may refuse library defaults), and the service's error object is
passed through unchanged as the tool's error result.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import copy
import difflib
import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

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
from server.mcp.tools import McpTool, tool_error, tool_table

USER_AGENT = f"harmony-mcp/{PACKAGE_VERSION}"
TEXT_BUDGET = 8 * 1024          # bytes of a text content (and of a default call's structuredContent)
HEARTBEAT = 1.0                 # seconds between progress notifications of a long engine call
TOP_LEVEL_REFUSED = ("oneOf", "anyOf", "allOf", "not", "if", "then", "else")
ERROR_DETAILS = ("field", "symbol", "index", "operation", "path", "retryAfter")
T = TypeVar("T")
Report = Callable[[float, float | None, str | None], Awaitable[None]]


class Call:
    """One tool call as its handler sees it: progress notifications (sent only when the client
    gave a ``progressToken``; each one's ``progress`` above the one before) and ``work``, which
    runs engine code on a worker thread so the event loop keeps answering ``ping``."""

    def __init__(self, report: Report | None = None) -> None:
        self._report = report
        self._last = -1.0
        self._total: float | None = None

    async def progress(self, done: float, total: float | None, message: str) -> None:
        if self._report is None or done <= self._last:
            return
        self._last, self._total = done, total
        with contextlib.suppress(Exception):  # one that cannot be sent never fails the call
            await self._report(done, total, message)

    async def work(self, fn: Callable[[], T], *, step: float = 0, total: float = 1,
                   message: str = "working") -> T:
        """``fn()`` on a worker thread, with progress as ``during`` sends it."""
        return await self.during(lambda: anyio.to_thread.run_sync(fn), step=step, total=total,
                                 message=message)

    async def during(self, start: Callable[[], Awaitable[T]], *, step: float = 0,
                     total: float = 1, message: str = "working") -> T:
        """Await ``start()`` (engine work on a thread, a call to the service); progress
        ``step``/``total`` now, then every ``HEARTBEAT`` seconds a little nearer ``step + 1``
        (never reaching it) with the seconds spent, until it returns."""
        await self.progress(step, total, message)
        outcome: list[Any] = []
        async with anyio.create_task_group() as group:
            async def beat() -> None:
                beats = 0
                while True:
                    await anyio.sleep(HEARTBEAT)
                    beats += 1
                    await self.progress(step + 1 - 0.5 ** beats, total,
                                        f"{message} ({beats * HEARTBEAT:g} s)")

            if self._report is not None:
                group.start_soon(beat)
            try:
                outcome.append((await start(), None))
            except Exception as exc:
                outcome.append((None, exc))
            group.cancel_scope.cancel()
        value, error = outcome[0]
        if error is not None:
            raise error
        result: T = value
        return result

    async def finish(self) -> None:
        """The last notification (progress = total), when any was sent."""
        if self._last >= 0 and self._total is not None:
            await self.progress(self._total, self._total, "done")


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
        try:
            response = await (call or Call()).during(
                lambda: client.post(base + tool.path, content=orjson.dumps(arguments),
                                    headers=headers),
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


@dataclass(frozen=True)
class Outcome:
    """What a stdio tool call gives: its result or error object, and extra content blocks (the
    audio of a render) after the text."""

    payload: dict[str, Any]
    is_error: bool = False
    extra: tuple[types.ContentBlock, ...] = ()


ToolHandler = Callable[[dict[str, Any], Call], Awaitable[Outcome]]
Summary = Callable[[dict[str, Any]], dict[str, Any]]


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
    return {name: conduct_tool(tool, caller) if name == "conduct_band"
            else StdioTool(tool.descriptor, handler(tool)) for name, tool in tools.items()}


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


# ---------------------------------------------------------------- results as clients show them


def error_text(body: dict[str, Any]) -> str:
    """``invalid_chord: cannot parse chord symbol 'H7' (symbol 'H7')`` and the error JSON on the
    next line: the code, the message and the details a model needs to fix its call."""
    found = body.get("error")
    error: dict[str, Any] = found if isinstance(found, dict) else {}
    head = f"{error.get('code', 'internal_error')}: {error.get('message', 'error')}"
    details = [f"{k} {error[k]!r}" for k in ERROR_DETAILS if error.get(k) not in (None, "")]
    if details:
        head += f" ({', '.join(details)})"
    return head + "\n" + orjson.dumps(body).decode()


def _abbreviated(value: Any, items: int, chars: int) -> Any:
    if isinstance(value, dict):
        return {k: _abbreviated(v, items, chars) for k, v in value.items()}
    if isinstance(value, list):
        head = [_abbreviated(v, items, chars) for v in value[:items]]
        return head + ([f"... {len(value) - items} more"] if len(value) > items else [])
    if isinstance(value, str) and len(value) > chars:
        return value[:chars] + f"... ({len(value):,} characters)"
    return value


def answer_text(payload: dict[str, Any], summary: Summary | None = None) -> str:
    """The text content of a result: its JSON when under ``TEXT_BUDGET`` bytes; else a note
    (the whole result is in structuredContent) and the tool's summary, lists and long strings
    cut shorter until it fits."""
    whole = orjson.dumps(payload)
    if len(whole) <= TEXT_BUDGET:
        return whole.decode()
    shown = summary(payload) if summary else payload
    for items, chars in ((64, 4000), (32, 2000), (16, 1000), (8, 500), (4, 200), (2, 100),
                         (1, 60), (0, 40)):
        note = (f"The result is {len(whole):,} bytes; abbreviated here (lists cut to their "
                f"first {items}, long strings to {chars} characters). The whole result is the "
                "structured content.\n")
        text = note + orjson.dumps(_abbreviated(shown, items, chars)).decode()
        if len(text.encode()) <= TEXT_BUDGET:
            return text
    keys = ", ".join(payload)[: TEXT_BUDGET // 2]
    return (f"The result is {len(whole):,} bytes with the keys {keys}; "
            "the whole result is the structured content.")


def tool_result(outcome: Outcome, summary: Summary | None = None) -> types.CallToolResult:
    if outcome.is_error:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=error_text(outcome.payload))],
            is_error=True)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=answer_text(outcome.payload, summary)),
                 *outcome.extra],
        structured_content=outcome.payload, is_error=False)


# ---------------------------------------------------------------- schemas and arguments


def client_schema(descriptor: dict[str, Any]) -> dict[str, Any]:
    """``descriptor`` with an input schema every major client accepts: ``type: object`` at the
    top and no top-level ``oneOf``/``anyOf``/``allOf``/``not``/``if`` (the Anthropic API refuses
    the whole tool list otherwise; the handlers check the alternatives)."""
    out = copy.deepcopy(descriptor)
    schema = {k: v for k, v in out.get("inputSchema", {}).items() if k not in TOP_LEVEL_REFUSED}
    schema["type"] = "object"
    schema.setdefault("properties", {})
    out["inputSchema"] = schema
    return out


def check_arguments(descriptor: dict[str, Any], arguments: Mapping[str, Any]) -> None:
    """An argument the tool does not take is ``invalid_request`` naming it (and the nearest one
    it takes) and listing those it takes: a misspelt ``Key`` never silently analyses in C."""
    known = list(descriptor["inputSchema"].get("properties", {}))
    for name in arguments:
        if name in known:
            continue
        near = [k for k in known if k.lower() == name.lower()] or \
            difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise InvalidRequest(f"unknown argument {name!r}{hint}; {descriptor['name']} takes "
                             f"{', '.join(known) or 'no arguments'}", field=name)


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
    preamble("harmony-mcp", "The five harmony tools: analyze_chord, resolve_chord, "
             "generate_voicing, reharmonize, conduct_band.")
    anyio.run(serve, dict(os.environ))


if __name__ == "__main__":
    main()
