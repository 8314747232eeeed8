"""Voicing in context (issue 37) over every JazzStandards tune (1,382, ../shared/corpora): the
figures the issue asks for, measured through the ``voicing`` operation with its default range,
each tune voiced as one progression (a chord a bar, in chunks of at most 256 chords):

- colour: voicings of the colour styles (rootless, bill_evans, quartal) whose added colour
  tones (pitch classes the symbol does not hold) lie outside analyze's primary scale for the
  chord in context (``contextScales[0]`` of analyze on the same chords, a chord a bar);
- bass: changes of shell and pad whose bass moves more than a sixth (over 9 semitones) where
  the roots lie a step or less apart; and the same where the bass line itself (the slash
  bass of a slash chord, else the root) moves a step or less, with how many of those no
  bass line through the tune's placements avoids ("forced": the least number over every
  path, by a dynamic programme over each chord's bass notes), each remaining case listed
  with its chords;
- resolution: the largest bill_evans motion (semitones, all voices) into the chord a dominant
  resolves to (root down a fifth, or a half step: its subV), and how many exceed 7, listed;
- register: bill_evans changes moving more than 7 semitones, by the chord's place in its
  progression (engine.voicing.styles.PLACES: a phrase start, an arrival, inside a phrase);
- median and mean motion per change of every style;
- the 256-chord voicing time of bench/test_voicing.py (rootless and pad, the fastest of 30:
  the machine is shared, and the fastest run is the one least disturbed).

The "before" column was measured with this same script on the tree before issue 37's voicing
work (commit 2b2553a; quartal did not exist); the figures added since (the bass line, forced
leaps, register moves by place) on 5241e5d, the tree before the last three items of the
issue (docs/voicing.md). Run: python bench/run_voicing_context.py [--limit N]; with
bench/run_voicing_register.py: make bench-voicing
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.shared import CORPORA, timed
from engine.analysis.chart import Chart, Placed, Section
from engine.analysis.context import analyze_chart
from engine.chords import Chord, parse_spelled
from engine.corpus.loaders import load_paths
from engine.voicing import STYLE_NAMES, warm_up
from engine.voicing.context import progression_context
from engine.voicing.operation import DEFAULT_RANGE, _place, _prepare, voicing
from engine.voicing.styles import BASS_FLOOR, PLACES, style_named

TUNES = CORPORA / "jazzstandards-ireal" / "JazzStandards.json"
COLOUR = ("rootless", "bill_evans", "quartal")
CHUNK = 256
# measured at 2b2553a (before), on the same machine, same tunes
BEFORE: dict[str, Any] = {
    "colour": {"rootless": 4186, "bill_evans": 6133},
    "bass": {"shell": 1110, "pad": 1110},
    "resolution": (22, 1425),
    "median": {"rootless": 3, "bill_evans": 4, "shell": 7, "triad": 3, "pad": 9,
               "guide_tones": 2, "guide_third": 4, "guide_seventh": 4, "drop2": 3,
               "drop3": 3},
    "mean": {"rootless": 3.68, "bill_evans": 4.78, "shell": 6.51, "triad": 3.14, "pad": 8.2,
             "guide_tones": 2.3, "guide_third": 3.65, "guide_seventh": 3.68, "drop2": 3.64,
             "drop3": 3.65},
    "ms256": {"rootless": 2.8, "pad": 3.0},
}
# measured at 5241e5d (64,582 chords: JSON repeats played), same script
BEFORE_5241: dict[str, Any] = {
    "bass": {"shell": 114, "pad": 10},
    "line": {"shell": 183, "pad": 12},
    "forced": {"shell": 126, "pad": 12},
    "resolution": (8, 17),
    "moves": {"phrase": 842, "arrival": 17, "inside": 4248},
    "median": {"bill_evans": 4, "shell": 7, "pad": 9},
    "mean": {"bill_evans": 3.94, "shell": 6.56, "pad": 7.7},
}


def _dominant(chord: Chord) -> bool:
    return "b7" in chord.intervals and "3" in chord.intervals


def _chunks(chords: list[Chord]) -> list[list[Chord]]:
    return [chords[i:i + CHUNK] for i in range(0, len(chords), CHUNK)]


def _scales(chords: list[Chord]) -> list[int]:
    """The pitch classes (mask) of each chord's primary scale in context, as analyze reads the
    chords a bar each."""
    n = len(chords)
    chart = Chart((Section("A", 1, n),),
                  tuple(Placed(i + 1, 1.0, c.symbol, c) for i, c in enumerate(chords)), n,
                  False)
    out = []
    for entry in analyze_chart(chart, None)["chords"]:
        mask = 0
        for name in entry["contextScales"][0]["notes"]:
            mask |= 1 << parse_spelled(name).pc
        out.append(mask)
    return out


def _step(a: int, b: int) -> bool:
    """Pitch classes ``a`` -> ``b`` a step or less apart."""
    return (b - a) % 12 in (0, 1, 2, 10, 11)


def _line_leap(before: Chord, after: Chord, a: int, b: int) -> bool:
    """The bass line (slash bass, else root) moves a step or less, the bass over a sixth."""
    return _step((before.bass or before.root).pc, (after.bass or after.root).pc) \
        and abs(b - a) > 9


def _least_leaps(chords: list[Chord], style: str) -> int:
    """The fewest ``_line_leap`` any bass line through the chords' placements makes."""
    tables, _, _ = _prepare(chords, style_named(style), *DEFAULT_RANGE, BASS_FLOOR)
    notes = [sorted({int(m) for m in t.midi[:, 0]}) for t in tables]
    best = dict.fromkeys(notes[0], 0)
    for i in range(1, len(chords)):
        best = {b: min(n + _line_leap(chords[i - 1], chords[i], a, b) for a, n in best.items())
                for b in notes[i]}
    return min(best.values())


