"""Tool input schemas every major assistant accepts: the REST request schema (``server.api``,
the one REST validates and OpenAPI states) projected onto the JSON Schema subset common to the
Anthropic API, OpenAI's function calling (non-strict) and Gemini's function declarations.

The rules (docs/mcp.md, "Schemas every client accepts"):

- ``type: "object"`` at the top and no ``oneOf``/``anyOf``/``allOf``/``not``/``if`` there: the
  Anthropic API refuses the whole tool list when one tool has them, so one such tool makes the
  server unusable in Claude Desktop and Claude Code;
- ``type`` is one name, never a list: Gemini's schema (an OpenAPI 3.0 subset) takes one type,
  so an optional field's ``["string", "null"]`` becomes ``"string"`` (the engine still reads
  null as absent) and a field of two types becomes a nested ``anyOf``;
- ``enum`` holds strings only (Gemini): an enum of numbers moves into the description;
- only these keywords: type, description, enum, properties, required, items, anyOf (nested),
  minimum, maximum, minLength, maxLength, pattern, minItems, maxItems, default. Others
  (``contains``, ``const``, ``contentEncoding``, ``additionalProperties``) are dropped: the
  engine checks what they said, with its own error naming the field.
"""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]

KEYWORDS = frozenset({
    "type", "description", "enum", "properties", "required", "items", "anyOf", "minimum",
    "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems", "default",
})
TOP_LEVEL_FORBIDDEN = ("oneOf", "anyOf", "allOf", "not", "if", "then", "else", "enum")


def portable(schema: JSON) -> JSON:
    """``schema`` (a tool's input schema) in the common subset; the top level stays an object
    with its properties and required list."""
    top = {k: v for k, v in _node(schema).items() if k not in TOP_LEVEL_FORBIDDEN}
    top["type"] = "object"
    top.setdefault("properties", {})
    return top


def _node(schema: JSON) -> JSON:
    out: JSON = {}
    kinds = schema.get("type")
    if isinstance(kinds, list):
        named = [k for k in kinds if k != "null"]
        if len(named) == 1:
            out["type"] = named[0]
        elif named:  # two types: a nested anyOf (allowed below the top)
            out["anyOf"] = [{"type": k} for k in named]
    elif kinds is not None:
        out["type"] = kinds
    for key, value in schema.items():
        if key == "type" or key not in KEYWORDS:
            continue
        if key == "properties":
            out[key] = {name: _node(sub) for name, sub in value.items()}
        elif key == "items":
            out[key] = _node(value)
        elif key == "anyOf":
            variants = [_node(v) for v in value if v.get("type") != "null"]
            if len(variants) == 1:
                out.update({k: v for k, v in variants[0].items() if k not in out})
            else:
                out[key] = variants
        elif key == "enum":
            named = [v for v in value if v is not None]
            if all(isinstance(v, str) for v in named):
                out[key] = named
            else:
                choices = ", ".join(str(v) for v in named)
                out["description"] = (schema.get("description", "") +
                                      f" One of: {choices}.").strip()
        elif key == "description":
            out.setdefault(key, value)
        else:
            out[key] = value
    return out
