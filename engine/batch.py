"""Corpus-scale analysis under the name API.md section 16 gives it: ``engine.batch.analyze_frame``
(pandas DataFrame or pyarrow Table in, the same kind out) and ``analyze_batch`` (sequences).
They live in ``engine.analysis``."""

from engine.analysis import COLUMNS, ROW_FIELDS, analyze_batch, analyze_frame, frame_meta

__all__ = ["COLUMNS", "ROW_FIELDS", "analyze_batch", "analyze_frame", "frame_meta"]
