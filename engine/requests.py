"""Reading request dicts: every operation validates its fields through these helpers, so the
Python surface gives the same ``invalid_request`` errors (with ``field``) as REST and MCP.

Bounds of the contract (API.md §9) live here as constants.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection
from typing import Any

from engine.errors import InvalidRequest

MAX_SYMBOL = 32
MAX_PROGRESSION = 256
MAX_PROMPT = 2000
MAX_PREVIOUS = 8

def require_object(request: Any, fields: Collection[str] | None = None) -> dict[str, Any]:
    """``request`` as a dict; with ``fields``, every key must be one of them (API.md 0: a
    misspelt ``"Key"`` is refused, never quietly ignored so that the chord is read in C)."""
    if not isinstance(request, dict):
        raise InvalidRequest("the request body must be a JSON object")
    if fields is not None:
        for name in request:
            if name not in fields:
                raise unknown_field(name, fields)
    return request


def unknown_field(name: Any, fields: Collection[str]) -> InvalidRequest:
    """The error for a field the operation does not take: it names the field, the nearest
    field when one is close (case ignored), and every field taken."""
    text = str(name)
    near = nearest_field(text, fields)
    hint = f" (did you mean '{near}'?)" if near else ""
    return InvalidRequest(f"unknown field '{text}'{hint}; the fields taken are "
                          + ", ".join(fields), field=text)


def nearest_field(name: str, fields: Collection[str]) -> str | None:
    """The field taken that ``name`` most likely meant: the same name in another case, else
    the closest spelling (difflib, ratio >= 0.6), else None."""
    lowered = {f.lower(): f for f in fields}
    return lowered.get(name.lower()) or next(
        iter(difflib.get_close_matches(name, list(fields), n=1, cutoff=0.6)), None)


def get_str(request: dict[str, Any], field: str, *, default: str | None = None,
            required: bool = False, max_len: int | None = None,
            aliases: tuple[str, ...] = ()) -> str | None:
    """A string field (or one of its aliases, then named in errors); ``default`` when absent or
    null."""
    field, value = lookup_field(request, field, aliases)
    if value is None:
        if required:
            raise InvalidRequest(f"field '{field}' is required", field=field)
        return default
    if not isinstance(value, str):
        raise InvalidRequest(f"field '{field}' must be a string", field=field)
    if required and not value.strip():
        raise InvalidRequest(f"field '{field}' must not be empty", field=field)
    if max_len is not None and len(value) > max_len:
        raise InvalidRequest(f"field '{field}' is longer than {max_len} characters", field=field)
    return value


def get_number(request: dict[str, Any], field: str, *, default: float | None = None,
               low: float | None = None, high: float | None = None,
               integer: bool = False) -> float | None:
    """A number (an integer if ``integer``: integral floats such as 4.0 count, as in JSON
    Schema, and are returned as int) within [low, high]; ``default`` when absent."""
    value = request.get(field)
    if value is None:
        return default
    if integer:
        whole = as_int(value)
        if whole is None:
            raise InvalidRequest(f"field '{field}' must be an integer", field=field)
        value = whole
    elif isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidRequest(f"field '{field}' must be a number", field=field)
    if value != value or (low is not None and value < low) or (high is not None and value > high):
        raise InvalidRequest(f"field '{field}' must be between {low} and {high}", field=field)
    return value


def as_int(value: Any) -> int | None:
    """``value`` as an int if it is a JSON integer (``4``, or ``4.0`` as JSON Schema counts
    it), else None; booleans are not numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def get_list(request: dict[str, Any], field: str, *, max_items: int | None = None) -> list[Any] | None:
    value = request.get(field)
    if value is None:
        return None
    if not isinstance(value, list):
        raise InvalidRequest(f"field '{field}' must be a list", field=field)
    if max_items is not None and len(value) > max_items:
        raise InvalidRequest(f"field '{field}' has more than {max_items} items", field=field)
    return value


def lookup_field(request: dict[str, Any], field: str,
                 aliases: tuple[str, ...]) -> tuple[str, Any]:
    """``(name, value)`` of the field, else of its first alias given, the value as found (not
    type-checked); null counts as absent. A field and an alias both given must agree:
    ``{"key": "Cm", "keyContext": "Gm"}`` is ``InvalidRequest`` (``field`` the alias), not
    quietly read as Cm. Readers of other inputs (``harmony batch``) use it too."""
    value = request.get(field)
    for alias in aliases:
        other = request.get(alias)
        if other is None:
            continue
        if value is None:
            value, field = other, alias
        elif other != value:
            raise InvalidRequest(f"field '{alias}' is an alias of '{field}' and differs from "
                                 "it: give one of them", field=alias)
    return field, value
