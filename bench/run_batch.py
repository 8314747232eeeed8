"""Batch analysis over the two jazz corpora (189,564 tokens) against a pure-Python loop over
``analyze``, in the same run. Prints chords per second and the ratios.

Run: .venv/bin/python bench/run_batch.py   (skips when ../shared/corpora is absent)
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import suppress
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine import analyze  # noqa: E402
from engine.analysis.batch import analyze_batch, lookup  # noqa: E402
from engine.errors import HarmonyError  # noqa: E402
from tests.corpus_tokens import keyed_tokens  # noqa: E402

CORPORA = Path(os.environ.get("HARMONY_CORPORA", REPO.parent / "shared" / "corpora"))


def best(fn, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    if not (CORPORA / "jazz-ccp").is_dir():
        print(f"run_batch: corpora not found at {CORPORA}, skipped")
        return 0
    rows = keyed_tokens(CORPORA)
    chords = [s for s, _ in rows]
    keys = [k for _, k in rows]  # a song without a key is read in C
    n = len(rows)

    cold = best(lambda: analyze_batch(chords, keys), repeat=1)
    whole = best(lambda: analyze_batch(chords, keys))
    result = analyze_batch(chords, keys)
    st, kt = result.symbol_table, result.key_table
    core = best(lambda: lookup(result.sym, result.key, st, kt), repeat=20)
    read_out = best(lambda: sum(1 for _ in analyze_batch(chords, keys).rows()), repeat=3)

    requests = [{"chord": s, "key": k} for s, k in rows]

    def loop() -> None:
        for r in requests:
            with suppress(HarmonyError):  # a bad row counts as done, as in the batch
                analyze(r)

    loop()  # warm the caches, as the batch has
    python = best(loop, repeat=2)

    print(f"jazz corpora: {n:,} rows, {len(st.chords):,} distinct symbols, "
          f"{len(kt.keys)} distinct keys, {int((result.error != 0).sum())} error rows")
    print(f"  batch lookup after parsing : {n / core:>14,.0f} chords/s ({core * 1e3:.2f} ms)")
    print(f"  analyze_batch, whole       : {n / whole:>14,.0f} chords/s ({whole * 1e3:.1f} ms;"
          f" first call {cold * 1e3:.1f} ms)")
    print(f"  analyze_batch + row dicts  : {n / read_out:>14,.0f} chords/s")
    print(f"  Python loop over analyze   : {n / python:>14,.0f} chords/s "
          f"({python / n * 1e6:.2f} us per chord)")
    print(f"  ratio lookup / loop        : {python / core:>14,.0f}x")
    print(f"  ratio whole batch / loop   : {python / whole:>14,.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
