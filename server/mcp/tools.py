"""The tool table of the MCP servers: each tool is a REST operation of the one schema table
(``server.api.schemas``), its ``tools/list`` entry and its engine call, shared by ``POST /mcp``
(``server.mcp.endpoint``) and the stdio server (``server.mcp.stdio``); and ``tool_error``, how any exception
becomes the error object of a tool result on both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import orjson

from engine.errors import HarmonyError
from server.api import OPERATIONS, Operation, answerer, internal_error, run_operation
from server.mcp.guides import TOOL_GUIDES
from server.mcp.portable import portable

# API.md 7: the one default that differs by surface. Assistants read the whole answer, so the
# MCP tools answer a summary unless 'detail' is given (REST and Python: "full"): conduct_band
# always, analyze_chord when it is given a progression (operation -> (defaults, the argument
# that calls for them, or None for every call)).
MCP_DEFAULTS: dict[str, tuple[dict[str, Any], str | None]] = {
    "conduct": ({"detail": "summary"}, None),
    "analyze": ({"detail": "summary"}, "progression"),
}
# API.md 8.1: the text content is the result's JSON up to this size, else an abbreviation.
TEXT_LIMIT = 8192


@dataclass(frozen=True, slots=True)
class McpTool:
    """One tool: the REST operation it runs, the engine call and its ``tools/list`` entry."""

    name: str
    operation: str
    path: str
    call: Callable[[dict[str, Any]], dict[str, Any]]
    descriptor: dict[str, Any]
    # Encoded arguments -> encoded result: REST's answerer (``server.api.calls.answerer``), with
    # the same kept answers for analyze and resolve, so a repeated call skips the engine.
    # Without it, ``call`` runs and its result is encoded.
    answer: Callable[[bytes], bytes] | None = None
    # REST keeps this operation's answers (``Operation.cache``): /mcp may keep a call's result
    # too, once answered without an error (``server.mcp.endpoint``'s kept calls).
    kept: bool = False
    # Arguments the MCP tool fills when absent or null (``MCP_DEFAULTS``), and the argument
    # whose presence calls for them (None: every call).
    defaults: Mapping[str, Any] | None = None
    trigger: str | None = None

    def result(self, encoded: bytes) -> bytes:
        """The result JSON of a call whose arguments are ``encoded`` (JSON bytes): decoded
        afresh for ``call``, so no arguments object is shared between calls (``/mcp`` keeps a
        call's encoded arguments for its next request, ``server.mcp.endpoint``)."""
        if self.defaults and (self.trigger is None or b'"%s"' % self.trigger.encode()
                              in encoded):  # ``call`` fills them in
            return orjson.dumps(self.call(orjson.loads(encoded)))
        if self.answer is not None:
            return self.answer(encoded)
        return orjson.dumps(self.call(orjson.loads(encoded)))

    def arguments(self, arguments: Any) -> Any:
        """``arguments`` with the tool's MCP defaults filled in (a new dict; anything but an
        object is left for the engine to refuse)."""
        if not self.defaults or not isinstance(arguments, dict) or \
                (self.trigger is not None and arguments.get(self.trigger) is None):
            return arguments
        return {**arguments, **{k: v for k, v in self.defaults.items()
                                if arguments.get(k) is None}}


_ANNOTATIONS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                "openWorldHint": False}


def tool_table(operations: Iterable[Operation] | None = None,
               answers: Mapping[str, Callable[[bytes], bytes]] | None = None
               ) -> dict[str, McpTool]:
    """The tools of the service's one schema table (``server.api.schemas``), each validated and run
    exactly as its REST route does (``server.api.calls.run_operation``). Operations whose engine
    function has not landed are left out, as REST leaves out their routes. ``answers`` (by
    operation name) lets the tools share the REST routes' answerers and their kept answers."""
    tools = {}
    chosen = [op for op in OPERATIONS.values() if op.hosted_tool] if operations is None \
        else operations
    for op in chosen:
        if not op.available:
            continue
        title = op.tool.replace("_", " ").capitalize()
        defaults, trigger = MCP_DEFAULTS.get(op.name, (None, None))
        call: Callable[[Any], dict[str, Any]] = partial(run_operation, op)
        if defaults:
            call = _defaulted(call, defaults, trigger)
        tools[op.tool] = McpTool(op.tool, op.name, op.path, call, {
            "name": op.tool, "title": title,
            "description": TOOL_GUIDES.get(op.tool, op.description),
            "inputSchema": portable(op.request_schema), "outputSchema": op.result_schema,
            "annotations": {"title": title, **_ANNOTATIONS}},
            (answers or {}).get(op.name) or answerer(op), op.cache > 0, defaults, trigger)
    return tools


