"""A stdio tool's result as the clients people run show it (``docs/mcp-stdio.md``): an error is
``isError`` with one text content carrying the code, the message and the details, then the error
JSON, and no ``structuredContent`` (the TypeScript SDK's client validates it against the tool's
``outputSchema``); a success keeps ``structuredContent`` = the result and the text = that JSON
under ``TEXT_BUDGET``, else an abbreviated copy with a note. And the checks of a call before it
runs: input schemas every major client accepts (``client_schema``), unknown arguments refused by
name (``check_arguments``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from engine.errors import InvalidRequest
from engine.requests import nearest_field
from server.mcp.portable import portable
from server.mcp.tools import answer_text, error_text

Summary = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Outcome:
    """What a stdio tool call gives: its result or error object, and extra content blocks (the
    audio of a render) after the text."""

    payload: dict[str, Any]
    is_error: bool = False
    extra: tuple[types.ContentBlock, ...] = ()




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
    """``descriptor`` with an input schema every major client accepts (``server.mcp.portable``:
    ``type: object`` at the top, no top-level ``oneOf``/``anyOf``/``allOf``/``not``/``if``,
    which the Anthropic API refuses with the whole tool list, one type per field, string enums;
    the handlers check the alternatives)."""
    out = copy.deepcopy(descriptor)
    out["inputSchema"] = portable(out.get("inputSchema", {}))
    return out


def check_arguments(descriptor: dict[str, Any], arguments: Mapping[str, Any]) -> None:
    """An argument the tool does not take is ``invalid_request`` naming it (and the nearest one
    it takes) and listing those it takes: a misspelt ``Key`` never silently analyses in C."""
    known = list(descriptor["inputSchema"].get("properties", {}))
    for name in arguments:
        if name in known:
            continue
        near = nearest_field(name, known)
        hint = f" (did you mean {near!r}?)" if near else ""
        raise InvalidRequest(f"unknown argument {name!r}{hint}; {descriptor['name']} takes "
                             f"{', '.join(known) or 'no arguments'}", field=name)
