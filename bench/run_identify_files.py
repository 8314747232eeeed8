"""identify on MIDI files (issue 39): our own ``conduct`` arrangements, every style, read back
from the MIDI file alone (harmony, pattern and bass lanes; drums ignored): the share of the
lead sheet's chords whose root and class (major, minor, dominant, half-diminished...) the chart
read from the file has at the same bar and beat, and the share of keys found right; then a
5-minute file analysed against mido's own time to read it.

    .venv/bin/python bench/run_identify_files.py [arrangements a style, default 20]
    .venv/bin/python bench/run_identify_files.py --five-minutes   (only the speed figure)
"""

from __future__ import annotations

import base64
import gc
import io
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import mido

from engine import conduct, identify
from engine.analysis.grid import quality_class
from engine.chords import parse, parse_key

STYLES = {"swing": "medium swing", "bossa_nova": "bossa nova", "ballad": "slow ballad",
          "jazz_waltz": "jazz waltz", "funk": "funk", "samba": "samba",
          "shuffle_blues": "shuffle blues", "rock_pop": "rock pop", "gospel": "gospel",
          "modal_vamp": "modal vamp"}
KEYS = ("C", "F", "Bb", "Eb", "G", "D", "A", "Ab", "Cm", "Dm", "Gm", "Am", "E", "Fm")


def chord_at(chart: list[list[dict[str, object]]], bar: int, beat: int) -> str | None:
    if bar > len(chart):
        return None
    found = None
    for cell in chart[bar - 1]:
        if int(str(cell["beat"])) <= beat:
            found = str(cell["symbol"])
    return found


def same(a: str, b: str) -> bool:
    ca, cb = parse(a), parse(b)
    return ca.root.pc == cb.root.pc and quality_class(ca) == quality_class(cb)


def main() -> None:
    if "--five-minutes" in sys.argv:
        five_minutes()
        return
    per_style = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    total_right = total = keys_right = files = 0
    misses: Counter[str] = Counter()
    for style, words in STYLES.items():
        right = count = k_right = 0
        for i in range(per_style):
            key = KEYS[i % len(KEYS)]
            prompt = f"{words} in {key[:-1] + ' minor' if key.endswith('m') else key}"
            arranged = conduct({"prompt": prompt, "durationSec": 45, "seed": i + 1,
                                "detail": "full"})
            found = identify({"midi": arranged["midi"]})
            for cell in arranged["chords"]:
                ours = chord_at(found["chart"], int(cell["bar"]), int(cell["beat"]))
                ok = ours is not None and same(ours, cell["symbol"])
                right += ok
                count += 1
                if not ok:
                    misses[f"{cell['symbol']} -> {ours}"] += 1
            truth = parse_key(arranged["conductor"]["key"] + (
                "m" if arranged["conductor"]["mode"] == "minor" else ""))
            got = parse_key(found["analysis"]["key"])
            k_right += got.tonic.pc == truth.tonic.pc and got.mode == truth.mode
        print(f"{style:14s} chords {100 * right / max(count, 1):6.2f} % of {count}, "
              f"key {k_right} / {per_style}")
        total_right += right
        total += count
        keys_right += k_right
        files += per_style
    print(f"all styles: chords {100 * total_right / total:.2f} % of {total}, keys "
          f"{100 * keys_right / files:.1f} % of {files} files")
    print("most frequent misses:", ", ".join(f"{k} x{v}" for k, v in misses.most_common(10)))
    five_minutes()


def five_minutes(runs: int = 5) -> None:
    """A 5-minute file (conduct, medium swing, 156 bars) analysed against mido's own read of
    it: ``runs`` alternated runs (mido, then ours), the median of the ratios of wall time and
    of CPU time (the CPU time is steadier on a loaded machine)."""
    long = conduct({"prompt": "medium swing in Bb", "durationSec": 300, "seed": 7,
                    "detail": "full"})
    data = base64.b64decode(long["midi"])
    identify({"midi": long["midi"]})   # the first call, once: imports and caches
    wall, cpu, read_ms, ours_ms = [], [], [], []
    for _ in range(runs):
        gc.collect()   # each run starts from the same heap: a collection falls in none
        w, c = time.perf_counter(), time.process_time()
        mido.MidiFile(file=io.BytesIO(data))
        read_w, read_c = time.perf_counter() - w, time.process_time() - c
        gc.collect()
        w, c = time.perf_counter(), time.process_time()
        identify({"midi": long["midi"]})
        ours_w, ours_c = time.perf_counter() - w, time.process_time() - c
        wall.append(ours_w / read_w)
        cpu.append(ours_c / read_c)
        read_ms.append(1000 * read_w)
        ours_ms.append(1000 * ours_w)
    print(f"5-minute MIDI ({len(data)} bytes, {long['conductor']['bars']} bars), {runs} alternated "
          f"runs (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores): mido reads it "
          f"in {', '.join(f'{t:.0f}' for t in read_ms)} ms; identify analyses it in "
          f"{', '.join(f'{t:.0f}' for t in ours_ms)} ms")
    print(f"  analysed in {statistics.median(wall):.2f}x mido's read (median of {runs} ratios of "
          f"wall time; CPU time {statistics.median(cpu):.2f}x)")


if __name__ == "__main__":
    main()