def _defaulted(call: Callable[[Any], dict[str, Any]], defaults: Mapping[str, Any],
               trigger: str | None) -> Callable[[Any], dict[str, Any]]:
    """``call`` with the MCP tool's defaults filled into its arguments (a new dict), when
    ``trigger`` is None or given."""
    def with_defaults(arguments: Any) -> dict[str, Any]:
        if isinstance(arguments, dict) and (trigger is None or
                                            arguments.get(trigger) is not None):
            arguments = {**arguments, **{k: v for k, v in defaults.items()
                                         if arguments.get(k) is None}}
        return call(arguments)
    return with_defaults


def error_text(error: Mapping[str, Any]) -> str:
    """The text content of a failed call (API.md 8.1): a line a person or a model reads at once
    (code, message, then the details: field, symbol, index), then the error object as JSON.
    Clients show this text; no ``structuredContent`` goes with it (it would not match the
    tool's ``outputSchema``, and the TypeScript SDK's client then drops the whole result)."""
    body = error.get("error", error)
    details = ", ".join(f"{k} {v!r}" for k, v in body.items() if k not in ("code", "message"))
    line = f"Error {body.get('code', 'internal_error')}: {body.get('message', '')}"
    return line + (f" ({details})" if details else "") + "\n" + \
        orjson.dumps({"error": body}).decode()


def result_text(payload: bytes) -> str:
    """The text content of a successful call: the result's JSON when it is at most
    ``TEXT_LIMIT`` bytes; else the same JSON with its largest members abbreviated (each
    replaced by a note of its size) under a first line saying the whole result is in
    ``structuredContent``. Documented in docs/mcp.md ("Answers sized for a model")."""
    if len(payload) <= TEXT_LIMIT:
        return payload.decode()
    value = orjson.loads(payload)
    head = (f"The full result ({len(payload):,} bytes) is in structuredContent; its largest "
            "members are abbreviated here.\n")
    budget = TEXT_LIMIT - len(head.encode())
    text = _abbreviated(value, budget)
    return head + text


def _abbreviated(value: Any, budget: int) -> str:
    """``value``'s JSON with its largest members replaced by size notes, largest first,
    nested objects before their parents, until it fits ``budget`` bytes."""
    while True:
        encoded = orjson.dumps(value)
        if len(encoded) <= budget or not isinstance(value, dict):
            return encoded.decode() if len(encoded) <= budget else \
                f'"{len(encoded):,} bytes: see structuredContent"'
        path, size = _largest(value, ())
        if not path:
            return f'"{len(encoded):,} bytes: see structuredContent"'
        holder = value
        for key in path[:-1]:
            holder = holder[key]
        member = holder[path[-1]]
        count = f"{len(member)} items, " if isinstance(member, list | dict) else ""
        holder[path[-1]] = f"<{count}{size:,} bytes: see structuredContent>"


def _largest(value: dict[str, Any], path: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    """The path of the largest member worth abbreviating: inside the largest object member
    when that holds one over a quarter of it, else the member itself."""
    best: tuple[tuple[str, ...], int] = ((), 0)
    for key, member in value.items():
        if isinstance(member, str) and member.startswith("<") and member.endswith("structuredContent>"):
            continue
        size = len(orjson.dumps(member))
        if size > best[1] and size > 64:
            best = ((*path, key), size)
    if best[0]:
        member = value[best[0][-1]]
        if isinstance(member, dict):
            inner = _largest(member, best[0])
            if inner[0] and inner[1] * 4 > best[1]:
                return inner
    return best


def tool_error(exc: Exception) -> HarmonyError:
    """The error a tool result carries for ``exc``: an engine error as it is; anything else is a
    bug, reported as REST reports it (one line on the server's stderr, the client learns
    ``internal_error``). Shared by /mcp and the stdio servers."""
    if isinstance(exc, HarmonyError):
        return exc
    return internal_error(exc, "tool call")  # one line on stderr with its request id
