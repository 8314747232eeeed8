"""The columnar path of ``harmony batch`` (CSV or Parquet in, JSONL or Parquet out) writes the
bytes of the row-by-row path (``analyze_batch`` a chunk at a time, ``write_jsonl``), whatever
the CSV holds: quotes, empty lines, rows of another width, CRLF, blocks cut anywhere. The rows
are Autumn Leaves' changes in G minor and its relative B-flat major."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine.analysis import ROW_FIELDS, PairTable, analyze_batch
from server.cli import batch as batch_cli
from server.cli import csv_blocks
from server.cli.batch_io import write_jsonl

AUTUMN_LEAVES = ["Cm7", "F7", "Bbmaj7", "Ebmaj7", "Am7b5", "D7", "Gm6", "Gm7"]
KEYS = ["Bb", "Gm", "", "Gm"]


def _run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="harmony")
    batch_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["batch", *argv])
    return int(args.run(args))


def _rows(n: int) -> list[tuple[str, str]]:
    return [(AUTUMN_LEAVES[i % 8], KEYS[(i // 8) % 4]) for i in range(n)]


def _expected(rows: list[tuple[str | None, str | None]], default: str | None = None) -> bytes:
    """The row path's bytes: one analyze_batch and write_jsonl over every row."""
    result = analyze_batch([c for c, _ in rows], [k or default for _, k in rows])
    out = io.StringIO()
    write_jsonl(result, out, ROW_FIELDS)
    return out.getvalue().encode()


def test_autumn_leaves_csv_in_small_blocks_gives_the_row_path_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # blocks of 64 bytes: every block boundary lands somewhere else in a line
    monkeypatch.setattr(csv_blocks, "BLOCK", 64)
    rows = _rows(500)
    src = tmp_path / "autumn.csv"
    src.write_text("chord,key\r\n" + "".join(f"{c},{k}\r\n" for c, k in rows))
    assert _run(str(src), "--key", "Gm", "-o", str(tmp_path / "out.jsonl")) == 0
    assert (tmp_path / "out.jsonl").read_bytes() == _expected(rows, "Gm")


def test_autumn_leaves_csv_with_what_only_python_s_reader_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(csv_blocks, "BLOCK", 128)
    rows = _rows(120)
    lines = [f"{c},{k}\n" for c, k in rows]
    lines[30] = "\n"  # an empty line: no cell at all (a row without a chord)
    lines[50] = "Am7b5\n"  # a row one cell short: the key is the default
    lines[60] = "D7,Gm,extra\n"  # one cell too many: ignored
    lines[90] = '"Gm6",Gm\n'  # a quote: from here on Python's reader reads the file
    lines[100] = '"Cm7\n7",Bb\n'  # a quoted newline
    src = tmp_path / "autumn.csv"
    src.write_text("chord,key\n" + "".join(lines))
    expected: list[tuple[str | None, str | None]] = list(rows)
    expected[30], expected[50], expected[60] = (None, None), ("Am7b5", None), ("D7", "Gm")
    expected[90], expected[100] = ("Gm6", "Gm"), ("Cm7\n7", "Bb")
    assert _run(str(src), "-o", str(tmp_path / "out.jsonl")) == 0
    assert (tmp_path / "out.jsonl").read_bytes() == _expected(expected)


def test_autumn_leaves_parquet_row_groups_stay_65536_rows(tmp_path: Path) -> None:
    rows = _rows(70_000)
    src = tmp_path / "autumn.csv"
    src.write_text("chord,key\n" + "".join(f"{c},{k}\n" for c, k in rows))
    assert _run(str(src), "-o", str(tmp_path / "out.parquet")) == 0
    out = pq.ParquetFile(tmp_path / "out.parquet")
    assert [out.metadata.row_group(i).num_rows for i in range(out.num_row_groups)] == [
        65_536, 4_464]
    table = out.read()
    assert table.column("numeral").to_pylist()[:8] == [
        "ii7", "V7", "Imaj7", "IVmaj7", "viiø7", "V7/vi", "vi6", "vi7"]
    # Parquet in, Parquet out: read in batches of several row groups, written back in 65,536s
    pq.write_table(pa.table({"chord": [c for c, _ in rows], "key": [k for _, k in rows]}),
                   tmp_path / "in.parquet", row_group_size=10_000)
    assert _run(str(tmp_path / "in.parquet"), "-o", str(tmp_path / "pp.parquet")) == 0
    assert pq.read_table(tmp_path / "pp.parquet").equals(table)


def test_autumn_leaves_pairs_are_analysed_once_and_the_table_starts_afresh() -> None:
    table = PairTable("Gm", limit=10)
    chords = pa.array(AUTUMN_LEAVES * 3, pa.string())
    first = table.block(chords, pa.array(["Bb"] * 24, pa.string()))
    assert len(first.ids) == 8 and len(table.rows) == 8  # 24 rows, 8 pairs
    assert [table.rows[i]["numeral"] for i in first.ids[first.codes[:8]]] == [
        "ii7", "V7", "Imaj7", "IVmaj7", "viiø7", "V7/vi", "vi6", "vi7"]
    again = table.block(chords, None)  # the default key: 8 new pairs
    assert len(table.rows) == 16 and table.generation == 0
    assert table.rows[int(again.ids[again.codes[0]])]["numeral"] == "iv7"
    table.block(chords, None)  # past the limit: the next block starts afresh
    assert table.generation == 1 and len(table.rows) == 8


