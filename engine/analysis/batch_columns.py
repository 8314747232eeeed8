"""A batch result's columns without its rows: each field of ``ROW_FIELDS`` (and ``error``,
``message``) as a code per row into the values the field takes, each value built once per
distinct combination of the codes that decide it (a numeral by the interpretation, the
chord's class, degree, accidental and quality as heard; a function by the interpretation, the
key, diatonic and the source of tensions), with the same functions ``BatchResult.row`` calls.
So a column's Python work is per value it can take, not per row nor per distinct (chord, key)
pair: what ``harmony batch`` writes as Parquet columns.

``values[codes[i]]`` is row ``i``'s own value (``result.row(i)``), by construction and by test
(``tests/test_batch.py``, against ``tests/batch_rows.column``); ``values`` may name a value
twice, and come in the order the rows first hold them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine.analysis.batch import BatchResult, _shown
from engine.analysis.grid import INTERPRETATIONS, MODES
from engine.analysis.operations import function_text, numeral_text, source_text
from engine.analysis.readings import heard_as


def result_columns(result: BatchResult, names: Sequence[str]
                   ) -> dict[str, tuple[np.ndarray, list[Any]]]:
    """``name`` -> (each row's code, the values by code) for each of ``names``."""
    sym, key, ok = result.sym, result.key, result.error == 0
    st, kt, codes = result.symbol_table, result.key_table, result.codes
    chords, keys = st.chords, kt.keys
    texts = _first_of(sym, result.symbols), _first_of(key, result.keys)
    interp, degree = codes["interp"], codes["degree"]
    diatonic, tension = codes["diatonic"], codes["tension"]
    heard, heard_code = _factorized([None if c is None else heard_as(c).quality
                                     for c in chords])
    mode = kt.mode[key]

    def chord_of(s: int) -> Any:
        return chords[s]

    def error_of(s: int, k: int) -> dict[str, Any]:
        exc = st.errors[s] or kt.errors[k]
        assert exc is not None
        return exc.to_dict()["error"]

    deciders: dict[str, tuple[list[np.ndarray], Callable[..., Any]]] = {
        "chord": ([sym], lambda s: chord_of(s).symbol),
        "key": ([key], lambda k: keys[k].name),  # type: ignore[union-attr]
        "root": ([sym], lambda s: chord_of(s).root.name),
        "quality": ([sym], lambda s: chord_of(s).quality),
        "bass": ([sym], lambda s: chord_of(s).bass_name),
        "degree": ([degree], lambda d: d + 1),
        "numeral": ([interp, st.cls[sym], degree, codes["accidental"], heard_code[sym]],
                    lambda i, c, d, a, h: numeral_text(INTERPRETATIONS[i], c, d, a, heard[h])),
        "inversion": ([sym], lambda s: chord_of(s).inversion),
        "function": ([interp, key, diatonic, tension],
                     lambda i, k, di, t: function_text(INTERPRETATIONS[i],
                                                       keys[k].tonic.name,  # type: ignore[union-attr]
                                                       bool(di), MODES[int(kt.mode[k])], t)),
        "diatonic": ([diatonic], bool),
        "borrowed": ([interp], lambda i: INTERPRETATIONS[i].borrowed),
        "source": ([interp, diatonic, mode, tension],
                   lambda i, di, m, t: source_text(INTERPRETATIONS[i], bool(di), MODES[m], t)),
    }
    out = {}
    for name in names:
        if name in ("error", "message"):
            part = "code" if name == "error" else "message"
            out[name] = _by([np.where(ok, 0, sym), np.where(ok, 0, key), ok],
                            lambda s, k, o, part=part: None if o else error_of(s, k)[part])
        elif name in ("chord", "key"):
            (given,), value = deciders[name]
            text = texts[0] if name == "chord" else texts[1]
            out[name] = _by([given, ok], lambda g, o, value=value, text=text:
                            value(g) if o else _shown(text[g]))
        else:
            given_codes, value = deciders[name]  # a failed row's codes do not count
            out[name] = _by([*(np.where(ok, c, 0) for c in given_codes), ok],
                            lambda *c, value=value: value(*c[:-1]) if c[-1] else None)
    return out


def _by(codes: list[np.ndarray], value: Callable[..., Any]) -> tuple[np.ndarray, list[Any]]:
    """(each row's code, the values): ``value`` called once per distinct combination of
    ``codes`` (arrays of whole numbers or booleans, one per row), with the numbers as ints."""
    n = len(codes[0])
    if not n:
        return np.zeros(0, dtype=np.int32), []
    combined = np.zeros(n, dtype=np.int64)
    for array in codes:
        low = int(array.min())
        combined = combined * (int(array.max()) - low + 1) + (array.astype(np.int64) - low)
    _, first, inverse = np.unique(combined, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # the values in the order rows first hold them
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    columns = [array[first[order]].tolist() for array in codes]
    values = [value(*combo) for combo in zip(*columns, strict=True)]
    return rank[inverse.reshape(-1)], values


def _first_of(codes: np.ndarray, cells: list[Any]) -> list[Any]:
    """The cell of each code (the first row's: every row of a code holds the same)."""
    first = np.full(int(codes.max()) + 1 if len(codes) else 0, -1, dtype=np.int64)
    order = np.arange(len(codes) - 1, -1, -1)
    first[codes[order]] = order
    return [cells[i] if i >= 0 else None for i in first.tolist()]


def _factorized(values: list[Any]) -> tuple[list[Any], np.ndarray]:
    """(the distinct values, each value's code)."""
    index: dict[Any, int] = {}
    codes = np.array([index.setdefault(v, len(index)) for v in values], dtype=np.int32)
    return list(index), codes
