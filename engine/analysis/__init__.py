"""Analysis: the rule grid (every chord class read in every key), the chord-scale catalogue,
the ``analyze`` and ``resolve`` operations, and ``analyze_batch`` over whole corpora as arrays.
"""

from engine.analysis.batch import ROW_FIELDS, BadRow, BatchResult, analyze_batch
from engine.analysis.grid import CLASSES, quality_class
from engine.analysis.operations import TUNING_RANGE, analyze, resolve, role_of

__all__ = [
    "CLASSES", "ROW_FIELDS", "TUNING_RANGE", "BadRow", "BatchResult", "analyze",
    "analyze_batch", "quality_class", "resolve", "role_of",
]
