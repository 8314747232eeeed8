"""engine.analysis.batch: corpus-scale analysis equals single-chord analysis, row by row."""

from __future__ import annotations

from pathlib import Path

import orjson

from engine.analysis.batch import (
    INVALID_CHORD,
    INVALID_KEY,
    INVALID_REQUEST,
    OK,
    ROW_FIELDS,
    BadRow,
    analyze_batch,
)
from engine.analysis.operations import analyze_chord
from engine.chords.keys import parse_key
from engine.chords.symbols import parse
from engine.errors import HarmonyError
from tests.corpus_tokens import keyed_tokens


def _single(symbol: str, key: str | None) -> dict[str, object]:
    try:
        full = analyze_chord(parse(symbol), parse_key(key))
    except HarmonyError as exc:
        return {"chord": symbol, "key": key, **exc.to_dict()}
    return {f: full[f] for f in ROW_FIELDS}


def test_batch_equals_single_on_every_jazz_token_with_a_key(corpora: Path) -> None:
    rows = [(s, k) for s, k in keyed_tokens(corpora) if k is not None]
    assert len(rows) > 175_000  # 179,593 of the 189,564 tokens: iReal songs without a key drop out
    result = analyze_batch([s for s, _ in rows], [k for _, k in rows])
    single: dict[tuple[str, str], bytes] = {}
    for i, pair in enumerate(rows):
        if pair not in single:
            single[pair] = orjson.dumps(_single(*pair))
        assert orjson.dumps(result.row(i)) == single[pair], pair
    # one song is filed under key "U": its rows are per-row errors, the rest go on
    bad = {k for (_, k), e in zip(rows, result.error, strict=True) if e == INVALID_KEY}
    assert bad == {"U"}
    assert (result.error == OK).sum() == len(rows) - sum(k == "U" for _, k in rows)


def test_bad_rows_never_stop_the_batch() -> None:
    result = analyze_batch(["Dm7", "Xmaj9", "G7", None, "Cmaj7"], ["C", "C", "F lydian", "C", None])
    assert result.error.tolist() == [OK, INVALID_CHORD, INVALID_KEY, INVALID_CHORD, OK]
    assert result.row(0)["numeral"] == "ii7"
    assert result.row(1)["error"]["code"] == "invalid_chord"
    assert "use key C" in result.row(2)["error"]["message"]
    assert result.row(4)["key"] == "C"


def test_one_key_for_all() -> None:
    result = analyze_batch(["Dm7", "G7", "C7", "A7"], "F")
    assert [r["numeral"] for r in result.rows()] == ["vi7", "V7/V", "V7", "V7/vi"]


def test_rows_of_the_wrong_type_are_row_errors() -> None:
    # neither a non-string key nor an unhashable chord may stop the batch
    result = analyze_batch(["C", "Dm7"], ["C", 5])
    assert result.error.tolist() == [OK, INVALID_KEY]
    assert result.row(0)["numeral"] == "I"
    assert result.row(1)["error"]["code"] == "invalid_key" and result.row(1)["key"] is None
    result = analyze_batch([["C"], "Dm7", 3.5, {"a": 1}, BadRow("line 4 is not JSON")], "C")
    assert result.error.tolist() == [INVALID_CHORD, OK, INVALID_CHORD, INVALID_CHORD,
                                     INVALID_REQUEST]
    assert result.row(1)["numeral"] == "ii7"
    assert result.row(0)["chord"] is None and "must be a string" in result.row(0)["error"]["message"]
    assert result.row(4)["error"] == {"code": "invalid_request", "message": "line 4 is not JSON"}
    assert [r.get("error", {}).get("code") for r in analyze_batch(["C", "G7"], 7).rows()] == [
        "invalid_key", "invalid_key"]
    orjson.dumps(list(result.rows()))  # every row stays JSON


def test_every_jazz_pair_s_columns_are_its_rows_columns(corpora: Path) -> None:
    # result_columns builds each value once per combination that decides it (what harmony
    # batch writes as Parquet columns): over every distinct pair of the jazz corpora, and rows
    # that fail each way, value for value and type for type the columns of the rows.
    from engine.analysis import result_columns
    from tests.batch_rows import column

    pairs = list(dict.fromkeys((s, k or "C") for s, k in keyed_tokens(corpora)))
    chords: list[object] = [s for s, _ in pairs] + [None, "H7", "C7", 5, BadRow("line 3 is "
                                                    "not JSON"), "Dm7", "  G7 "]
    keys: list[object] = [k for _, k in pairs] + ["C", "C", "X#", "C", "C", 7, "Eb"]
    result = analyze_batch(chords, keys)
    rows = list(result.rows())
    names = (*ROW_FIELDS, "error", "message")
    columns = result_columns(result, names)
    for name in names:
        codes, values = columns[name]
        got = [values[c] for c in codes.tolist()]
        want = column(rows, name)
        assert got == want, name
        assert [type(v) for v in got] == [type(v) for v in want], name
        assert len(values) < len(pairs) // 3  # built per value, not per pair
