"""``harmony batch`` streaming in chunks (the same rows in the same order as the whole input at
once), Parquet in and out, compressed inputs, ``--columns``, damaged files, ``analyze_frame`` on
pandas and pyarrow, and the Dask run on a two-worker LocalCluster giving the single-process
rows."""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from engine.analysis import COLUMNS, analyze_batch, analyze_frame
from engine.batch import analyze_frame as documented
from server.cli import batch as batch_cli

ROWS = [("Dm7", "C"), ("G7", "C"), ("Cmaj7", "C"), ("Hm7", "C"), ("Bb7", ""), ("E7", "Am"),
        ("F#m7b5", "E"), ("C", "Q lydian"), ("Abmaj7", "Eb"), ("D7/F#", "G"), ("", "C")]
CSV = "Chord,Key\n" + "".join(f"{c},{k}\n" for c, k in ROWS)


def harmony_batch(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="harmony")
    batch_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["batch", *argv])
    return int(args.run(args))


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def rows_csv(tmp_path: Path) -> Path:
    path = tmp_path / "rows.csv"
    path.write_text(CSV)
    return path


def test_chunks_give_the_rows_of_the_whole_input_in_order(
        tmp_path: Path, rows_csv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert harmony_batch(str(rows_csv), "--key", "F", "-o", str(tmp_path / "whole.jsonl")) == 0
    monkeypatch.setattr(batch_cli, "CHUNK", 3)
    assert harmony_batch(str(rows_csv), "--key", "F", "-o", str(tmp_path / "chunks.jsonl")) == 0
    whole, chunks = jsonl(tmp_path / "whole.jsonl"), jsonl(tmp_path / "chunks.jsonl")
    assert chunks == whole and len(whole) == len(ROWS)
    assert [r["chord"] for r in whole[:3]] == ["Dm7", "G7", "Cmaj7"]
    assert whole[4]["key"] == "F"  # an empty key takes --key
    assert whole[3]["error"]["code"] == "invalid_chord"


def test_parquet_and_csv_round_trips(tmp_path: Path, rows_csv: Path) -> None:
    assert harmony_batch(str(rows_csv), "-o", str(tmp_path / "out.parquet")) == 0
    table = pq.read_table(tmp_path / "out.parquet")
    assert tuple(table.column_names) == COLUMNS
    assert table.column("numeral").to_pylist()[:3] == ["ii7", "V7", "Imaj7"]
    assert table.column("error").to_pylist()[3] == "invalid_chord"
    # Parquet in (chord and key columns) -> JSONL: the rows of the CSV run
    pq.write_table(pa.table({"chord": [c for c, _ in ROWS], "key": [k or None for _, k in ROWS]}),
                   tmp_path / "in.parquet")
    assert harmony_batch(str(tmp_path / "in.parquet"), "-o", str(tmp_path / "p.jsonl")) == 0
    assert harmony_batch(str(rows_csv), "-o", str(tmp_path / "c.jsonl")) == 0
    assert jsonl(tmp_path / "p.jsonl") == jsonl(tmp_path / "c.jsonl")
    # Parquet in and out takes the Arrow path (no Python object per row): the same table
    assert harmony_batch(str(tmp_path / "in.parquet"), "-o", str(tmp_path / "pp.parquet")) == 0
    assert pq.read_table(tmp_path / "pp.parquet").equals(table)
    assert harmony_batch(str(tmp_path / "in.parquet"), "--columns", "chord,numeral",
                         "-o", str(tmp_path / "cols.parquet")) == 0
    assert pq.read_table(tmp_path / "cols.parquet").column_names == ["chord", "numeral",
                                                                     "error", "message"]
    assert harmony_batch(str(rows_csv), "--format", "csv", "-o", str(tmp_path / "o.csv")) == 0
    lines = (tmp_path / "o.csv").read_text().splitlines()
    assert lines[0].endswith(",error,message") and "invalid_chord,cannot parse" in lines[4]


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_compressed_inputs_read_transparently(tmp_path: Path, suffix: str) -> None:
    data = CSV.encode()
    path = tmp_path / f"rows.csv{suffix}"
    path.write_bytes(gzip.compress(data) if suffix == ".gz"
                     else zstandard.ZstdCompressor().compress(data))
    assert harmony_batch(str(path), "-o", str(tmp_path / "out.jsonl")) == 0
    (tmp_path / "plain.csv").write_text(CSV)
    assert harmony_batch(str(tmp_path / "plain.csv"), "-o", str(tmp_path / "plain.jsonl")) == 0
    assert jsonl(tmp_path / "out.jsonl") == jsonl(tmp_path / "plain.jsonl")


def test_columns_pick_the_fields(tmp_path: Path, rows_csv: Path) -> None:
    assert harmony_batch(str(rows_csv), "--columns", "chord,numeral",
                         "-o", str(tmp_path / "o.jsonl")) == 0
    rows = jsonl(tmp_path / "o.jsonl")
    assert rows[0] == {"chord": "Dm7", "numeral": "ii7"}
    assert rows[3]["error"]["code"] == "invalid_chord"  # a failed row keeps its error
    with pytest.raises(batch_cli.BatchFileError, match="unknown --columns nope"):
        harmony_batch(str(rows_csv), "--columns", "chord,nope")


def test_a_damaged_file_loses_nothing(tmp_path: Path) -> None:
    huge = "C" * 100_000
    lines = ['{"chord": "Dm7", "key": "C"}', "{not json", '["a list"]', "",
             '{"chord": "G7", "key": ""}', f'{{"chord": "{huge}"}}',
             '{"chord": "Cmaj7", "key": "C", "keyContext": "Eb"}', '{"symbol": "Ab7"}',
             '{"chord": "Dbmaj7", "key": "Db"}']
    path = tmp_path / "rows.jsonl"
    path.write_bytes("\ufeff".encode() + "\n".join(lines).encode("utf-8") + b"\n")
    assert harmony_batch(str(path), "--key", "F", "-o", str(tmp_path / "o.jsonl")) == 0
    rows = jsonl(tmp_path / "o.jsonl")
    assert len(rows) == 8  # every line but the blank one
    assert [r.get("numeral") for r in rows] == ["ii7", None, None, "V7", None, None, "bIII7",
                                                "Imaj7"]
    assert "line 2 is not JSON" in rows[1]["error"]["message"]
    assert "line 3" in rows[2]["error"]["message"]
    assert rows[3]["key"] == "C"  # a blank key reads as the engine reads it: C
    assert rows[4]["error"]["code"] == "invalid_chord"
    assert "line 7" in rows[5]["error"]["message"]
    latin = tmp_path / "latin.csv"
    latin.write_bytes("chord,key\nDm7,C\nC\xe9,C\nG7,C\n".encode("latin-1"))
    with pytest.raises(UnicodeDecodeError):
        harmony_batch(str(latin), "-o", str(tmp_path / "l.jsonl"))


def test_analyze_frame_on_pandas_and_pyarrow_equals_the_rows() -> None:
    frame = pd.DataFrame({"chord": [c for c, _ in ROWS], "key": [k or None for _, k in ROWS]},
                         index=range(10, 10 + len(ROWS)))
    out = analyze_frame(frame, default_key="F")
    assert list(out.columns) == list(COLUMNS) and list(out.index) == list(frame.index)
    expected = list(analyze_batch([c for c, _ in ROWS], [k or "F" for _, k in ROWS]).rows())
    for (_, row), want in zip(out.iterrows(), expected, strict=True):
        if "error" in want:
            assert row["error"] == want["error"]["code"]
            assert row["message"] == want["error"]["message"]
        else:
            assert {f: (None if pd.isna(row[f]) else row[f]) for f in want} == want
    table = analyze_frame(pa.Table.from_pandas(frame, preserve_index=False), default_key="F")
    assert isinstance(table, pa.Table)
    assert table.column("numeral").to_pylist() == [None if pd.isna(v) else v
                                                   for v in out["numeral"]]
    assert documented is analyze_frame


def test_autumn_leaves_frame_columns_are_its_rows_columns(corpora: Path) -> None:
    # result_table and analyze_frame build the distinct pairs' columns with result_columns
    # (harmony batch's way: each value once) and take them by index. On the jazz-ccp chart of
    # Autumn Leaves, read in its key (Bb) and in G minor, with rows that fail each way: the
    # columns of its rows (what the rows built per pair gave before), value for value, in the
    # Arrow types of the batch's Parquet output.
    from engine.analysis import arrow_type, result_table
    from tests.batch_rows import column
    from tests.corpus_tokens import ccp_song

    tokens = list(ccp_song(corpora / "jazz-ccp" / "songs" / "AutumnLeaves.txt"))
    assert tokens[:3] == [("Cm7", "Bb"), ("F7", "Bb"), ("BbM7", "Bb")]
    chords: list[Any] = [s for s, _ in tokens] * 2 + ["H7", None, "  G7 ", "Cm7"]
    keys: list[Any] = ["Bb"] * len(tokens) + ["Gm"] * len(tokens) + ["Bb", "Bb", "Gm", "X#"]
    rows = list(analyze_batch(chords, keys).rows())
    table = result_table(analyze_batch(chords, keys))
    frame = analyze_frame(pd.DataFrame({"chord": chords, "key": keys}))
    arrow = analyze_frame(pa.table({"chord": pa.array(chords, pa.string()),
                                    "key": pa.array(keys, pa.string())}))
    for name in COLUMNS:
        want = column(rows, name)
        assert table.column(name).to_pylist() == want, name
        assert table.schema.field(name).type == arrow_type(name), name
        assert arrow.column(name).to_pylist() == want, name
        assert [None if pd.isna(v) else v for v in frame[name]] == want, name
    assert {r["numeral"] for r in rows[:len(tokens)]} >= {"ii7", "V7", "Imaj7", "viiø7"}


def test_dask_local_cluster_gives_the_single_process_rows(tmp_path: Path,
                                                          rows_csv: Path) -> None:
    pytest.importorskip("dask.distributed", reason="the dask extra is not installed")
    assert harmony_batch(str(rows_csv), "--key", "F", "-o", str(tmp_path / "one.parquet")) == 0
    assert harmony_batch(str(rows_csv), "--key", "F", "--dask", "local:2",
                         "-o", str(tmp_path / "dask")) == 0
    one = pq.read_table(tmp_path / "one.parquet").to_pandas()
    many = pd.read_parquet(tmp_path / "dask").reset_index(drop=True)
    pd.testing.assert_frame_equal(one.astype(many.dtypes.to_dict()), many)
    # a user's own Dask DataFrame through map_partitions
    import dask.dataframe as dd

    from engine.analysis import frame_meta

    frame = dd.from_pandas(pd.DataFrame({"chord": ["Dm7", "G7", "Hm7"], "key": ["C"] * 3}),
                           npartitions=2)
    out = frame.map_partitions(analyze_frame, meta=frame_meta()).compute(scheduler="sync")
    assert list(out["numeral"].fillna("-")) == ["ii7", "V7", "-"]



def test_a_csv_without_a_header_is_read_or_refused_clearly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "nohead.csv"
    src.write_text("Dm7,C\nG7,C\nCmaj7,C\n")
    assert harmony_batch(str(src), "-o", str(tmp_path / "o.jsonl")) == 0
    assert [r["numeral"] for r in jsonl(tmp_path / "o.jsonl")] == ["ii7", "V7", "Imaj7"]
    assert "no header: column 1 read as chords, column 2 as keys" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1,2\n")
    with pytest.raises(batch_cli.BatchFileError, match="add a header 'chord,key'"):
        harmony_batch(str(bad))


def test_exit_1_when_no_row_is_analysed(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "bad.txt"
    src.write_text("Hm7 Zz | Q\n")
    assert harmony_batch(str(src), "-o", str(tmp_path / "o.jsonl")) == 1
    assert "no row was analysed (every row failed)" in capsys.readouterr().err
    assert len(jsonl(tmp_path / "o.jsonl")) == 3  # every failure still written
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    assert harmony_batch(str(empty), "-o", str(tmp_path / "e.jsonl")) == 1


def test_parquet_output_keeps_a_bad_json_line_s_own_error(tmp_path: Path) -> None:
    # the Parquet writer takes the chunk's own results: a line that is not JSON stays an
    # invalid_request naming its line (it was analysed again as a chord symbol before)
    src = tmp_path / "rows.jsonl"
    src.write_text('{"chord": "Dm7", "key": "C"}\n{not json\n')
    assert harmony_batch(str(src), "-o", str(tmp_path / "o.parquet")) == 0
    table = pq.read_table(tmp_path / "o.parquet")
    assert table.column("numeral").to_pylist() == ["ii7", None]
    assert table.column("error").to_pylist() == [None, "invalid_request"]
    assert "line 2 is not JSON" in table.column("message").to_pylist()[1]
