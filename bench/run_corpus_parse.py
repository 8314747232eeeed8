"""Symbols per second over every chord token of the two jazz corpora (189,564 tokens).

Cold: the parse caches are cleared first, so each distinct symbol is parsed once and its
repeats are cache hits, as in a service reading real charts. Cached: a second pass.
Run: ``.venv/bin/python bench/run_corpus_parse.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.shared import CORPORA
from engine.chords import symbols
from engine.errors import InvalidChord
from tests.corpus_tokens import chord_tokens


def _pass(tokens: list[str]) -> tuple[float, int]:
    failures = 0
    start = time.perf_counter()
    for token in tokens:
        try:
            symbols.parse(token)
        except InvalidChord:
            failures += 1
    return time.perf_counter() - start, failures


def main() -> int:
    if not (CORPORA / "jazz-ccp").is_dir():
        print(f"corpora not found at {CORPORA}: skipped")
        return 0
    tokens = chord_tokens(CORPORA)
    distinct = len(set(tokens))
    symbols._parse.cache_clear()
    symbols._composed.cache_clear()
    cold_s, failures = _pass(tokens)
    warm_s = min(_pass(tokens)[0] for _ in range(5))
    print(f"corpus parse: {len(tokens):,} tokens, {distinct:,} distinct symbols, "
          f"{failures} failures")
    print(f"  cold   {len(tokens) / cold_s:,.0f} symbols/s  ({cold_s * 1e3:.1f} ms)")
    print(f"  cached {len(tokens) / warm_s:,.0f} symbols/s  ({warm_s * 1e3:.1f} ms, "
          f"{warm_s / len(tokens) * 1e6:.3f} µs per symbol)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
