"""Replays every golden request through the Python surface and compares bytes."""

from __future__ import annotations

import orjson
import pytest

from engine.version import GRID_VERSION
from tests import golden
from tests.golden import GOLDEN, answer, cases, changelog_names, operations

CASES = [c for c in cases() if c[0] in operations()]


def test_golden_files_match_the_grid_version() -> None:
    # Output changes need a new grid version, regenerated files and a CHANGELOG entry.
    assert (GOLDEN / "GRID_VERSION").read_text().strip() == GRID_VERSION
    assert changelog_names(GRID_VERSION), f"CHANGELOG.md has no entry for grid {GRID_VERSION}"


@pytest.mark.parametrize(("operation", "request_file", "response_file"), CASES,
                         ids=[f"{c[0]}/{c[1].name.split('.')[0]}" for c in CASES])
def test_golden_replay(operation: str, request_file, response_file) -> None:
    assert response_file.exists(), f"run make golden: {response_file.name} is missing"
    request = orjson.loads(request_file.read_bytes())
    assert answer(operation, request) == response_file.read_bytes()


def _scratch_golden(tmp_path, monkeypatch, grid: str, changelog: str):
    """A one-case golden tree in tmp_path whose stored response is stale."""
    case = tmp_path / "golden" / "resolve"
    case.mkdir(parents=True)
    (case / "c.request.json").write_bytes(orjson.dumps({"chord": "C"}))
    (case / "c.response.json").write_bytes(b'{"stale":true}')
    (tmp_path / "golden" / "GRID_VERSION").write_text(grid + "\n")
    (tmp_path / "CHANGELOG.md").write_text(changelog)
    monkeypatch.setattr(golden, "GOLDEN", tmp_path / "golden")
    return case / "c.response.json"


def test_make_golden_refuses_a_changed_output_without_a_new_grid_version(
        tmp_path, monkeypatch, capsys) -> None:
    stale = _scratch_golden(tmp_path, monkeypatch, GRID_VERSION, f"## x — grid {GRID_VERSION}\n")
    assert golden.write() == 1
    assert stale.read_bytes() == b'{"stale":true}'
    assert "bump GRID_VERSION" in capsys.readouterr().err


def test_make_golden_refuses_a_new_grid_version_without_a_changelog_entry(
        tmp_path, monkeypatch) -> None:
    stale = _scratch_golden(tmp_path, monkeypatch, "old", "## x — grid old\n")
    assert golden.write() == 1
    assert stale.read_bytes() == b'{"stale":true}'


def test_make_golden_writes_once_the_grid_version_and_changelog_moved_on(
        tmp_path, monkeypatch) -> None:
    stale = _scratch_golden(tmp_path, monkeypatch, "old", f"## x — grid {GRID_VERSION}\n")
    assert golden.write() == 0
    assert stale.read_bytes() == answer("resolve", {"chord": "C"})
    assert (tmp_path / "golden" / "GRID_VERSION").read_text().strip() == GRID_VERSION


def test_make_golden_rewrites_while_the_grid_version_is_unreleased(
        tmp_path, monkeypatch) -> None:
    # an open version gathers a release's changes; once released it needs a new one
    stale = _scratch_golden(tmp_path, monkeypatch, GRID_VERSION,
                            f"## Unreleased — grid {GRID_VERSION} (this release)\n")
    assert golden.write() == 0
    assert stale.read_bytes() == answer("resolve", {"chord": "C"})
