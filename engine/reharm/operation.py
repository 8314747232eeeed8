"""The ``reharmonize`` operation (API.md 6): the request read (its bars, its key, given or
found from the chart), the progression read in context (``context``), one alternative per
technique that applies (``techniques``), each laid out on the input's bars (``bars``)."""

from __future__ import annotations

from typing import Any

from engine.analysis import key_of_symbols
from engine.chords import Key, parse_key, parse_progression
from engine.errors import InvalidRequest
from engine.reharm import rules
from engine.reharm.bars import Timed, lay_out, placed, read_bars
from engine.reharm.context import analyse
from engine.reharm.techniques import TECHNIQUE_FUNCTIONS, Change
from engine.requests import MAX_SYMBOL, get_list, get_str, require_object

REHARMONIZE_FIELDS = ("progression", "key", "keyContext", "techniques")


def _requested_techniques(req: dict[str, Any]) -> frozenset[str]:
    value = get_list(req, "techniques")
    if value is None:
        return frozenset(rules.TECHNIQUES)
    for name in value:
        if not isinstance(name, str) or name not in TECHNIQUE_FUNCTIONS:
            raise InvalidRequest(f"unknown technique {name!r}; expected some of "
                                 f"{', '.join(rules.TECHNIQUES)}", field="techniques")
    return frozenset(value)


def _alternative(technique: str, symbols: list[str], times: list[Timed],
                 kept: list[dict[str, Any]], n_bars: int, changes: list[Change]
                 ) -> dict[str, Any]:
    changes = sorted(changes, key=lambda c: c.index)
    # each change with the input chords whose time its chords share (the ii of a Coltrane
    # cycle stays first)
    spans = []
    for c in changes:
        first = c.index if c.first is None else c.first
        spans.append((first, c.index, (*symbols[first:c.index], *c.to)))
    progression: list[str] = []
    i = 0
    for first, last, chords in spans:
        progression += symbols[i:first]
        progression += chords
        i = last + 1
    progression += symbols[i:]
    clauses = list(dict.fromkeys(c.clause for c in changes if c.clause))  # each reason once
    return {
        "technique": technique,
        "progression": progression,
        "changes": [{"index": c.index, "from": symbols[c.index], "to": list(c.to)}
                    for c in changes],
        "explanation": "; ".join(clauses) + ".",
        "bars": lay_out(times, kept, n_bars, spans),
    }


def _key(req: dict[str, Any], symbols: list[str], times: list[Timed]) -> Key:
    """The key given, else the chart's as the progression analysis reads it (docs/analysis.md,
    "The key of a chart"): Autumn Leaves sent without a key is reharmonized in G minor."""
    given = get_str(req, "key", max_len=MAX_SYMBOL, aliases=("keyContext",))
    if given is not None:
        return parse_key(given)
    found = key_of_symbols((t.bar + 1, t.start + 1, s)
                           for s, t in zip(symbols, times, strict=True))
    return parse_key(found.name if found else "C")


def reharmonize(request: dict[str, Any]) -> dict[str, Any]:
    """Alternatives to a progression in a key, one per technique that applies (API.md §6)."""
    req = require_object(request, REHARMONIZE_FIELDS)
    if req.get("progression") is None:
        raise InvalidRequest("field 'progression' is required", field="progression")
    # the input as written, NC as given, with each chord's place in its bar
    symbols, times, n_bars = read_bars(req["progression"])
    parse_progression(symbols, field="progression", allow_nc=True)  # validates, or raises
    key = _key(req, symbols, times)
    wanted = _requested_techniques(req)
    ctx = analyse(symbols, key, n_bars)
    kept = placed(symbols, times)
    alternatives = []
    for name, technique in TECHNIQUE_FUNCTIONS.items():
        if name in wanted:
            changes = technique(ctx)
            if changes:
                alternatives.append(_alternative(name, symbols, times, kept, n_bars, changes))
    return {"key": key.name, "progression": symbols, "alternatives": alternatives}
