"""Every ii-V-I of the iReal standards found by the progression analysis's brackets
(``engine.analysis.context``), against a brute-force scan of each chart written independently
here: three chords in a row (a chord held over several bars counts once) whose roots fall a
fourth twice, the first a minor seventh or half-diminished chord (m7, m9, m11, m7b5), the second
a dominant, the third a major or minor chord that is not a dominant; the scan wraps from the
last bar to the first, as the form is played. Prints the counts, the misses and the commonest
bracket targets (as numerals of the chart's key) over the corpus; then, for the twenty tunes
of docs/analysis.md's hand-checked table, each tune's ii-V-I targets.

    .venv/bin/python bench/run_brackets.py [path/to/JazzStandards.json]
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

from engine.analysis.chart import Chart, Placed, Section
from engine.analysis.context import analyze_chart
from engine.chords import Chord, parse_key
from engine.corpus.loaders import load_paths
from engine.corpus.songs import Song

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "jazzstandards-ireal" \
    / "JazzStandards.json"
TUNES = ("All The Things You Are", "Autumn Leaves", "Stella By Starlight", "Blue Bossa",
         "Misty", "Body And Soul", "Solar", "Giant Steps", "Just Friends", "Tune Up",
         "There Will Never Be Another You", "Satin Doll", "Take The A Train", "Days Of Wine And Roses",
         "Out Of Nowhere", "Confirmation", "Cherokee", "I Remember You",
         "Joy Spring", "Alone Together")
II = {"m7", "m9", "m11", "m7b5"}


def chart(song: Song) -> Chart:
    placed = [Placed(c.bar, c.beat, c.chord.symbol, c.chord) for s in song.sections
              for c in s.chords]
    bars = max(p.bar for p in placed)
    return Chart((Section("A", 1, bars),), tuple(placed), bars, False)


def scan(song: Song) -> set[int]:
    """Indices (into the chart's chords) of each ii that starts a ii-V-I."""
    chords = [c.chord for s in song.sections for c in s.chords]
    held = [i for i, c in enumerate(chords) if i == 0 or c.symbol != chords[i - 1].symbol]
    if len(held) > 1 and chords[held[-1]].symbol == chords[held[0]].symbol:
        held = held[:-1]  # the last chord held into the top
    found = set()
    n = len(held)
    for k in range(n if n > 3 else 0):
        ii, v, i = (chords[held[(k + j) % n]] for j in range(3))
        if ii.quality not in II or ii.bass is not None or not _dominant(v) or \
                _dominant(i) or not _arrival(i):
            continue
        if (v.root.pc - ii.root.pc) % 12 == 5 and (i.root.pc - v.root.pc) % 12 == 5:
            found.add(held[k])
    return found


def _dominant(chord: Chord) -> bool:
    """A dominant seventh (sus or not, altered or not): a minor seventh over a major third or
    a fourth."""
    return "b7" in chord.intervals and "b3" not in chord.intervals


def _arrival(chord: Chord) -> bool:
    """A chord a ii-V can arrive on: a major or minor one with its third, not a diminished
    or half-diminished one (the ii of the next ii-V in a chain, ``Am7 D7 Gm7b5 C7``)."""
    iv = chord.intervals
    return ("3" in iv or "b3" in iv) and not ("b3" in iv and "b5" in iv)


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    songs, _ = load_paths([path])
    brute = ours = both = 0
    misses: list[str] = []
    targets: Counter[str] = Counter()
    per_tune: dict[str, list[str]] = {}
    started = time.perf_counter()
    for song in songs:
        if song.chords < 3:
            continue
        key = parse_key(song.key) if song.key else None
        result = analyze_chart(chart(song), key)
        found = {i for i, b in enumerate(result["brackets"]) if b["kind"] == "ii-V-I"}
        starts = {_index(result, result["brackets"][i]) for i in found}
        expected = scan(song)
        brute += len(expected)
        ours += len(starts)
        both += len(expected & starts)
        chords = [c.chord.symbol for s in song.sections for c in s.chords]
        for i in sorted(expected - starts)[:1]:
            misses.append(f"{song.title}: {' '.join(chords[i:i + 4])}")
        names = [_target(result, b) for b in result["brackets"] if b["kind"] == "ii-V-I"]
        targets.update(names)
        if song.title in TUNES and song.title not in per_tune:
            per_tune[song.title] = [result['key'], *names]
    elapsed = time.perf_counter() - started
    print(f"ii-V-Is by the brute-force scan: {brute}; found by the brackets: {both} "
          f"({100 * both / brute:.1f} %); brackets ii-V-I in all: {ours}")
    print(f"time: {elapsed:.2f} s for {len(songs)} charts (analysis in full)")
    print("missed (first 30):", *misses[:30], sep="\n  ")
    print("commonest targets:", ", ".join(f"{t} {n}" for t, n in targets.most_common(20)))
    for title in TUNES:
        print(f"{title}: {' '.join(per_tune.get(title, ['(not in the corpus)']))}")


def _index(result: dict, bracket: dict) -> int:
    for i, c in enumerate(result["chords"]):
        if c["bar"] == bracket["bar"] and c["beat"] == bracket["beat"]:
            return i
    raise AssertionError(bracket)


def _target(result: dict, bracket: dict) -> str:
    i = _index(result, bracket) + len(bracket["chords"])
    chords = result["chords"]
    return chords[i % len(chords)]["contextNumeral"]


if __name__ == "__main__":
    main()
