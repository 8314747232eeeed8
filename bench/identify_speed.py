"""identify's speed figures for ``bench/run_identify.py`` (issue 39), in fresh processes: every
pitch-class set with no bass and on each of its notes, as pitch classes, MIDI numbers, note
names and in a key (``every_set``), each asked once (cold), again with the kept answers
forgotten (new), and the last ones again (warm), timed (``cold``); and the instructions a new
request takes once the tables are filled, counted by callgrind (``instructions``). Each can be
run against the engine of another checkout, alternated.
"""

from __future__ import annotations

import gc
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench.shared import REPO, callgrind_between

NAMES = ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")


def every_set() -> dict[str, list[dict[str, object]]]:
    """Every pitch-class set with no bass and over each of its notes, as pitch classes, as
    MIDI numbers (the bass lowest), as note names with octaves, and with a key."""
    out: dict[str, list[dict[str, object]]] = {"pcs": [], "midi": [], "names": [], "key": []}
    for mask in range(1, 4096):
        pcs = [p for p in range(12) if mask >> p & 1]
        out["pcs"].append({"pcs": pcs})
        for bass in pcs:
            out["pcs"].append({"pcs": pcs, "bass": bass})
            out["midi"].append({"notes": [48 + bass] + [60 + p for p in pcs if p != bass]})
            out["names"].append({"notes": [NAMES[bass] + "3"] + [NAMES[p] + "4" for p in pcs
                                                                  if p != bass]})
            out["key"].append({"notes": [48 + bass] + [60 + p for p in pcs if p != bass],
                               "key": ("C", "Eb", "A", "F#m")[(mask + bass) % 4]})
    return out


COLD_CHILD = """
import sys, time
started, cpu = time.perf_counter(), time.process_time()
from engine import identify
imported, imported_cpu = time.perf_counter() - started, time.process_time() - cpu
sys.path.insert(0, {bench!r})   # this bench, the engine of the working directory
sys.argv = ["--cold-child"]
from bench.identify_speed import cold_child
cold_child(identify, imported, imported_cpu)
"""
WARM = 2000      # the last requests of each kind asked again: the answers kept fit in memory


def cold_child(fresh: Callable[[dict[str, object]], object], imported: float,
               imported_cpu: float = 0.0) -> None:
    """In a fresh process: every request once (cold), every request again with the answers
    kept forgotten (new: a set not asked before, in a process whose tables the cold pass
    filled: a chord spelt, a role read in a key the first time), then the last ``WARM`` again
    (warm: answers in a key kept from their second asking; other forms built again). Prints one line a kind of request: µs a
    call, the cold pass's CPU time a call (robust on a loaded machine), its wall time's median
    and 99th percentile, the new pass's CPU time, the warm CPU time, and the first request of
    the kind (the first of its form in the process, wall). Each CPU time a call holds the
    bench's own timing of the call (``timer``, printed first: ~0.2 µs)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sets = every_set()
    gc.collect()
    gc.freeze()   # the requests are the bench's: collections need not walk them
    clock = time.perf_counter_ns
    first = clock()
    fresh(sets["pcs"][1])
    first = clock() - first
    timer = _timed_cpu(lambda req: None, sets["pcs"], [])
    print(f"import of engine {1e3 * imported:.0f} ms ({1e3 * imported_cpu:.0f} ms CPU), "
          f"peak RSS {rss:.0f} MB; first call of the process {first / 1e3:.1f} µs; "
          f"timer {timer / 1e3:.2f} µs a call")
    operation = sys.modules.get("engine.identify.operation")
    for kind, requests in sets.items():
        times: list[int] = []
        cpu = _timed_cpu(fresh, requests, times)
        for name in ("_KEPT", "_ASKED"):   # the answers kept, forgotten: each request is new
            kept = getattr(operation, name, None)
            if kept is not None:
                kept.clear()
        new = _timed_cpu(fresh, requests, [])
        once = times[0]
        by_size: dict[int, list[int]] = {}
        for req, took in zip(requests, times, strict=True):
            notes = req.get("notes", req.get("pcs"))
            by_size.setdefault(len(notes), []).append(took)  # type: ignore[arg-type]
        times.sort()
        warm = time.process_time_ns()
        for _ in range(5):
            for req in requests[-WARM:]:
                fresh(req)
        warm = time.process_time_ns() - warm
        print(f"{kind:5s} {len(requests):6d} requests: cold cpu {cpu / 1e3:.2f} "
              f"wall median {times[len(times) // 2] / 1e3:.2f} p99 "
              f"{times[len(times) * 99 // 100] / 1e3:.2f}; new cpu {new / 1e3:.2f}; "
              f"warm cpu {warm / 5 / WARM / 1e3:.2f}; first {once / 1e3:.1f}")
        print("      by notes sounding, cold wall median µs: " + "  ".join(
            f"{n}: {sorted(t)[len(t) // 2] / 1e3:.1f}" for n, t in sorted(by_size.items())
            if 3 <= n <= 8))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS after every request {rss:.0f} MB")


def _timed_cpu(call: Callable[[dict[str, object]], object], requests: list[dict[str, object]],
               times: list[int]) -> float:
    """CPU ns a call of ``call`` over ``requests``, each call timed (wall ns into ``times``)."""
    clock = time.perf_counter_ns
    cpu = time.process_time_ns()
    for req in requests:
        t0 = clock()
        call(req)
        times.append(clock() - t0)
    return (time.process_time_ns() - cpu) / len(requests)


COLD_FIGURES = ("cold cpu", "wall median", "new cpu", "warm cpu", "first")


def _child(tree: Path) -> list[str]:
    """One fresh process measuring the engine of ``tree`` with this bench's requests."""
    code = COLD_CHILD.format(bench=str(REPO))
    out = subprocess.run([sys.executable, "-c", code], check=True, cwd=tree,
                         capture_output=True, text=True).stdout
    return out.splitlines()


