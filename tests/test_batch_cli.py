"""``harmony batch FILE``: text, CSV and JSONL in; JSONL or CSV out; rate on stderr."""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path

import orjson
import pytest

from engine import analyze
from engine.errors import InvalidRequest
from server.cli import batch as batch_cli


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
    assert "rows/s" in err and "4 rows (1 error)" in err


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
    # A7 in Eb is the tritone substitute of V7/IV: bV7, whatever its letter (API.md §3)
    assert [r.get("numeral") for r in rows] == ["bII7", "bV7", None, None]
    # a key that is there but not a string is that row's error, never silently --key
    # (this test asserted the fallback before: it hid a bad row behind a guessed key)
    assert rows[2]["error"]["code"] == "invalid_key" and rows[2]["chord"] == "Cm6"
    assert rows[3]["error"]["code"] == "invalid_request"


def test_malformed_jsonl_line_is_a_row_error(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "rows.jsonl"
    src.write_text('{"chord": "Dm7"}\n{"chord": "G7", \n{"chord": "Cmaj7", "key": 7}\n'
                   '{"chord": 5}\n{"chord": "Cmaj7"}\n')
    assert _run([str(src), "--key", "Am"]) == 0
    out, err = capsys.readouterr()
    rows = [orjson.loads(line) for line in out.splitlines()]
    assert [r.get("numeral") for r in rows] == ["iv7", None, None, None, "bIIImaj7"]
    assert [r.get("error", {}).get("code") for r in rows] == [
        None, "invalid_request", "invalid_key", "invalid_chord", None]
    assert "line 2" in rows[1]["error"]["message"]
    assert "5 rows (3 errors)" in err


def test_jsonl_key_and_key_context_read_as_the_engine_reads_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "rows.jsonl"
    src.write_text('{"chord": "G7", "key": null, "keyContext": "Eb"}\n'
                   '{"chord": "G7", "key": "C", "keyContext": "Eb"}\n'
                   '{"chord": "G7", "key": "Eb", "keyContext": "Eb"}\n'
                   '{"chord": null, "symbol": "G7"}\n'
                   '{"chord": "G7", "symbol": "D7"}\n')
    assert _run([str(src), "--key", "F"]) == 0
    rows = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    # null is absent, as in analyze: keyContext Eb is the key (--key F was read before)
    assert (rows[0]["key"], rows[0]["numeral"]) == ("Eb", "V7/vi")
    # a key and a keyContext that differ are refused, as analyze refuses them (it was read as C)
    assert rows[1]["error"]["code"] == "invalid_request"
    assert "line 2" in rows[1]["error"]["message"] and "keyContext" in rows[1]["error"]["message"]
    with pytest.raises(InvalidRequest):
        analyze({"chord": "G7", "key": "C", "keyContext": "Eb"})
    assert rows[2]["key"] == "Eb"
    assert (rows[3]["chord"], rows[3]["key"], rows[3]["numeral"]) == ("G7", "F", "V7/V")
    assert rows[4]["error"]["code"] == "invalid_request"


def test_csv_with_byte_order_mark(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "excel.csv"
    src.write_bytes("\ufeffchord,key\nE7,Am\nDm7,C\n".encode())
    assert _run([str(src)]) == 0
    rows = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r.get("numeral") for r in rows] == ["V7", "ii7"]


def test_byte_order_mark_on_standard_input(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\ufeffDm7 G7\n"))
    assert _run(["-", "--key", "C"]) == 0
    rows = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r.get("numeral") for r in rows] == ["ii7", "V7"]


def test_missing_input_file_is_a_clean_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    with pytest.raises(batch_cli.BatchFileError, match=r"cannot open input file .*nope\.txt"):
        _run([str(missing)])
    assert issubclass(batch_cli.BatchFileError, ValueError)  # harmony prints it, exit 1
