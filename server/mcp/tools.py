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

    def result(self, encoded: bytes) -> bytes:
        """The result JSON of a call whose arguments are ``encoded`` (JSON bytes): decoded
        afresh for ``call``, so no arguments object is shared between calls (``/mcp`` keeps a
        call's encoded arguments for its next request, ``server.mcp.endpoint``)."""
        if self.answer is not None:
            return self.answer(encoded)
        return orjson.dumps(self.call(orjson.loads(encoded)))


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
        tools[op.tool] = McpTool(op.tool, op.name, op.path, partial(run_operation, op), {
            "name": op.tool, "title": title, "description": op.description,
            "inputSchema": op.request_schema, "outputSchema": op.result_schema,
            "annotations": {"title": title, **_ANNOTATIONS}},
            (answers or {}).get(op.name) or answerer(op), op.cache > 0)
    return tools


def tool_error(exc: Exception) -> HarmonyError:
    """The error a tool result carries for ``exc``: an engine error as it is; anything else is a
    bug, reported as REST reports it (one line on the server's stderr, the client learns
    ``internal_error``). Shared by /mcp and the stdio servers."""
    if isinstance(exc, HarmonyError):
        return exc
    return internal_error(exc, "tool call")  # one line on stderr with its request id
