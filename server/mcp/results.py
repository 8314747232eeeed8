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
import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
import orjson

from engine.errors import InvalidRequest
from server.mcp.portable import portable
from server.mcp.tools import error_text

TEXT_BUDGET = 8 * 1024   # bytes of a text content (and of a default call's structuredContent)
Summary = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Outcome:
    """What a stdio tool call gives: its result or error object, and extra content blocks (the
    audio of a render) after the text."""

    payload: dict[str, Any]
    is_error: bool = False
    extra: tuple[types.ContentBlock, ...] = ()




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
        near = [k for k in known if k.lower() == name.lower()] or \
            difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise InvalidRequest(f"unknown argument {name!r}{hint}; {descriptor['name']} takes "
                             f"{', '.join(known) or 'no arguments'}", field=name)
