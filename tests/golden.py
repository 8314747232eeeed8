"""Golden request/response pairs: ``golden/<operation>/<case>.request.json`` is written by
hand; ``make golden`` (``python -m tests.golden write``) writes the matching
``.response.json`` as the exact bytes the engine returns. ``tests/test_golden.py`` replays them.
"""

from __future__ import annotations

import re
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
    names = ("analyze", "resolve", "identify", "voicing", "reharmonize", "conduct", "search", "compose",
             "render")
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
    """Write every response; refuse when output changes without a new grid version.

    A response that would differ from the one on disk is a change of engine output: it needs
    ``engine.version.GRID_VERSION`` bumped past ``golden/GRID_VERSION`` and a CHANGELOG entry
    for the new version first, so ``make golden`` cannot silently bless a change. While that
    entry is still headed "Unreleased" the version is open: the changes of one release gather
    in it (each with its own line in the entry), so a released grid is never rewritten.
    """
    ops = operations()
    grid, recorded = _grid_version(), _recorded_version()
    fresh = [(resp, answer(op, orjson.loads(req.read_bytes())))
             for op, req, resp in cases() if op in ops]
    changed = [resp for resp, body in fresh if resp.exists() and resp.read_bytes() != body]
    if changed and grid == recorded and not unreleased(grid):
        names = ", ".join(f"{r.parent.name}/{r.name}" for r in changed[:5])
        print(f"refused: {len(changed)} golden responses would change ({names}...) but the grid "
              f"version is still {grid}: bump GRID_VERSION in engine/version.py and add a "
              "CHANGELOG.md entry first", file=sys.stderr)
        return 1
    if not changelog_names(grid):
        print(f"refused: CHANGELOG.md has no entry for grid {grid}", file=sys.stderr)
        return 1
    for resp, body in fresh:
        resp.write_bytes(body)
    (GOLDEN / "GRID_VERSION").write_text(grid + "\n")
    print(f"wrote {len(fresh)} golden responses ({len(changed)} changed) for grid {grid}")
    return 0


def _recorded_version() -> str:
    path = GOLDEN / "GRID_VERSION"
    return path.read_text().strip() if path.exists() else ""


def changelog_names(grid: str) -> bool:
    changelog = (GOLDEN.parent / "CHANGELOG.md").read_text()
    return re.search(rf"^## .*grid {re.escape(grid)}\b", changelog, re.M) is not None


def unreleased(grid: str) -> bool:
    """The CHANGELOG's entry for ``grid`` is headed "Unreleased": the version is still open."""
    changelog = (GOLDEN.parent / "CHANGELOG.md").read_text()
    return re.search(rf"^## Unreleased\b.*grid {re.escape(grid)}\b", changelog, re.M) is not None


def _grid_version() -> str:
    from engine.version import GRID_VERSION

    return GRID_VERSION


if __name__ == "__main__":
    if sys.argv[1:] != ["write"]:
        sys.exit("usage: python -m tests.golden write")
    sys.exit(write())
