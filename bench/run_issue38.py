"""Every figure of issue 38 in one command: the compose exports (``run_compose_exports``:
transpose, iReal round trip, ireal-musicxml, MusicXML kind and degrees, music21), the band
(chords the harmony lane never sounds, on every style and the 20 standards of
``tests/test_conduct_band.py``; the grooves' defining onsets against their reference patterns,
bar by bar) and search (ii-V-Is found against a brute-force scan of every standard's played
form, exact and by family).

Run: ``.venv/bin/python bench/run_issue38.py`` (``--every 10``: music21 reads every 10th
standard only; ``--no-music21`` skips it, about half a second a chart).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import run_compose_exports as exports
from bench.shared import CORPORA
from engine import search
from engine.conduct import conduct
from engine.corpus import build_index, load_paths
from engine.corpus.pattern import read_pattern
from tests.compose_tunes import standards
from tests.test_conduct import STYLE_PROMPTS, unvoiced_chords
from tests.test_conduct_band import CHARTS, progressions
from tests.test_conduct_grooves import (
    BRUSH_SWIRL,
    BRUSH_TAP,
    CASCARA_3_2,
    CLAVES,
    COWBELL,
    HIGH_TIMBALE,
    KICK,
    MONTUNO_3_2,
    RUMBA_3_2,
    SIDE_STICK,
    SNARE,
    SON_3_2,
    steps,
)
from tests.test_corpus_search import naive

NEW_STYLES = ("salsa in {key}", "rumba in {key}", "afro-cuban 6/8 in {key}", "reggae in {key}",
              "hip hop in {key}", "second line in {key}", "stride piano in {key}")
# (what, prompt, lane, pitch or None, steps a bar, the reference steps of bars 0, 1 (and on,
# alternately), the bars read)
GROOVES: tuple[tuple[str, str, str, int | None, int, tuple[set[int], ...], range], ...] = (
    ("son clave 3-2", "salsa in C", "drums", CLAVES, 8, SON_3_2, range(6)),
    ("son clave 2-3", "salsa in C, 2-3 clave", "drums", CLAVES, 8, SON_3_2[::-1], range(6)),
    ("rumba clave 3-2", "rumba in D minor", "drums", CLAVES, 8, RUMBA_3_2, range(6)),
    ("cascara", "salsa in C", "drums", HIGH_TIMBALE, 8, CASCARA_3_2, range(6)),
    ("cowbell", "salsa in C", "drums", COWBELL, 8, ({0, 2, 4, 6},), range(6)),
    ("piano montuno", "salsa in C", "harmony", None, 8, MONTUNO_3_2, range(1, 6)),
    ("reggae one drop: kick", "reggae in G", "drums", KICK, 8, ({4},), range(1, 6)),
    ("reggae one drop: rim", "reggae in G", "drums", SIDE_STICK, 8, ({4},), range(1, 6)),
    ("reggae skank", "reggae in G", "pattern", None, 8, ({2, 6},), range(1, 6)),
    ("hip-hop kick", "hip hop in F minor", "drums", KICK, 16, ({0, 7, 10},),
     range(0, 3)),
    ("hip-hop snare", "hip hop in F minor", "drums", SNARE, 16, ({4, 12},), range(0, 3)),
    ("stride right hand", "stride piano in Ab", "harmony", None, 8, ({2, 6},), range(1, 6)),
    ("brushes: swirl", "ballad in F with brushes", "drums", BRUSH_SWIRL, 8, ({0, 4},),
     range(1, 6)),
    ("brushes: taps", "ballad in F with brushes", "drums", BRUSH_TAP, 8, ({0, 2, 3, 4, 6, 7},),
     range(1, 6)),
)


def chords_of(result: dict[str, Any]) -> int:
    return sum(c["symbol"] != "NC" for c in result["chords"])


def band_figures() -> None:
    start = time.perf_counter()
    rows = []
    for prompt, style, _ in STYLE_PROMPTS:
        for key in ("F", "Bb", "E"):
            result = conduct({"prompt": prompt.format(key=key), "durationSec": 40})
            rows.append((style, len(unvoiced_chords(result)), chords_of(result)))
    for prompt in NEW_STYLES:
        result = conduct({"prompt": prompt.format(key="C"), "durationSec": 40})
        rows.append((result["conductor"]["style"], len(unvoiced_chords(result)),
                     chords_of(result)))
    by_style: dict[str, list[int]] = {}
    for style, missing, total in rows:
        by_style.setdefault(style, [0, 0])
        by_style[style][0] += missing
        by_style[style][1] += total
    print("band, chords the harmony lane never sounds, per style (3 keys; the new grooves in C): "
          + ", ".join(f"{s} {m}/{t}" for s, (m, t) in by_style.items()))
    missing = total = 0
    for title, prompt in CHARTS.items():
        result = conduct({"prompt": prompt, "progression": progressions()[title],
                          "durationSec": 150})
        missing += len(unvoiced_chords(result))
        total += chords_of(result)
    print(f"band, the 20 standards: {missing} of {total} chords never sounded "
          f"({time.perf_counter() - start:.0f} s)")
    results: dict[str, dict[str, Any]] = {}
    line = []
    for what, prompt, lane, pitch, per_bar, pattern, bars in GROOVES:
        result = results.setdefault(prompt, conduct({"prompt": prompt, "durationSec": 40,
                                                     "seed": 0}))
        good = sum(steps(result, lane, bar, per_bar, pitch) == pattern[bar % len(pattern)]
                   for bar in bars)
        line.append(f"{what} {good}/{len(bars)}")
    print("grooves, bars whose onsets are the reference pattern: " + ", ".join(line))


def search_figures() -> None:
    path = CORPORA / "jazzstandards-ireal" / "JazzStandards.json"
    songs, _ = load_paths([path])
    idx = build_index(songs)
    slots, _ = read_pattern("Dm7 G7 Cmaj7")
    for exact in (True, False):
        expected = {(s, k, bar, beat) for s, k, bar, beat in naive(songs, slots, exact)}
        per_song: dict[str, int] = {}
        for s, *_ in expected:
            per_song[songs[s].id] = per_song.get(songs[s].id, 0) + 1
        found: dict[str, float] = {}
        offset = 0
        while True:
            page = search({"pattern": "Dm7 G7 Cmaj7", "exact": exact, "limit": 100,
                           "offset": offset}, idx)
            found.update({r["id"]: r["score"] for r in page["results"]})
            offset += 100
            if offset >= page["total"]:
                break
        agree = sum(min(found.get(i, 0), n) for i, n in per_song.items())
        print(f"search, ii-V-I {'exact' if exact else 'by family'}: {int(agree):,} of "
              f"{len(expected):,} found by a brute-force scan of the played form are found "
              f"(songs: {len(found):,} found, {len(per_song):,} by the scan)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--every", type=int, default=1, help="music21 reads every Nth standard")
    ap.add_argument("--no-music21", action="store_true", help="skip music21's read-back")
    args = ap.parse_args()
    tunes = standards(CORPORA)
    exports.transpose_figures(tunes)
    exports.ireal_figures(tunes)
    exports.ireal_musicxml_figures(tunes)
    exports.musicxml_figures()
    band_figures()
    search_figures()
    if not args.no_music21:
        exports.music21_figures(tunes, max(1, args.every))


if __name__ == "__main__":
    main()
