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
# API.md 8.1: bytes of a text content (and of a default call's structuredContent): the
# result's JSON up to this size, else an abbreviation (``answer_text``).
TEXT_BUDGET = 8 * 1024


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
    # ``trigger`` as it is written in a call's encoded arguments (a key, quoted)
    trigger_key: bytes | None = None

    def result(self, encoded: bytes) -> bytes:
        """The result JSON of a call whose arguments are ``encoded`` (JSON bytes): decoded
        afresh for ``call``, so no arguments object is shared between calls (``/mcp`` keeps a
        call's encoded arguments for its next request, ``server.mcp.endpoint``)."""
        if self.defaults and (self.trigger_key is None or self.trigger_key in encoded):
            # ``call`` fills them in
            return orjson.dumps(self.call(orjson.loads(encoded)))
        if self.answer is not None:
            return self.answer(encoded)
        return orjson.dumps(self.call(orjson.loads(encoded)))

    def arguments(self, arguments: Any) -> Any:
        """``arguments`` with the tool's MCP defaults filled in (a new dict; anything but an
        object is left for the engine to refuse)."""
        return fill_defaults(arguments, self.defaults, self.trigger)


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
            (answers or {}).get(op.name) or answerer(op), op.cache > 0, defaults, trigger,
            None if trigger is None else orjson.dumps(trigger))
    return tools


def _defaulted(call: Callable[[Any], dict[str, Any]], defaults: Mapping[str, Any],
               trigger: str | None) -> Callable[[Any], dict[str, Any]]:
    """``call`` with the MCP tool's defaults filled into its arguments (``fill_defaults``)."""
    def with_defaults(arguments: Any) -> dict[str, Any]:
        return call(fill_defaults(arguments, defaults, trigger))
    return with_defaults


def fill_defaults(arguments: Any, defaults: Mapping[str, Any] | None,
                  trigger: str | None) -> Any:
    """``arguments`` with ``defaults`` filled in where absent or null (a new dict), when
    ``trigger`` is None or given; anything but an object is left for the engine to refuse."""
    if not defaults or not isinstance(arguments, dict) or \
            (trigger is not None and arguments.get(trigger) is None):
        return arguments
    return {**arguments, **{k: v for k, v in defaults.items() if arguments.get(k) is None}}


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
    """The text content of a successful call whose result is ``payload`` (encoded): that JSON
    when it is at most ``TEXT_BUDGET`` bytes (no decoding on the common path), else
    ``answer_text``'s abbreviation."""
    if len(payload) <= TEXT_BUDGET:
        return payload.decode()
    return answer_text(orjson.loads(payload), encoded=payload)


def answer_text(payload: Any, summary: Callable[[Any], Any] | None = None, *,
                encoded: bytes | None = None) -> str:
    """The text content of a result (API.md 8.1, docs/mcp.md "Answers sized for a model"):
    its JSON when under ``TEXT_BUDGET`` bytes; else a note (the whole result is in
    structuredContent) and the tool's ``summary`` of it, lists and long strings cut shorter
    until it fits. ``encoded``: the payload's JSON when the caller has it already."""
    whole = orjson.dumps(payload) if encoded is None else encoded
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
    keys = ", ".join(payload)[: TEXT_BUDGET // 2] if isinstance(payload, dict) else ""
    return (f"The result is {len(whole):,} bytes with the keys {keys}; "
            "the whole result is the structured content.")


def _abbreviated(value: Any, items: int, chars: int) -> Any:
    if isinstance(value, dict):
        return {k: _abbreviated(v, items, chars) for k, v in value.items()}
    if isinstance(value, list):
        head = [_abbreviated(v, items, chars) for v in value[:items]]
        return head + ([f"... {len(value) - items} more"] if len(value) > items else [])
    if isinstance(value, str) and len(value) > chars:
        return value[:chars] + f"... ({len(value):,} characters)"
    return value


def tool_error(exc: Exception) -> HarmonyError:
    """The error a tool result carries for ``exc``: an engine error as it is; anything else is a
    bug, reported as REST reports it (one line on the server's stderr, the client learns
    ``internal_error``). Shared by /mcp and the stdio servers."""
    if isinstance(exc, HarmonyError):
        return exc
    return internal_error(exc, "tool call")  # one line on stderr with its request id
