"""Every tool of every MCP server has an input schema every major assistant accepts (API.md 8.1,
docs/mcp.md "Schemas every client accepts"). The rules are restated here on their own, not
read from ``server.mcp.portable``, and the tools are listed as a client lists them: ``/mcp`` in
process, the three stdio servers as subprocesses driven by the SDK's client.

- The Anthropic API refuses a tool list in which any ``input_schema`` has ``oneOf``, ``anyOf``
  or ``allOf`` at the top level, so one such tool breaks every request of a Claude client;
- Gemini's function declarations take an OpenAPI 3.0 subset: one ``type`` name, string enums,
  no ``const``/``contains``/``additionalProperties``/``$ref``;
- OpenAI's (non-strict) function calling takes JSON Schema with an object at the top.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from server.mcp import McpEndpoint

BIN = Path(sys.executable).parent
TOP_LEVEL_REFUSED = {"oneOf", "anyOf", "allOf", "not", "if", "then", "else", "enum", "$ref"}
ALLOWED = {"type", "description", "enum", "properties", "required", "items", "anyOf",
           "minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems",
           "default"}
TYPES = {"string", "integer", "number", "boolean", "array", "object"}


def problems(schema: dict[str, Any], where: str = "") -> list[str]:
    """What a client would refuse in ``schema`` below its top level."""
    found = [f"{where}: keyword {k!r}" for k in schema if k not in ALLOWED]
    kind = schema.get("type")
    if kind is not None and (not isinstance(kind, str) or kind not in TYPES):
        found.append(f"{where}: type {kind!r} is not one type name")
    if kind is None and "anyOf" not in schema:
        found.append(f"{where}: no type")
    if "enum" in schema and not all(isinstance(v, str) for v in schema["enum"]):
        found.append(f"{where}: enum of non-strings {schema['enum']!r}")
    for name, sub in schema.get("properties", {}).items():
        if not sub.get("description"):
            found.append(f"{where}.{name}: no description")
        found += problems(sub, f"{where}.{name}")
    if "items" in schema:
        found += problems(schema["items"], f"{where}[]")
    for i, sub in enumerate(schema.get("anyOf", [])):
        found += problems(sub, f"{where}|{i}")
    return found


def tool_problems(tool: dict[str, Any]) -> list[str]:
    schema = tool["inputSchema"]
    name = tool["name"]
    found = [f"{name}: top-level {k!r}" for k in schema if k in TOP_LEVEL_REFUSED]
    if schema.get("type") != "object":
        found.append(f"{name}: the top is not type object")
    found += problems({k: v for k, v in schema.items() if k not in TOP_LEVEL_REFUSED}, name)
    description = tool.get("description") or ""
    if len(description) < 200 or "Example" not in description:
        found.append(f"{name}: the description does not say when to choose it with an example")
    if tool.get("outputSchema", {}).get("type", "object") != "object":
        found.append(f"{name}: outputSchema is not an object")
    return found


def test_the_rules_catch_what_clients_refuse() -> None:
    # the checker itself: each rule fires on the shape it names
    bad = {"name": "t", "description": "x", "inputSchema": {
        "type": "object", "oneOf": [{"required": ["a"]}], "properties": {
            "a": {"type": ["string", "null"], "description": "a"},
            "b": {"type": "integer", "enum": [1, 2], "description": "b"},
            "c": {"type": "string"}, "d": {"type": "string", "const": "x", "description": "d"}}}}
    found = "\n".join(tool_problems(bad))
    for expected in ("top-level 'oneOf'", "t.a: type", "t.b: enum", "t.c: no description",
                     "t.d: keyword 'const'", "the description does not say"):
        assert expected in found


def test_hosted_tools_have_portable_schemas() -> None:
    listing = McpEndpoint().tools
    assert sorted(listing) == ["analyze_chord", "conduct_band", "generate_voicing",
                               "identify_chord", "reharmonize", "resolve_chord"]
    assert [p for tool in listing.values() for p in tool_problems(tool.descriptor)] == []


def _stdio_tools(command: str) -> list[dict[str, Any]]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("HARMONY_BASE_URL", "SERVICE_API_KEY")}
    params = StdioServerParameters(command=str(BIN / command), env=clean)

    async def run() -> list[dict[str, Any]]:
        with anyio.fail_after(60):
            async with Client(params) as client:
                listing = await client.list_tools()
                return [t.model_dump(by_alias=True, exclude_none=True) for t in listing.tools]
    return anyio.run(run)


@pytest.mark.parametrize("command", ["harmony-mcp", "harmony-conductor", "harmony-compose"])
def test_stdio_tools_have_portable_schemas(command: str) -> None:
    tools = _stdio_tools(command)
    assert tools
    assert [p for tool in tools for p in tool_problems(tool)] == []