def _around(chords: list[Chord], voiced: list[dict], i: int) -> str:
    return " | ".join(f"{chords[k].symbol} {' '.join(voiced[k]['notes'])}"
                      for k in range(max(0, i - 2), min(len(chords), i + 2)))


def measure(tunes: list[tuple[str, list[Chord]]], styles: tuple[str, ...]) -> dict[str, Any]:
    contradictions = dict.fromkeys(COLOUR, 0)
    bass = {"shell": 0, "pad": 0}
    line = {"shell": 0, "pad": 0}
    forced = {"shell": 0, "pad": 0}
    cases: list[str] = []
    resolutions: list[int] = []
    moves = dict.fromkeys(PLACES, 0)
    motion: dict[str, list[int]] = {s: [] for s in styles}
    for title, tune in tunes:
        for chords in _chunks(tune):
            scales = _scales(chords)
            for style in styles:
                result = voicing({"progression": [c.symbol for c in chords], "style": style})
                voiced = result["voicings"]
                motion[style] += [v["voiceLeading"] for v in voiced[1:]]
                if style in COLOUR:
                    for chord, v, scale in zip(chords, voiced, scales, strict=True):
                        added = {m % 12 for m in v["midi"]} - set(chord.pcs)
                        contradictions[style] += any(not scale >> pc & 1 for pc in added)
                if style in bass:
                    low = [v["midi"][0] for v in voiced]
                    for i in range(1, len(chords)):
                        bass[style] += _step(chords[i - 1].root.pc, chords[i].root.pc) \
                            and abs(low[i] - low[i - 1]) > 9
                    leaps = [i for i in range(1, len(chords))
                             if _line_leap(chords[i - 1], chords[i], low[i - 1], low[i])]
                    line[style] += len(leaps)
                    least = _least_leaps(chords, style) if leaps else 0
                    forced[style] += least
                    cases += [f"{style} {title} ({'forced' if least == len(leaps) else 'free'})"
                              f": {_around(chords, voiced, i)}" for i in leaps]
                if style == "bill_evans":
                    places = [_place(r) for r in progression_context(chords)]
                    for i in range(1, len(chords)):
                        moved = voiced[i]["voiceLeading"]
                        moves[places[i]] += moved > 7
                        if _dominant(chords[i - 1]) and \
                                (chords[i].root.pc - chords[i - 1].root.pc) % 12 in (5, 11):
                            resolutions.append(moved)
                            if moved > 7:
                                cases.append(f"bill_evans {title} resolution {moved}: "
                                             f"{_around(chords, voiced, i)}")
    return {"colour": {s: contradictions[s] for s in COLOUR if s in styles},
            "bass": bass, "line": line, "forced": forced, "cases": cases, "moves": moves,
            "resolution": (max(resolutions), sum(m > 7 for m in resolutions)),
            "median": {s: statistics.median(m) for s, m in motion.items()},
            "mean": {s: round(statistics.fmean(m), 2) for s, m in motion.items()}}


