"""The ``analyze`` operation (API.md 3, 3.1): one chord in a key, or a whole chart in context
(``progression`` in place of ``chord``, the key found when absent)."""

from __future__ import annotations

from typing import Any

from engine.analysis.chart import read_chart
from engine.analysis.context import analyze_chart
from engine.analysis.operations import ANALYZE_FIELDS, analyze_chord
from engine.chords import parse_key, read_chord
from engine.errors import InvalidRequest
from engine.requests import MAX_SYMBOL, get_str, require_object

# A chart's chords in full (every single-chord field, API.md 3.1) or in summary (each chord's
# position, symbol, numeral and primary scale in context: ~80 bytes a chord instead of ~1.6
# KB), the default of the MCP tool when it is given a progression.
DETAILS = ("full", "summary")


def analyze(request: Any) -> dict[str, Any]:
    """``{"chord": "Dm7b5", "key": "C"}`` -> the analysis of API.md §3;
    ``{"progression": "Dm7 G7 | Cmaj7"}`` -> the chart in context (§3.1)."""
    req = require_object(request, ANALYZE_FIELDS)
    text = get_str(req, "key", max_len=MAX_SYMBOL, aliases=("keyContext",))
    detail = get_str(req, "detail", default="full")
    if detail not in DETAILS:
        raise InvalidRequest(f"field 'detail' must be one of {', '.join(DETAILS)}; got "
                             f"{detail!r}", field="detail")
    if req.get("progression") is not None:
        if req.get("chord") is not None:
            raise InvalidRequest("give either 'chord' or 'progression', not both",
                                 field="chord")
        return analyze_chart(read_chart(req["progression"]),
                             None if text is None else parse_key(text), detail == "summary")
    return analyze_chord(read_chord(req), parse_key(text))
