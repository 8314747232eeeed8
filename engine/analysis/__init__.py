"""Analysis: the rule grid (every chord class read in every key), the chord-scale catalogue,
the ``analyze`` and ``resolve`` operations, the key of a whole chart (``keyfind``; of a whole
corpus at once, ``keyfind_batch``), a chart read in context (``in_context``, what the voicing
needs of it), ``analyze_batch`` over whole corpora as arrays and
``analyze_frame`` over pandas DataFrames and pyarrow Tables (a Dask partition too), and
``PairTable``, the distinct (chord, key) pairs of a stream of Arrow blocks analysed once.
"""

from engine.analysis.batch import ROW_FIELDS, BadRow, BatchResult, analyze_batch
from engine.analysis.chart import BEATS, Chart, Placed, bars_of
from engine.analysis.chart import Section as ChartSection
from engine.analysis.context import Bracket, InContext, analyze_chart, find_brackets, in_context
from engine.analysis.frames import (
    COLUMNS,
    analyze_arrow,
    analyze_frame,
    arrow_type,
    column,
    frame_meta,
    pair_columns,
    result_table,
)
from engine.analysis.grid import CLASSES, quality_class
from engine.analysis.keyfind import ChartChord, KeyReading, chart_key, chart_keys
from engine.analysis.keyfind_batch import chart_key_names
from engine.analysis.operation import analyze
from engine.analysis.operations import TUNING_RANGE, resolve, role_in_key, role_of
from engine.analysis.pairs import BlockPairs, PairTable
from engine.analysis.readings import SLASH_SUS, heard_as

__all__ = [
    "BEATS", "CLASSES", "COLUMNS", "ROW_FIELDS", "SLASH_SUS", "TUNING_RANGE", "BadRow", "BatchResult",
    "BlockPairs", "Bracket", "Chart", "ChartChord", "ChartSection", "InContext", "KeyReading",
    "PairTable", "Placed",
    "analyze", "analyze_arrow", "analyze_batch", "analyze_chart", "analyze_frame", "arrow_type",
    "bars_of", "chart_key", "chart_key_names", "chart_keys", "column",
    "find_brackets", "frame_meta", "heard_as", "in_context", "pair_columns",
    "quality_class", "resolve", "result_table", "role_in_key", "role_of",
]