def speed() -> dict[str, float]:
    from bench.test_voicing import PROGRESSION
    out = {}
    for style in ("rootless", "pad"):
        request = {"progression": PROGRESSION, "style": style}
        voicing(request)
        out[style] = round(1000 * timed(lambda r=request: voicing(r), 30, best=True), 1)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0, help="only the first N tunes")
    parser.add_argument("--raw", action="store_true", help="print the measured figures only")
    args = parser.parse_args()
    if not TUNES.is_file():
        print(f"skipped: {TUNES} is absent")
        return 0
    warm_up()
    songs, _ = load_paths([TUNES])
    songs = songs[:args.limit] if args.limit else songs
    tunes = [(song.title, t) for song, t in
             ((song, [p.chord for s in song.sections for p in s.chords]) for song in songs) if t]
    after = measure(tunes, tuple(STYLE_NAMES))
    after["ms256"] = speed()
    if args.raw:
        print(after)
        return 0
    print(f"{len(tunes)} tunes, {sum(len(t) for _, t in tunes)} chords, default range")
    print(f"{'figure':44} {'before':>10} {'after':>10}")

    def row(label: str, before: object, now: object) -> None:
        print(f"{label:44} {'-' if before is None else before!s:>10} {now!s:>10}")
    for style, n in after["colour"].items():
        row(f"colour tones against the scale: {style}", BEFORE["colour"].get(style), n)
    for style, n in after["bass"].items():
        row(f"bass leaps > a sixth on a step: {style}", BEFORE["bass"][style], n)
    row("bill_evans largest move on a resolution", BEFORE["resolution"][0],
        after["resolution"][0])
    for style, n in after["line"].items():
        row(f"bass line leaps > a sixth on a step: {style}", BEFORE_5241["line"][style], n)
        row(f"  of which no bass line avoids: {style}", BEFORE_5241["forced"][style],
            after["forced"][style])
    row("bill_evans resolutions moving > 7", BEFORE["resolution"][1], after["resolution"][1])
    for place, n in after["moves"].items():
        row(f"bill_evans moves > 7 into: {place}", BEFORE_5241["moves"][place], n)
    for style in after["median"]:
        row(f"median (mean) motion per change: {style}",
            None if style not in BEFORE["median"]
            else f"{BEFORE['median'][style]} ({BEFORE['mean'][style]})",
            f"{after['median'][style]} ({after['mean'][style]})")
    for style, ms in after["ms256"].items():
        row(f"256-chord voicing ms: {style}", BEFORE["ms256"][style], ms)
    print("\n5241e5d -> now, median (mean) motion: " + ", ".join(
        f"{s} {BEFORE_5241['median'][s]} ({BEFORE_5241['mean'][s]}) -> "
        f"{after['median'][s]} ({after['mean'][s]})" for s in BEFORE_5241["median"]))
    print(f"\nremaining cases ({len(after['cases'])}):")
    for case in after["cases"]:
        print("  " + case)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
