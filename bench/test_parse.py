"""parse() speed, µs per symbol: cold (caches cleared) and cached, over the peer workload.

Run: ``.venv/bin/python -m pytest bench/test_parse.py --benchmark-enable``. The per-symbol
figure is in each result's ``extra_info`` (and printed with ``-s``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.shared import peer_workload
from engine.chords import symbols
from engine.chords.symbols import parse

SYMBOLS = peer_workload() or ["Cmaj7", "Dm7", "G7b9", "F#m7b5", "Bb13#11", "Ebdim7/A"]
DISTINCT = list(dict.fromkeys(SYMBOLS))  # a cold pass must miss the cache on every symbol
COMPOSED = "Db7(b9,#11)/F"   # not a table alias: goes through the modifier grammar


def _clear_parse_cache() -> None:
    symbols._parse.cache_clear()


def _clear_all_caches() -> None:
    symbols._parse.cache_clear()
    symbols._composed.cache_clear()


def _parse_all() -> None:
    for s in SYMBOLS:
        parse(s)


def _parse_distinct() -> None:
    for s in DISTINCT:
        parse(s)


def _report(benchmark: Any, per: int) -> None:
    stats = benchmark.stats.stats
    us = stats.median / per * 1e6
    best = stats.min / per * 1e6
    benchmark.extra_info["us_per_symbol_min"] = round(best, 3)
    benchmark.extra_info["us_per_symbol_median"] = round(us, 3)
    print(f"\n{benchmark.name}: {us:.3f} µs per symbol (median), {best:.3f} (best)")


def _run(benchmark: Any, fn: Callable[[], None],
         setup: Callable[[], None] | None, rounds: int) -> None:
    benchmark.pedantic(fn, setup=setup, rounds=rounds, iterations=1, warmup_rounds=3)


def test_parse_cold_parse_cache(benchmark: Any) -> None:
    """Every distinct symbol parsed afresh; only the parse cache is cleared."""
    _run(benchmark, _parse_distinct, _clear_parse_cache, 30)
    _report(benchmark, len(DISTINCT))


def test_parse_cold_all_caches(benchmark: Any) -> None:
    """Both caches cleared before each pass: qualities outside the prebuilt vocabulary are
    composed by the grammar again, once per suffix per pass."""
    _run(benchmark, _parse_distinct, _clear_all_caches, 30)
    _report(benchmark, len(DISTINCT))


def test_parse_cached(benchmark: Any) -> None:
    _parse_all()
    _run(benchmark, _parse_all, None, 50)
    _report(benchmark, len(SYMBOLS))


def test_parse_composed_symbol_fully_cold(benchmark: Any) -> None:
    """The worst case: a symbol whose quality is composed by the grammar, no cache at all."""
    _run(benchmark, lambda: parse(COMPOSED), _clear_all_caches, 2000)
    _report(benchmark, 1)
