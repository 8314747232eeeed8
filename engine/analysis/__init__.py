"""Analysis: the rule grid (every chord class read in every key), the chord-scale catalogue,
the ``analyze`` and ``resolve`` operations, the key of a whole chart (``keyfind``; of a whole
corpus at once, ``keyfind_batch``), a chart read in context (``in_context``, what the voicing
needs of it), ``analyze_batch`` over whole corpora as arrays and
``analyze_frame`` over pandas DataFrames and pyarrow Tables (a Dask partition too), a batch
result's columns without its rows (``result_columns``), and
``PairTable``, the distinct (chord, key) pairs of a stream of Arrow blocks analysed once.
Each name is imported when first used (``engine.faces``): ``harmony batch`` loads the batch
without the numba kernels of ``keyfind_batch``.
"""

from typing import TYPE_CHECKING

from engine.faces import lazy_face

if TYPE_CHECKING:
    from engine.analysis.batch import ROW_FIELDS, BadRow, BatchResult, analyze_batch
    from engine.analysis.batch_columns import result_columns
    from engine.analysis.chart import BEATS, Chart, ChartSection, Placed, bars_of, labelled_parts
    from engine.analysis.context import (
        Bracket,
        InContext,
        analyze_chart,
        find_brackets,
        in_context,
    )
    from engine.analysis.frames import (
        COLUMNS,
        analyze_arrow,
        analyze_frame,
        arrow_type,
        frame_meta,
        pair_columns,
        result_table,
    )
    from engine.analysis.grid import (
        CLASSES,
        INTERPRETATIONS,
        accidental_of,
        class_of_labels,
        quality_class,
    )
    from engine.analysis.keyfind import (
        ChartChord,
        KeyReading,
        chart_key,
        chart_keys,
        key_of_symbols,
    )
    from engine.analysis.keyfind_batch import ChordFacts, chart_key_names
    from engine.analysis.operation import analyze
    from engine.analysis.operations import (
        TUNING_RANGE,
        numeral_frame,
        numeral_mark,
        resolve,
        role_function,
        role_in_key,
        role_of,
        role_parts,
        role_parts_table,
    )
    from engine.analysis.pairs import BlockPairs, PairTable
    from engine.analysis.readings import SLASH_SUS, heard_as

__getattr__ = lazy_face(__name__, {
    "engine.analysis.batch": ("ROW_FIELDS", "BadRow", "BatchResult", "analyze_batch"),
    "engine.analysis.batch_columns": ("result_columns",),
    "engine.analysis.chart": ("BEATS", "Chart", "ChartSection", "Placed", "bars_of",
                              "labelled_parts"),
    "engine.analysis.context": ("Bracket", "InContext", "analyze_chart", "find_brackets",
                                "in_context"),
    "engine.analysis.frames": ("COLUMNS", "analyze_arrow", "analyze_frame", "arrow_type",
                               "frame_meta", "pair_columns", "result_table"),
    "engine.analysis.grid": ("CLASSES", "INTERPRETATIONS", "accidental_of", "class_of_labels",
                             "quality_class"),
    "engine.analysis.keyfind": ("ChartChord", "KeyReading", "chart_key", "chart_keys",
                                "key_of_symbols"),
    "engine.analysis.keyfind_batch": ("ChordFacts", "chart_key_names"),
    "engine.analysis.operation": ("analyze",),
    "engine.analysis.operations": ("TUNING_RANGE", "numeral_frame", "numeral_mark", "resolve",
                                   "role_function", "role_in_key", "role_of", "role_parts",
                                   "role_parts_table"),
    "engine.analysis.pairs": ("BlockPairs", "PairTable"),
    "engine.analysis.readings": ("SLASH_SUS", "heard_as"),
})

__all__ = [
    "BEATS", "CLASSES", "COLUMNS", "INTERPRETATIONS", "ROW_FIELDS", "SLASH_SUS", "TUNING_RANGE", "BadRow", "BatchResult",
    "BlockPairs", "Bracket", "Chart", "ChartChord", "ChartSection", "ChordFacts", "InContext",
    "KeyReading",
    "PairTable", "Placed",
    "accidental_of", "analyze", "analyze_arrow", "analyze_batch", "analyze_chart", "analyze_frame", "arrow_type",
    "bars_of", "chart_key", "chart_key_names", "chart_keys", "class_of_labels",
    "find_brackets", "frame_meta", "heard_as", "in_context", "key_of_symbols", "labelled_parts",
    "numeral_frame", "numeral_mark", "pair_columns",
    "quality_class", "resolve", "result_columns", "result_table", "role_function",
    "role_in_key", "role_of", "role_parts", "role_parts_table",
]