def _figures(line: str) -> tuple[str, dict[str, float]] | None:
    words = line.replace(";", "").replace(",", "").split()
    if "requests:" not in words:
        return None
    text = " ".join(words)
    found = {}
    for name in COLD_FIGURES:
        at = text.find(name + " ")
        if at >= 0:
            found[name] = float(text[at + len(name) + 1:].split()[0])
    return words[0], found


def cold(processes: int = 5, against: Path | None = None) -> None:
    """The cold and warm figures in ``processes`` fresh processes: each line, then the median
    of each figure. With ``against`` (another checkout, e.g. ``git worktree add /tmp/before
    main``), its engine is measured too, alternately, with the same requests and code."""
    trees = [REPO] if against is None else [against, REPO]
    print(f"identify cold and warm, µs a call, {processes} fresh processes a tree "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores):")
    figures: dict[Path, dict[str, list[dict[str, float]]]] = {t: {} for t in trees}
    for _ in range(processes):
        for tree in trees:
            for line in _child(tree):
                print("  ", "" if against is None else f"[{tree.name}]", line)
                parsed = _figures(line)
                if parsed is not None:
                    figures[tree].setdefault(parsed[0], []).append(parsed[1])
    for tree in trees:
        if against is not None:
            print(f"  {tree}:")
        for kind, runs in figures[tree].items():
            median = {name: statistics.median(r.get(name, float("nan")) for r in runs)
                      for name in COLD_FIGURES}
            print(f"  {kind:5s}: cold {median['cold cpu']:.2f} µs CPU (wall median "
                  f"{median['wall median']:.2f}), new {median['new cpu']:.2f}, warm "
                  f"{median['warm cpu']:.2f} µs CPU a call, first of its form "
                  f"{median['first']:.1f} µs (median of {len(runs)})")
    if against is not None:
        for kind in figures[REPO]:
            ratio = [statistics.median(r["cold cpu"] for r in figures[REPO][kind])
                     / statistics.median(r["cold cpu"] for r in figures[against][kind])]
            print(f"  {kind:5s}: cold CPU this tree / the other {ratio[0]:.2f}")
    print(f"  load average at the end {os.getloadavg()[0]:.1f}")


INSTRUCTIONS_CHILD = """
import sys, gc
from engine import identify   # the engine of the working directory
sys.path.insert(0, {bench!r})   # ... and this bench
from bench.identify_speed import every_set
operation = sys.modules["engine.identify.operation"]
requests = every_set()[{kind!r}][::3]
for req in requests:   # the tables filled: each chord spelt, each role read once
    identify(req)
for name in ("_ASKED", "_KEPT"):   # answers kept by an engine that keeps them, forgotten
    getattr(operation, name, set()).clear()
gc.collect()
gc.freeze()
print("ready", flush=True)
sys.stdin.readline()
for req in requests:
    identify(req)
print("done", flush=True)
sys.stdin.readline()
print(len(requests), flush=True)
"""


def instructions(tree: Path, kind: str) -> float:
    """Instructions a request of ``kind`` (every_set's), new to a process whose tables the
    same requests filled, counted by callgrind between the driver's "ready" and "done"."""
    total, rest = callgrind_between(
        [sys.executable, "-c", INSTRUCTIONS_CHILD.format(bench=str(REPO), kind=kind)], cwd=tree,
        env={**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"})
    return total / int(rest.split()[0])
