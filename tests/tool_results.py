"""Reading a failed tool call as a client shows it (API.md 8.1): ``isError``, no
``structuredContent``, one text content whose first line is ``Error <code>: <message>`` and
whose last line is the error object as JSON."""

from __future__ import annotations

from typing import Any

import orjson


def tool_error(result: Any) -> dict[str, Any]:
    """The error object of a failed ``tools/call`` result (an SDK ``CallToolResult`` or the
    result as a dict), after checking the shape every client can read."""
    if isinstance(result, dict):
        is_error, structured, content = (result.get("isError"), result.get("structuredContent"),
                                         result["content"])
        texts = [c["text"] for c in content if c["type"] == "text"]
    else:
        is_error, structured = result.is_error, result.structured_content
        texts = [c.text for c in result.content if c.type == "text"]
    assert is_error is True
    assert structured is None  # it would not match the tool's outputSchema
    assert len(texts) == 1
    first, _, last = texts[0].rpartition("\n")
    error: dict[str, Any] = orjson.loads(last)["error"]
    assert first.startswith(f"Error {error['code']}: {error['message']}")
    return error
