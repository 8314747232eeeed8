"""``analyze_frame``: batch analysis of a pandas DataFrame or a pyarrow Table, the same columns
as ``harmony batch``'s JSONL rows (``ROW_FIELDS``, then ``error`` and ``message`` for the rows
that fail). Vectorised: the columns of the distinct (symbol, key) pairs are built by
``result_columns`` (as ``harmony batch``'s are: each value once) and spread over the rows by
index; no Python loop runs per row. It is also the function a Dask DataFrame's
``map_partitions`` calls, partition by partition (``frame_meta`` is its empty result).

pandas and pyarrow are imported when called, not when the engine is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.analysis.batch import ROW_FIELDS, BatchResult, analyze_batch
from engine.analysis.batch_columns import result_columns

COLUMNS = (*ROW_FIELDS, "error", "message")


def analyze_frame(frame: Any, chord: str = "chord", key: str = "key",
                  default_key: str | None = None) -> Any:
    """``frame``'s ``chord`` column analysed in its ``key`` column (or ``default_key``, else
    C, where the column is missing or a row's key is null or blank): a frame of the same kind
    and index with ``COLUMNS``."""
    import pandas as pd
    import pyarrow as pa

    table = isinstance(frame, pa.Table)
    names = frame.column_names if table else list(frame.columns)
    if chord not in names:
        raise ValueError(f"the frame has no {chord!r} column (columns: {', '.join(map(str, names))})")
    if table and pa.types.is_string(frame.schema.field(chord).type) and (
            key not in names or pa.types.is_string(frame.schema.field(key).type)):
        return analyze_arrow(frame.column(chord), frame.column(key) if key in names else None,
                             default_key)
    chords = frame.column(chord).to_pylist() if table else frame[chord].tolist()
    if key in names:
        keys = frame.column(key).to_pylist() if table else frame[key].tolist()
        # a missing or blank key takes the default, as a CSV row's does
        keys = [default_key if _missing(k) or k == "" else k for k in keys]
    else:
        keys = [default_key] * len(chords)
    chords = [None if _missing(c) else c for c in chords]
    result = analyze_batch(chords, keys)
    if table:
        return result_table(result)
    codes, values = pair_columns(result)
    columns = {name: np.array(values[name], dtype=object)[codes] for name in COLUMNS}
    out = pd.DataFrame(columns, index=frame.index)
    return out.astype({name: _PANDAS[name] for name in COLUMNS})


def pair_columns(result: BatchResult, names: Sequence[str] = COLUMNS
                 ) -> tuple[Any, dict[str, list[Any]]]:
    """(code of each row's distinct (symbol, key) pair, each column's value per pair): the
    columns ``names`` of the distinct pairs (``result_columns`` over one row of each, so its
    work is per pair, not per row), ready to be spread over the rows by index."""
    import pandas as pd

    n = len(result)
    if not n:
        return np.zeros(0, dtype=np.int64), {name: [] for name in names}
    pairs = result.sym.astype(np.int64) * (int(result.key.max()) + 1) + result.key
    codes, distinct = pd.factorize(pairs, sort=False)
    first = np.full(len(distinct), -1, dtype=np.int64)
    order = np.arange(n - 1, -1, -1)
    first[codes[order]] = order  # the first row of each pair
    return codes, _per_row(result_columns(result.take(first), names))


def _per_row(columns: dict[str, tuple[np.ndarray, list[Any]]]) -> dict[str, list[Any]]:
    """``result_columns``' codes and values as each row's value."""
    return {name: [values[c] for c in codes.tolist()] for name, (codes, values) in columns.items()}


def result_table(result: BatchResult, fields: tuple[str, ...] = COLUMNS) -> Any:
    """A batch result as an Arrow table of ``fields`` (``harmony batch``'s Parquet output):
    no second analysis, no Python object per row."""
    import pyarrow as pa

    codes, values = pair_columns(result, fields)
    index = pa.array(codes, type=pa.int32())
    return pa.table({name: pa.array(values[name], type=arrow_type(name)).take(index)
                     for name in fields})


def analyze_arrow(chords: Any, keys: Any = None, default_key: str | None = None) -> Any:
    """Arrow string arrays in, an Arrow table of ``COLUMNS`` out, with no Python work per row:
    both columns are dictionary-encoded, each distinct (chord, key) pair analysed once, and
    every column taken from the pairs' results by index (Parquet in, Parquet out at
    millions of rows a second)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(chords)
    if keys is None:
        keys = pa.nulls(n, pa.string())
    default = default_key if default_key is not None else None
    keys = pc.if_else(pc.equal(keys, ""), pa.scalar(None, pa.string()), keys)
    if default is not None:
        keys = pc.fill_null(keys, default)
    chord_codes, chord_values = _encode(chords)
    key_codes, key_values = _encode(keys)
    width = len(key_values)
    pair = chord_codes.astype(np.int64) * width + key_codes
    import pandas as pd

    codes, distinct = pd.factorize(pair, sort=False)
    distinct = np.asarray(distinct, dtype=np.int64)
    result = analyze_batch([chord_values[i] for i in distinct // width],
                           [key_values[i] for i in distinct % width])
    values = _per_row(result_columns(result, COLUMNS))  # one row per distinct pair already
    index = pa.array(codes, type=pa.int32())
    return pa.table({name: pa.array(values[name], type=arrow_type(name)).take(index)
                     for name in COLUMNS})


def _encode(array: Any) -> tuple[Any, list[Any]]:
    """(codes, values) of an Arrow string array; a null is the value None (its own code)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    encoded = pc.dictionary_encode(array)
    values: list[Any] = encoded.dictionary.to_pylist()
    codes = encoded.indices.fill_null(len(values)).to_numpy(zero_copy_only=False)
    return codes, [*values, None]


def _missing(value: Any) -> bool:
    """None, NaN or pandas' NA: a cell with nothing in it."""
    if value is None or (isinstance(value, float) and value != value):
        return True
    return type(value).__name__ == "NAType"


def frame_meta() -> Any:
    """The empty result, with its column types (Dask's ``meta``)."""
    import pandas as pd

    return pd.DataFrame({name: pd.Series([], dtype=_PANDAS[name]) for name in COLUMNS})


def arrow_type(name: str) -> Any:
    import pyarrow as pa

    return {"degree": pa.int16(), "inversion": pa.int16(), "diatonic": pa.bool_(),
            "borrowed": pa.bool_()}.get(name, pa.string())


_PANDAS = {name: "string" for name in COLUMNS} | {"degree": "Int16", "inversion": "Int16",
                                                  "diatonic": "boolean", "borrowed": "boolean"}
