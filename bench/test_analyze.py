"""analyze and resolve, warm (caches filled), and analyze of (chord, key) pairs not seen
before: microseconds per call.

Run: .venv/bin/python -m pytest bench/test_analyze.py --benchmark-enable
"""

from __future__ import annotations

from typing import Any

from engine import analyze, resolve
from engine.analysis.operations import _analysis, analyze_chord, role_of
from engine.chords.keys import parse_key
from engine.chords.symbols import parse

ANALYZE = [{"chord": c, "key": k} for c, k in (
    ("Dm7b5", "C"), ("G7b9", "C"), ("Db7", "C"), ("Fmaj7", "Am"), ("E7alt", "Am"),
    ("Abmaj7", "Eb"), ("C#dim7/E", "C"), ("Bb13", "F"))]
# 12 roots x 12 qualities x 24 keys: 3,456 distinct pairs of 144 chords.
_ROOTS = ["C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]
NEW_PAIRS = [{"chord": r + q, "key": k} for k in _ROOTS + [r + "m" for r in _ROOTS]
             for r in _ROOTS
             for q in ("", "m", "7", "maj7", "m7", "m7b5", "dim7", "6", "m9", "13", "7b9", "7alt")]
RESOLVE = [{"chord": c} for c in ("G13", "C/E", "F#7#9", "Cm(maj9)", "Bbmaj7#11", "Ebdim7")]


def _all(fn: Any, requests: list[dict[str, str]]) -> None:
    for r in requests:
        fn(r)


def test_analyze_warm(benchmark: Any) -> None:
    _all(analyze, ANALYZE)
    benchmark.extra_info["calls_per_round"] = len(ANALYZE)
    benchmark(_all, analyze, ANALYZE)


def test_analyze_new_pairs(benchmark: Any) -> None:
    """Each call a (chord, key) pair not seen before: the kept analysis and the chord's role in
    the key are built (the parse of the chord and of the key, and the chord's scale entries,
    stay cached, as in a server that has met the chord in another key). The path of a REST
    call whose answer is not kept."""
    _all(analyze, NEW_PAIRS)

    def forget() -> tuple[tuple[Any, ...], dict[str, Any]]:
        _analysis.cache_clear()
        role_of.cache_clear()
        return (analyze, NEW_PAIRS), {}

    benchmark.extra_info["calls_per_round"] = len(NEW_PAIRS)
    benchmark.pedantic(_all, setup=forget, rounds=30)


def test_resolve_warm(benchmark: Any) -> None:
    _all(resolve, RESOLVE)
    benchmark.extra_info["calls_per_round"] = len(RESOLVE)
    benchmark(_all, resolve, RESOLVE)


def test_role_of_parsed(benchmark: Any) -> None:
    """The lookup other modules use (reharmonize): a parsed chord's role in a key."""
    pairs = [(parse(r["chord"]), parse_key(r["key"])) for r in ANALYZE]

    def run() -> None:
        for chord, key in pairs:
            role_of(chord, key)

    benchmark.extra_info["calls_per_round"] = len(pairs)
    benchmark(run)


def test_analyze_chord_parsed(benchmark: Any) -> None:
    pairs = [(parse(r["chord"]), parse_key(r["key"])) for r in ANALYZE]

    def run() -> None:
        for chord, key in pairs:
            analyze_chord(chord, key)

    benchmark.extra_info["calls_per_round"] = len(pairs)
    benchmark(run)
