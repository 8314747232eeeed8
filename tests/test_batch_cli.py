"""``harmony batch FILE``: text, CSV and JSONL in; JSONL or CSV out; rate on stderr."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import orjson
import pytest

from server import batch_cli


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="harmony")
    batch_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["batch", *argv])
    return int(args.run(args))


def test_text_in_one_key_jsonl_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "tune.txt"
    src.write_text("| Dm7 G7 | Cmaj7 | Zz7 |\n")
    assert _run([str(src), "--key", "C"]) == 0
    out, err = capsys.readouterr()
    rows = [orjson.loads(line) for line in out.splitlines()]
    assert [r.get("numeral") for r in rows] == ["ii7", "V7", "Imaj7", None]
    assert rows[3]["error"]["code"] == "invalid_chord"
    assert "rows/s" in err and "4 rows (1 errors)" in err


def test_csv_in_with_keys_csv_out(tmp_path: Path) -> None:
    src = tmp_path / "rows.csv"
    src.write_text("chord,key\nE7,Am\nFmaj7,Am\nBb7,\nG7,D dorian\n")
    out = tmp_path / "out.csv"
    assert _run([str(src), "--format", "csv", "-o", str(out)]) == 0
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert [r["numeral"] for r in rows] == ["V7", "bVImaj7", "bVII7", ""]
    assert rows[1]["diatonic"] == "true" and rows[2]["key"] == "C"
    assert [r["error"] for r in rows] == ["", "", "", "invalid_key"]


def test_jsonl_in(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "rows.jsonl"
    src.write_text('{"chord": "Db7", "key": "C"}\n\n{"chord": "A7", "keyContext": "Eb"}\n'
                   '{"symbol": "Cm6", "key": 5}\n[1]\n')
    assert _run([str(src), "--key", "Cm"]) == 0
    rows = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r.get("numeral") for r in rows] == ["bII7", "bV7", "i6", None]
    assert rows[2]["key"] == "Cm"  # a key that is not a string falls back to --key
