"""The columns of a batch result outside ``harmony batch``'s columnar path, in one command:
``result_table`` (the row path's Parquet table) and ``analyze_frame`` on a pandas DataFrame and
on a pyarrow Table (``analyze_arrow``), at two shapes:

- ``300k/50``: 300,000 rows holding 50 distinct (chord, key) pairs, shuffled;
- ``jazz``: every chord token of the two jazz corpora with its song's key (a song without one
  read in C), in file order (``tests/corpus_tokens.py``; left out when ../shared/corpora is
  absent).

``result_table`` is timed alone (its ``analyze_batch`` made before, a fresh result each time:
a result keeps the rows it built); ``analyze_frame`` whole, its analysis included. A run is
its own process and gives each figure as the fastest of three calls after a warm-up, in CPU
time of the process (``time.process_time``: on a machine shared with other work, the wall
time of a call waits for a core and varied five-fold between runs of the same code);
``--before DIR`` runs a checkout of the code before a change beside this one, the two
alternated run by run, and checks that both give the same tables. Figures: the median of
``--runs`` runs, in milliseconds, and after/before.

Run: .venv/bin/python bench/run_frame_columns.py [--runs 5] [--before DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parent.parent
CORPORA = Path(os.environ.get("HARMONY_CORPORA", REPO.parent / "shared" / "corpora"))
ROWS, DISTINCT = 300_000, 50
CHORDS = ("Cmaj7", "Dm7", "G7", "Em7b5", "A7b9", "F6", "Bb7", "Ebmaj7", "Ab7#11", "Db9",
          "Gm7", "C7", "Fmaj7", "E7alt", "Am7", "D7sus4", "Bdim7", "F#m7b5", "B7", "H7",
          "Cm6", "G13", "Abmaj7#5", "Dbmaj7", "Csus2")
KEYS = ("C", "Gm")


def _shapes() -> dict[str, tuple[list[str], list[str]]]:
    import numpy as np

    pairs = [(c, k) for k in KEYS for c in CHORDS][:DISTINCT]
    pick = np.random.default_rng(7).integers(0, len(pairs), ROWS)
    shapes = {"300k/50": ([pairs[i][0] for i in pick], [pairs[i][1] for i in pick])}
    if (CORPORA / "jazz-ccp").is_dir():
        from tests.corpus_tokens import keyed_tokens

        tokens = keyed_tokens(CORPORA)
        shapes["jazz"] = ([s for s, _ in tokens], [k or "C" for _, k in tokens])
    return shapes


def _fastest(call: Any, prepare: Any = None, times: int = 3) -> float:
    best = float("inf")
    for _ in range(times + 1):  # the first call warms the caches (parsed symbols and keys)
        argument = prepare() if prepare is not None else None
        start = time.process_time()
        call(argument)
        best = min(best, time.process_time() - start)
    return best * 1e3


def _digest(table: Any) -> str:
    """The table's columns, value for value and type for type."""
    return hashlib.sha256(orjson.dumps({name: [str(table.schema.field(name).type),
                                               table.column(name).to_pylist()]
                                        for name in table.column_names})).hexdigest()[:16]


def _digest_frame(frame: Any) -> str:
    """The frame's columns and their dtypes, value for value (a missing value: None)."""
    cells = frame.astype(object).where(frame.notna(), None).to_numpy().tolist()
    return hashlib.sha256(orjson.dumps([[str(t) for t in frame.dtypes], cells],
                                       option=orjson.OPT_SERIALIZE_NUMPY)).hexdigest()[:16]


def once(tree: str) -> dict[str, Any]:
    """One run's figures (ms) and the tables' digests, with ``tree``'s code."""
    sys.path.insert(0, tree)
    import pandas as pd
    import pyarrow as pa

    from engine.analysis import analyze_batch, analyze_frame, result_table

    assert Path(sys.modules["engine"].__file__ or "").is_relative_to(tree)
    out: dict[str, Any] = {}
    for shape, (chords, keys) in _shapes().items():
        frame = pd.DataFrame({"chord": chords, "key": keys})
        table = pa.table({"chord": pa.array(chords, pa.string()),
                          "key": pa.array(keys, pa.string())})
        out[f"result_table {shape}"] = _fastest(result_table,
                                                lambda c=chords, k=keys: analyze_batch(c, k))
        out[f"analyze_frame pandas {shape}"] = _fastest(lambda _, f=frame: analyze_frame(f))
        out[f"analyze_frame arrow {shape}"] = _fastest(lambda _, t=table: analyze_frame(t))
        out[f"digest {shape}"] = [
            _digest(result_table(analyze_batch(chords, keys))),
            _digest_frame(analyze_frame(frame)),
            _digest(analyze_frame(table))]
    return out


def _run(tree: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--once", str(tree)], check=True,
                          capture_output=True, cwd=REPO)
    return orjson.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="a checkout of the code before a change")
    parser.add_argument("--once", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.once:
        sys.stdout.buffer.write(orjson.dumps(once(args.once)))
        return 0
    trees = {"after": REPO, **({"before": args.before.resolve()} if args.before else {})}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for _ in range(args.runs):
        for name, tree in reversed(trees.items()):  # before, then after: alternated
            runs[name].append(_run(tree))
    print(f"load average {os.getloadavg()[0]:.2f}; median of {args.runs} runs, each call "
          "the fastest of 3, CPU ms")
    figures = [k for k in runs["after"][0] if not k.startswith("digest")]
    for figure in figures:
        line = f"{figure:32}"
        medians = {name: statistics.median(r[figure] for r in rs) for name, rs in runs.items()}
        for name, rs in runs.items():
            line += f"  {name} {medians[name]:8.1f} ({', '.join(f'{r[figure]:.0f}' for r in rs)})"
        if "before" in medians:
            line += f"  after/before {medians['after'] / medians['before']:.2f}"
        print(line)
    if "before" in runs:
        same = all(runs["after"][0][k] == runs["before"][0][k]
                   for k in runs["after"][0] if k.startswith("digest"))
        print("tables identical before and after:", same)
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
