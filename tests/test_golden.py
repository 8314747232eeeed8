"""Replays every golden request through the Python surface and compares bytes."""

from __future__ import annotations

import re

import orjson
import pytest

from engine.version import GRID_VERSION
from tests.golden import GOLDEN, answer, cases, operations

CASES = [c for c in cases() if c[0] in operations()]


def test_golden_files_match_the_grid_version() -> None:
    # Output changes need a new grid version, regenerated files and a CHANGELOG entry.
    assert (GOLDEN / "GRID_VERSION").read_text().strip() == GRID_VERSION
    changelog = (GOLDEN.parent / "CHANGELOG.md").read_text()
    assert re.search(rf"^## .*grid {re.escape(GRID_VERSION)}\b", changelog, re.M), \
        f"CHANGELOG.md has no entry for grid {GRID_VERSION}"


@pytest.mark.parametrize(("operation", "request_file", "response_file"), CASES,
                         ids=[f"{c[0]}/{c[1].name.split('.')[0]}" for c in CASES])
def test_golden_replay(operation: str, request_file, response_file) -> None:
    assert response_file.exists(), f"run make golden: {response_file.name} is missing"
    request = orjson.loads(request_file.read_bytes())
    assert answer(operation, request) == response_file.read_bytes()
