"""A batch's columns read off its rows, one dict at a time: the plain reference the columnar
builders (``engine.analysis.result_columns``, ``result_table``, ``analyze_frame``) must equal."""

from __future__ import annotations

from typing import Any


def column(rows: list[dict[str, Any]], name: str) -> list[Any]:
    """One column of batch rows: a field, or the error's code or message (None when fine)."""
    if name in ("error", "message"):
        part = "code" if name == "error" else "message"
        return [r["error"][part] if "error" in r else None for r in rows]
    return [r.get(name) for r in rows]
