"""Golden request/response pairs: ``golden/<operation>/<case>.request.json`` is written by
hand; ``make golden`` (``python -m tests.golden write``) writes the matching
``.response.json`` as the exact bytes the engine returns. ``tests/test_golden.py`` replays them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

import engine
from engine.errors import HarmonyError

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def operations() -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    """Engine operations that exist so far, by name."""
    names = ("analyze", "resolve", "voicing", "reharmonize", "conduct")
    return {n: getattr(engine, n) for n in names if hasattr(engine, n)}


def cases() -> Iterator[tuple[str, Path, Path]]:
    """(operation, request file, response file) for every golden case, in a fixed order."""
    for req in sorted(GOLDEN.glob("*/*.request.json")):
        yield req.parent.name, req, req.with_name(req.name.replace(".request.", ".response."))


def answer(operation: str, request: dict[str, Any]) -> bytes:
    """What the Python surface answers: the result, or the error body, as orjson bytes."""
    try:
        result = operations()[operation](request)
    except HarmonyError as exc:
        result = exc.to_dict()
    return orjson.dumps(result)


def write() -> int:
    ops = operations()
    n = 0
    for op, req, resp in cases():
        if op not in ops:
            continue
        resp.write_bytes(answer(op, orjson.loads(req.read_bytes())))
        n += 1
    (GOLDEN / "GRID_VERSION").write_text(_grid_version() + "\n")
    print(f"wrote {n} golden responses")
    return 0


def _grid_version() -> str:
    from engine.version import GRID_VERSION

    return GRID_VERSION


if __name__ == "__main__":
    if sys.argv[1:] != ["write"]:
        sys.exit("usage: python -m tests.golden write")
    sys.exit(write())
