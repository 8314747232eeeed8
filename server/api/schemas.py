"""The one schema table: every operation's route, MCP tool name, description and JSON Schemas.

REST validation (``server.api.calls``), ``GET /openapi.json`` and the MCP tools all read
``OPERATIONS``, so the documented, validated and declared shapes cannot drift apart. The engine
function is looked up by name when it is called, so this module imports before every operation
has landed in ``engine``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import jsonschema

import engine
from server.api.request_schemas import (
    ANALYZE_REQUEST,
    COMPOSE_REQUEST,
    CONDUCT_REQUEST,
    IDENTIFY_REQUEST,
    REHARMONIZE_REQUEST,
    RENDER_REQUEST,
    RESOLVE_REQUEST,
    SEARCH_REQUEST,
    VOICING_REQUEST,
)
from server.api.result_schemas import (
    ANALYZE_RESULT,
    CHART_RESULT,
    COMPOSE_RESULT,
    CONDUCT_RESULT,
    IDENTIFY_RESULT,
    REHARMONIZE_RESULT,
    RENDER_RESULT,
    RESOLVE_RESULT,
    SEARCH_RESULT,
    VOICING_RESULT,
)

JSON = dict[str, Any]
EngineFunction = Callable[[JSON], JSON]


# ---------------------------------------------------------------- the table


@dataclass(frozen=True)
class Operation:
    """One engine operation as every surface sees it."""

    name: str                 # engine function name, e.g. "analyze"
    path: str                 # REST route, e.g. "/v2/analyze"
    tool: str                 # MCP tool name, e.g. "analyze_chord"
    description: str          # one sentence
    request_schema: JSON
    result_schema: JSON
    impl: EngineFunction | None = None  # tests inject a function; else engine.<name>
    # The engine refuses every request the schema refuses (property-tested in
    # tests/test_server_schemas.py), so REST skips jsonschema: 19 µs a call measured.
    engine_checks: bool = False
    # Answers kept per worker, by the request's exact bytes (0: none). The engine is
    # deterministic, so a kept answer is the same bytes it would compute; errors are never kept.
    cache: int = 0
    # The body cap of its route when it is not the service's 64 KiB (render, compose: 1 MiB).
    max_body: int | None = None
    # One of the tools of the hosted /mcp (API.md 8.1, and identify_chord, 17); the others are tools of the stdio
    # servers only (8.3) and REST routes.
    hosted_tool: bool = True
    # Marked x-unstable in OpenAPI (API.md 11): render and compose.
    unstable: bool = False

    @property
    def available(self) -> bool:
        """True once the engine function has landed (or one was injected)."""
        return self.impl is not None or callable(getattr(engine, self.name, None))

    @property
    def function(self) -> EngineFunction:
        """The engine function, looked up now (AttributeError while it has not landed)."""
        if self.impl is not None:
            return self.impl
        fn: EngineFunction = getattr(engine, self.name)
        return fn

    @cached_property
    def validator(self) -> jsonschema.protocols.Validator:
        """A compiled validator of ``request_schema`` (built once per process)."""
        cls = jsonschema.validators.validator_for(self.request_schema)
        cls.check_schema(self.request_schema)
        return cls(self.request_schema)


def _op(name: str, tool: str, description: str, request: JSON, result: JSON,
        **options: Any) -> Operation:
    return Operation(name, f"/v2/{name}", tool, description, request, result, **options)


LARGE_BODY = 1 << 20  # API.md 9: render and compose bodies may be 1 MiB


OPERATIONS: dict[str, Operation] = {op.name: op for op in (
    _op("analyze", "analyze_chord",
        "Analyze a chord in a key (roman numeral, function, borrowing, the scales to play), or "
        "a whole chart in context (key found, regions, ii-V brackets, cadences, form).",
        ANALYZE_REQUEST, {"type": "object", "description": "One chord's analysis, or with "
                          "'progression' the chart in context.",
                          "anyOf": [ANALYZE_RESULT, CHART_RESULT]},
        engine_checks=True, cache=4096),
    _op("resolve", "resolve_chord",
        "Spell a chord symbol: notes with octave, MIDI numbers, frequencies and scales.",
        RESOLVE_REQUEST, RESOLVE_RESULT, engine_checks=True, cache=4096),
    _op("identify", "identify_chord",
        "Name the chord some notes make: ranked chord symbols with root, bass and inversion, "
        "the notes each explains or leaves out, and with a key the numeral and function.",
        IDENTIFY_REQUEST, IDENTIFY_RESULT, engine_checks=True, max_body=LARGE_BODY),
    _op("voicing", "generate_voicing",
        "Voice a chord or a whole progression in a jazz style with the least voice motion.",
        VOICING_REQUEST, VOICING_RESULT, engine_checks=True),
    _op("reharmonize", "reharmonize",
        "Suggest reharmonizations of a progression, one per applicable jazz technique.",
        REHARMONIZE_REQUEST, REHARMONIZE_RESULT, engine_checks=True),
    _op("conduct", "conduct_band",
        "Arrange a prompt for a jazz band: form, changes, four MIDI lanes and a MIDI file.",
        CONDUCT_REQUEST, CONDUCT_RESULT, engine_checks=True),
    _op("render", "render_audio",
        "Render an arrangement (a prompt, a conduct result or a MIDI file) to audio.",
        RENDER_REQUEST, RENDER_RESULT, max_body=LARGE_BODY, hosted_tool=False, unstable=True),
    _op("search", "search_corpus",
        "Search a corpus of songs by chord pattern (any key), roman numerals, title or likeness.",
        SEARCH_REQUEST, SEARCH_RESULT, hosted_tool=False),
    _op("compose", "compose",
        "Apply composition operations (create, sections, form, reharmonize, voice, arrange, "
        "notes, transpose, export) to a composition the client keeps.",
        COMPOSE_REQUEST, COMPOSE_RESULT, max_body=LARGE_BODY, hosted_tool=False, unstable=True),
)}

BY_PATH: dict[str, Operation] = {op.path: op for op in OPERATIONS.values()}
BY_TOOL: dict[str, Operation] = {op.tool: op for op in OPERATIONS.values()}
