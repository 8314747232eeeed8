"""Our parse() against pychord and music21 on the shared peer workload, in one run.

For each library: the median time per chord symbol (each symbol timed alone), its failures
(symbols it raises on) and how many of its readings differ in pitch classes from ours.
Ours is timed fully cold (caches cleared before every symbol) and cached. The peers are
bench-only extras (``requirements-bench.lock``); a missing one is reported and skipped.
Run: ``.venv/bin/python bench/run_peers.py``.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.shared import PEER_WORKLOAD, peer_workload
from engine.chords import symbols

Reader = Callable[[str], frozenset[int]]
_FLAT_NOTE = re.compile(r"(^|/)([A-G])b")


def ours_cold(symbol: str) -> object:
    """The parse of a symbol not in the parse cache (the quality vocabulary stays built)."""
    return symbols._parse.__wrapped__(symbol)


def ours_cached(symbol: str) -> object:
    return symbols.parse(symbol)


def ours_reading(symbol: str) -> frozenset[int]:
    return frozenset(symbols.parse(symbol).pcs)


def _pychord() -> Reader | None:
    try:
        from pychord import Chord
    except ImportError:
        return None

    def read(symbol: str) -> frozenset[int]:
        return frozenset(n % 12 for n in Chord(symbol).components(visible=False))
    return read


def _music21() -> Reader | None:
    try:
        from music21 import harmony
    except ImportError:
        return None

    def read(symbol: str) -> frozenset[int]:
        # music21 writes flats as "-" (B-7); "Bb7" would be read as B with a "b7" quality
        written = _FLAT_NOTE.sub(lambda m: m.group(1) + m.group(2) + "-", symbol)
        chord = harmony.ChordSymbol(written)
        return frozenset(p.pitchClass for p in chord.pitches if p is not None)
    return read


def per_symbol_us(call: Callable[[str], object], workload: list[str], repeat: int) -> float:
    """Mean µs per symbol over whole passes (best of ``repeat``); failures are skipped."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for symbol in workload:
            try:  # noqa: SIM105 - contextlib.suppress would add its own cost to every call
                call(symbol)
            except Exception:  # a peer's failure, whatever it raises
                pass
        best = min(best, time.perf_counter() - start)
    return best / len(workload) * 1e6


def readings(read: Reader, workload: list[str]) -> tuple[dict[str, str],
                                                         dict[str, frozenset[int]]]:
    """Failures (symbol -> error) and pitch-class readings, untimed."""
    failures: dict[str, str] = {}
    pcs: dict[str, frozenset[int]] = {}
    for symbol in workload:
        try:
            pcs[symbol] = read(symbol)
        except Exception as exc:  # a peer's failure, whatever it raises
            failures[symbol] = f"{type(exc).__name__}: {exc}"[:80]
    return failures, pcs


def main() -> int:
    workload = peer_workload()
    if workload is None:
        print(f"peer workload not found at {PEER_WORKLOAD}: skipped")
        return 0
    print(f"peer workload: {len(workload)} symbols ({len(set(workload))} distinct)")
    our_failures, ours = readings(ours_reading, workload)
    cold_us = per_symbol_us(ours_cold, workload, 5)
    cached_us = per_symbol_us(ours_cached, workload, 5)
    print(f"  ours (cold)    {cold_us:8.2f} µs per symbol, {len(our_failures)} failures")
    print(f"  ours (cached)  {cached_us:8.2f} µs per symbol")
    status = 1 if our_failures else 0
    for name, factory in (("pychord", _pychord), ("music21", _music21)):
        read = factory()
        if read is None:
            print(f"  {name}: not installed (pip install -r requirements-bench.lock)")
            continue
        failures, theirs = readings(read, workload)
        us = per_symbol_us(read, workload, 1 if name == "music21" else 3)
        differ = sorted({s for s, pcs in theirs.items() if ours.get(s) != pcs})
        print(f"  {name:<14} {us:8.2f} µs per symbol: ours is {us / cold_us:,.1f}x faster cold,"
              f" {us / cached_us:,.0f}x cached")
        print(f"  {'':<14} {len(failures)} failures ({len(set(failures))} distinct symbols)"
              f"; {len(differ)} distinct symbols read with other pitch classes than ours")
        for symbol, error in sorted(failures.items())[:6]:
            print(f"  {'':<16}fails {symbol!r}: {error}")
        for symbol in differ[:4]:
            print(f"  {'':<16}differs {symbol!r}: {sorted(theirs[symbol])} vs ours "
                  f"{sorted(ours[symbol])}")
    return status


if __name__ == "__main__":
    sys.exit(main())
