"""Figures of the compose exports (issue 38) over the 1,382 iReal standards of
``../shared/corpora``:

- transpose: every chart (major and minor) to each flat-side key of its mode (C F Bb Eb Ab
  Db; Am Dm Gm Cm Fm Bbm): sharp roots on lowered degrees and V/ii spelled apart from their
  target (``tests/transpose_spelling.py``), before -> after is this script on the two trees;
- iReal: every chart exported, read back by our iReal loader: the same chord changes and bars,
  and the same beats where the chart's beats are whole;
- MusicXML: the share of chord symbols, every quality on all 12 roots, whose ``kind`` and
  ``<degree>`` elements make the chord's pitch classes.

Run: ``.venv/bin/python bench/run_compose_exports.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.shared import CORPORA
from engine import compose
from engine.chords import parse
from engine.chords.tables import QUALITIES
from tests.compose_tunes import changes, composition, read_ireal, standards
from tests.transpose_spelling import FLAT_SIDE_MAJOR, FLAT_SIDE_MINOR, mistakes

ROOTS = ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")


def transpose_figures(tunes: list) -> None:
    pairs = sharps = apart = held = chords = with_sharps = 0
    start = time.perf_counter()
    for item, song in tunes:
        comp = composition(item, song)
        keys = FLAT_SIDE_MINOR if comp["meta"]["mode"] == "minor" else FLAT_SIDE_MAJOR
        for key in keys:
            moved = compose({"composition": comp,
                             "operations": [{"op": "transpose", "key": key}]})["composition"]
            s, a, h, n = mistakes(moved)
            pairs += 1
            sharps += s
            apart += a
            held += h
            chords += n
            with_sharps += s > 0
    print(f"transpose: {pairs:,} tune/key pairs, {chords:,} chords: {sharps:,} sharp roots on "
          f"lowered degrees ({with_sharps:,} pairs with one), {apart:,} V/ii spelled apart "
          f"from their target, {held:,} held roots renamed "
          f"({time.perf_counter() - start:.1f} s)")


def ireal_figures(tunes: list) -> None:
    try:
        from engine.compose.ireal import ireal
    except ImportError:
        print("iReal: this tree has no engine.compose.ireal")
        return
    same = whole = same_beats = 0
    for item, song in tunes:
        url, _ = ireal(composition(item, song))
        back = read_ireal(url)
        a, bars_a = changes(song)
        b, bars_b = changes(back)
        if [(x[0], x[2], x[4]) for x in a] == \
                [(x[0], x[2], x[4]) for x in b] and bars_a == bars_b:
            same += 1
        if all(x[1] == int(x[1]) for x in a):
            whole += 1
            same_beats += [(x[0], x[1]) for x in a] == [(x[0], x[1]) for x in b]
    print(f"iReal: {same:,} of {len(tunes):,} standards read back with the same chords (root, "
          f"bass) and bars; {same_beats:,} of the {whole:,} on whole beats at the same beats")


def musicxml_figures() -> None:
    try:
        from engine.compose.musicxml import degrees, kind_of, spelled_pcs
    except ImportError:
        print("MusicXML: this tree has no spelled_pcs")
        return
    same = total = 0
    for quality in QUALITIES:
        for root in ROOTS:
            chord = parse(root + quality.canonical)
            total += 1
            same += spelled_pcs(kind_of(chord)[0], degrees(chord)) == frozenset(
                s % 12 for s in chord.semitones)
    print(f"MusicXML: {same} of {total} chord symbols ({100 * same / total:.1f} %) spell "
          "their pitch classes with kind and degrees")


def main() -> None:
    tunes = standards(CORPORA)
    transpose_figures(tunes)
    ireal_figures(tunes)
    musicxml_figures()


if __name__ == "__main__":
    main()
