"""identify on the voicings a jazz pianist plays (issue 39: answers a musician would write):
shells, the 3-7-13 shell, rootless A and B forms over the bass player's root, and altered
dominants, each on the 12 roots, as MIDI numbers and as note names spelled as the chord spells
them (``resolve``). A voicing reads right when identify's first reading is the chord its notes
name over that bass (the symbol below, on that root), with nothing added.

    .venv/bin/python bench/run_identify_voicings.py

Prints, a voicing a line: how many of the 12 roots read right as numbers and as names, and
the first reading of those that do not (a figure to watch, not an aim: a few voicings are
ambiguous by nature, and the round trip over the corpora decides some ties, docs/identify.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import identify, resolve
from engine.chords import note_with_octave, parse, parse_spelled

ROOTS = ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
# (what the voicing is, the symbol its notes name over the root, semitones above the root in
# the bass, from low to high)
VOICINGS: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    ("shell 1-3-7", "maj7", (0, 16, 23)),
    ("shell 1-7-3", "maj7", (0, 11, 16)),
    ("shell 1-b3-b7", "m7", (0, 15, 22)),
    ("shell 1-3-b7", "7", (0, 16, 22)),
    ("shell 1-b7-3", "7", (0, 10, 16)),
    ("shell 1-b3-b5-b7", "m7b5", (0, 15, 18, 22)),
    ("shell 1-3-6", "6", (0, 16, 21)),
    ("shell 1-4-b7 (sus)", "7sus4", (0, 17, 22)),
    ("3-7-13 over the root", "13", (0, 16, 22, 33)),
    ("b7-3-13 over the root", "13", (0, 10, 16, 21)),
    ("rootless A, maj: 3-5-7-9", "maj9", (0, 16, 19, 23, 26)),
    ("rootless B, maj: 7-9-3-5", "maj9", (0, 11, 14, 16, 19)),
    ("rootless A, minor: b3-5-b7-9", "m9", (0, 15, 19, 22, 26)),
    ("rootless B, minor: b7-9-b3-5", "m9", (0, 10, 14, 15, 19)),
    ("rootless A, dominant: 3-13-b7-9", "13", (0, 16, 21, 22, 26)),
    ("rootless B, dominant: b7-9-3-13", "13", (0, 10, 14, 16, 21)),
    ("altered: 3-b7-#9-b13", "7#9b13", (0, 16, 22, 27, 32)),
    ("altered: 3-b7-b9-b13", "7b9b13", (0, 16, 22, 25, 32)),
    ("altered: b7-3-b9-13", "13b9", (0, 10, 16, 25, 33)),
    ("lydian dominant: b7-3-#11-13", "13#11", (0, 10, 16, 18, 21)),
)


def spelled(symbol: str, semitones: tuple[int, ...], low: int) -> list[str]:
    """The voicing's notes named as the chord spells them, with octaves."""
    notes = [n.rstrip("0123456789-") for n in resolve({"chord": symbol})["notes"]]
    chord = parse(symbol)
    names = {(chord.root_pc + s) % 12: n for s, n in zip(chord.semitones, notes, strict=True)}
    return [note_with_octave(parse_spelled(names[(low + s) % 12]), low + s) for s in semitones]


def main() -> None:
    total = {"numbers": 0, "names": 0}
    count = 0
    for what, quality, semitones in VOICINGS:
        right = {"numbers": 0, "names": 0}
        wrong: list[str] = []
        for pc, root in enumerate(ROOTS):
            symbol = root + quality
            low = 36 + pc
            for form, notes in (("numbers", [low + s for s in semitones]),
                                ("names", spelled(symbol, semitones, low))):
                top = identify({"notes": notes})["readings"][0]
                ok = not top["added"] and parse(top["symbol"]).root_pc == pc and \
                    top["bass"] is None and top["quality"] == parse(symbol).quality
                right[form] += ok
                if not ok and len(wrong) < 3:
                    wrong.append(f"{symbol} ({form}) -> {top['symbol']}")
        count += 12
        for form in total:
            total[form] += right[form]
        print(f"{what:36s} {quality:8s} numbers {right['numbers']:2d}/12  names "
              f"{right['names']:2d}/12" + ("   e.g. " + "; ".join(wrong) if wrong else ""))
    print(f"all: numbers {total['numbers']}/{count} ({100 * total['numbers'] / count:.1f} %), "
          f"names {total['names']}/{count} ({100 * total['names'] / count:.1f} %)")


if __name__ == "__main__":
    main()