def _parquet_rows(n: int) -> tuple[list[str | None], list[str | None]]:
    """Autumn Leaves' changes, with what makes the columns differ group to group: a second key
    from row 70,000 on, every 997th chord missing, every 1,009th a symbol that does not parse,
    every 13th key null (the default key)."""
    chords: list[str | None] = []
    keys: list[str | None] = []
    for i in range(n):
        chord: str | None = AUTUMN_LEAVES[i % 8]
        if i % 997 == 0:
            chord = None
        elif i % 1009 == 0:
            chord = "H7"
        chords.append(chord)
        keys.append(None if i % 13 == 0 else ("Gm" if i < 70_000 else "Eb"))
    return chords, keys


def _row_path_table(chords: list[str | None], keys: list[str | None], default: str,
                    fields: tuple[str, ...] = ROW_FIELDS) -> pa.Table:
    from engine.analysis import result_table

    result = analyze_batch(chords, [default if k is None else k for k in keys])
    return result_table(result, (*fields, "error", "message"))


def test_autumn_leaves_parquet_dictionaries_read_back_as_the_row_path_table(
        tmp_path: Path) -> None:
    # The input read as dictionaries (its own codes), the output written as dictionaries (each
    # row group's values only): read back, the row path's table, column types and all.
    chords, keys = _parquet_rows(150_000)
    pq.write_table(pa.table({"Chord": pa.array(chords, pa.string()),
                             "key": pa.array(keys, pa.string())}),
                   tmp_path / "in.parquet", row_group_size=50_000)
    assert _run(str(tmp_path / "in.parquet"), "--key", "Bb", "-o",
                str(tmp_path / "out.parquet")) == 0
    out = pq.ParquetFile(tmp_path / "out.parquet")
    assert [out.metadata.row_group(i).num_rows for i in range(out.num_row_groups)] == [
        65_536, 65_536, 18_928]
    expected = _row_path_table(chords, keys, "Bb")
    assert out.read().equals(expected)
    # the first group holds no Eb row: its key dictionary does not name Eb
    assert out.read_row_group(0, columns=["key"]).column(0).unique().to_pylist() == ["Bb", "Gm"]
    group = pq.read_table(tmp_path / "out.parquet", read_dictionary=["key"]).column("key")
    assert sorted(group.chunk(0).dictionary.to_pylist()) == ["Bb", "Gm"]
    # statistics of the number columns only; pandas reads the same frame
    stats = out.metadata.row_group(0)
    assert stats.column(5).statistics.max == 7 and stats.column(0).statistics is None
    assert out.read().to_pandas().equals(expected.to_pandas())
    assert _run(str(tmp_path / "in.parquet"), "--columns", "numeral,degree", "-o",
                str(tmp_path / "cols.parquet")) == 0
    assert pq.read_table(tmp_path / "cols.parquet").equals(
        _row_path_table(chords, keys, "C", ("numeral", "degree")))


def test_autumn_leaves_parquet_groups_across_a_pair_table_started_afresh(
        tmp_path: Path) -> None:
    # A table of at most 5 pairs starts afresh before each block: the rows of the block before
    # (not yet a whole group) go out as a row group of their own, each keeping its analysis.
    from server.cli.batch_arrow import ParquetOut

    chords, keys = _parquet_rows(70_001)
    table = PairTable("F", limit=5)
    out = ParquetOut(str(tmp_path / "out.parquet"), ROW_FIELDS)
    for start in range(0, 70_001, 30_000):
        pairs = table.block(pa.array(chords[start:start + 30_000], pa.string()),
                            pa.array(keys[start:start + 30_000], pa.string()))
        for part in out.parts(table, pairs):
            part()
    out.close()
    assert table.generation == 2
    written = pq.ParquetFile(tmp_path / "out.parquet")
    assert [written.metadata.row_group(i).num_rows for i in range(written.num_row_groups)] == [
        30_000, 30_000, 10_001]
    assert written.read().equals(_row_path_table(chords, keys, "F"))


def test_autumn_leaves_parquet_with_missing_keys_loads_neither_pandas_nor_compute(
        tmp_path: Path) -> None:
    # A Parquet file whose key column has null rows (the default key) and a missing chord: the
    # nulls' codes are set by numpy, not by Arrow's fill_null (which imports pyarrow.compute
    # and pandas, a second of a run).
    import subprocess
    import sys

    chords, keys = _parquet_rows(3_000)
    pq.write_table(pa.table({"chord": pa.array(chords, pa.string()),
                             "key": pa.array(keys, pa.string())}), tmp_path / "in.parquet")
    probe = ("import sys; from server.cli.main import main; code = main(sys.argv[1:]); "
             "print(sorted(m for m in sys.modules if m.startswith(('pandas', 'pyarrow.compute'"
             ")))); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe, "batch", str(tmp_path / "in.parquet"),
                           "--key", "Bb", "-o", str(tmp_path / "out.parquet")],
                          cwd=Path(__file__).resolve().parent.parent, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert pq.read_table(tmp_path / "out.parquet").equals(_row_path_table(chords, keys, "Bb"))
