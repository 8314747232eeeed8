"""The building blocks of the schema table (``server.api.schemas``): typed fields, the chord,
key and progression fragments and the fields resolve and analyze share."""

from __future__ import annotations

from typing import Any

from engine.requests import MAX_PROGRESSION, MAX_SYMBOL

JSON = dict[str, Any]

# ---------------------------------------------------------------- building blocks


def _str(description: str, **extra: Any) -> JSON:
    return {"type": "string", "description": description, **extra}


def _int(description: str, **extra: Any) -> JSON:
    return {"type": "integer", "description": description, **extra}


def _num(description: str, **extra: Any) -> JSON:
    return {"type": "number", "description": description, **extra}


def _array(items: JSON, description: str, **extra: Any) -> JSON:
    return {"type": "array", "items": items, "description": description, **extra}


def _object(properties: JSON, required: list[str] | None = None, description: str = "",
            **extra: Any) -> JSON:
    schema: JSON = {"type": "object"}
    if description:
        schema["description"] = description
    schema["properties"] = properties
    if required:
        schema["required"] = required
    schema.update(extra)
    return schema


def _request(properties: JSON, required: list[str] | None = None, description: str = "",
             **extra: Any) -> JSON:
    """A request body: an object of these fields and no other (API.md 0: a field the operation
    does not take is ``invalid_request`` naming it; the engine says so first)."""
    return _object(properties, required, description, additionalProperties=False, **extra)


def _or_null(schema: JSON) -> JSON:
    """An optional request field: null is read as absent (``engine.requests``), so the schema
    says so too, and REST may leave validation to the engine (``Operation.engine_checks``)."""
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    kind = schema["type"]
    nullable = {**schema, "type": [*(kind if isinstance(kind, list) else [kind]), "null"]}
    if "enum" in schema:
        nullable["enum"] = [*schema["enum"], None]
    return nullable


NULLABLE_STR = {"type": ["string", "null"]}

# What the engine refuses is refused here too, and the other way round (property-tested in
# tests/test_server_schemas.py): a blank string, a progression of bar lines only, an integer
# outside 64 bits. JSON Schema's "integer" admits 4.0, and so do the engine's readers.
NOT_BLANK = r"\S"
# Python's str.strip and str.split (the engine's) take these for spaces besides what \s is in
# every regex dialect.
SPACE = r"\s\x1c-\x1f\x85"
INT64 = {"minimum": -(2**63), "maximum": 2**63 - 1}

# A chord symbol starts with its root letter (after spaces): the engine refuses anything else,
# so the schema says so and a schema-driven client sends no '0' (issue 35, schemathesis).
ROOT_FIRST = rf"^[{SPACE}]*[A-G]"
CHORD = _str("A chord symbol, e.g. 'Dm7b5', 'G7(b9,#11)', 'C/E': a root A-G first.",
             minLength=1, maxLength=MAX_SYMBOL, pattern=ROOT_FIRST)
KEY = _or_null(_str("The key: a tonic ('C', 'F#', 'Bb'); minor as 'Cm', 'C-' or 'C minor'. "
                    "Modes are refused. Default 'C'.", maxLength=MAX_SYMBOL))
KEY_CONTEXT = {**KEY, "description": "Alias of 'key'."}
# A chord is what holds a character other than whitespace and '|': the engine splits the string
# form on both and trims list items, so " |" in a list is a bar line too.
NOT_ONLY_BAR_LINES = r"[^\s|]"
# Each chord of a progression starts with its root letter (or is NC / N.C. where the operation
# takes one): the string form's words, split at spaces and '|' as the engine splits them, and
# each item of the list form (a '|' item is a bar line). Words are separated by at least one
# space or bar line, so the expression never backtracks over a word.
_WORD = rf"(?:[A-G]|N)[^{SPACE}|]*"
CHORD_WORDS = rf"^[{SPACE}|]*{_WORD}(?:[{SPACE}|]+{_WORD})*[{SPACE}|]*$"
# conduct's list items hold a bar or more: the first word of each, if any, starts with a root
# (schemathesis's coverage phase stalled on the whole-item expression)
FIRST_WORD = rf"^[{SPACE}|]*(?:[A-G]|N|$)"
CHORD_ITEM = rf"^[{SPACE}]*(?:[A-G]|N|\|[{SPACE}]*$)"
PROGRESSION_STRING: JSON = {"type": "string", "pattern": CHORD_WORDS}


def _progression_list(item_pattern: str) -> JSON:
    return {"type": "array", "items": {"type": "string", "pattern": item_pattern},
            "minItems": 1, "maxItems": MAX_PROGRESSION,
            "contains": {"pattern": NOT_ONLY_BAR_LINES}}


PROGRESSION = {
    "description": "Chord symbols: one string, whitespace separated ('|' bar lines are "
                   f"ignored), or a list of symbols; at most {MAX_PROGRESSION} chords.",
    "anyOf": [PROGRESSION_STRING, _progression_list(CHORD_ITEM)],
}

SCALE = _object({
    "name": _str("Scale name, lower case ('dorian', 'altered', ...)."),
    "character": _str("One sentence on the scale's sound."),
    "priority": {"type": "string", "enum": ["primary", "secondary"]},
    "notes": _array({"type": "string"}, "Spelled notes starting on the chord's root."),
    "avoid": _array({"type": "string"}, "Avoid notes over this chord."),
}, ["name", "character", "priority", "notes", "avoid"])
SCALES = _array(SCALE, "Scales for improvising over the chord, primary first.")

# The fields resolve and analyze share, in the contract's order.
CHORD_FIELDS: JSON = {
    "chord": _str("The symbol as given."),
    "root": _str("Spelled root."),
    "quality": _str("Canonical quality suffix ('' is the major triad)."),
    "name": _str("Plain-English name."),
    "bass": {**NULLABLE_STR, "description": "Bass note of a slash chord, else null."},
    "intervals": _array({"type": "string"}, "Degree labels from the root ('1', 'b3', ...)."),
    "semitones": _array({"type": "integer"}, "Semitones above the root."),
}
