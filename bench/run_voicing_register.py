"""Where each voicing style sits over real tunes: per style, over every JazzStandards tune
(1,382, ../shared/corpora), the average motion per change (all voices, and the upper voices of
the styles with a bass), the lowest and highest note seen, and the share of chords inside the
style's register windows (engine.voicing.styles.REGISTERS); then All the Things You Are, and the
256-chord search time. Run: python bench/run_voicing_register.py [--limit N]"""

from __future__ import annotations

import argparse
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.shared import CORPORA, timed
from engine.corpus.loaders import load_paths
from engine.voicing import STYLE_NAMES, voice_progression, warm_up
from engine.voicing.kernels import _motion
from engine.voicing.operation import voicing
from engine.voicing.styles import REGISTERS

TUNES = CORPORA / "jazzstandards-ireal" / "JazzStandards.json"


def motion(a: list[int], b: list[int]) -> int:
    return int(_motion(np.array(a, dtype=np.int64), len(a), np.array(b, dtype=np.int64), len(b)))


def inside(style: str, midi: list[int]) -> bool:
    """Whether a voicing lies in every window of its style (see Register)."""
    reg = REGISTERS[style]
    upper = midi[1:] if reg.split and len(midi) > 1 else midi
    notes = [(upper[0], reg.low), (upper[-1], reg.top)]
    if reg.split:
        assert reg.bass is not None
        notes.append((midi[0], reg.bass))
    return all(lo <= n <= hi for n, (lo, hi) in notes)


def measure(tunes: list[list], style: str) -> dict[str, float]:
    moved = upper = changes = chords = inside_n = 0
    lowest, highest = 127, 0
    for chords_of_tune in tunes:
        voiced = voice_progression(chords_of_tune, style, 48, 84)
        for a, b in pairwise(voiced):
            moved += motion(a, b)
            if REGISTERS[style].split:
                upper += motion(a[1:], b[1:])
            changes += 1
        for v in voiced:
            chords += 1
            inside_n += inside(style, v)
            lowest, highest = min(lowest, v[0]), max(highest, v[-1])
    return {"motion": moved / changes, "upper": upper / changes if upper else float("nan"),
            "lowest": lowest, "highest": highest, "inside": 100 * inside_n / chords,
            "chords": chords}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0, help="only the first N tunes")
    args = parser.parse_args()
    if not TUNES.is_file():
        print(f"skipped: {TUNES} is absent")
        return 0
    warm_up()
    songs, _ = load_paths([TUNES])
    songs = songs[:args.limit] if args.limit else songs
    tunes = [[p.chord for s in song.sections for p in s.chords] for song in songs]
    tunes = [t for t in tunes if t]
    print(f"{len(tunes)} tunes, range 48-84")
    print(f"{'style':14} {'motion/change':>13} {'upper/change':>12} {'lowest':>6} {'highest':>7} "
          f"{'in window':>9}")
    for style in STYLE_NAMES:
        m = measure(tunes, style)
        print(f"{style:14} {m['motion']:13.2f} {m['upper']:12.2f} {m['lowest']:6d} "
              f"{m['highest']:7d} {m['inside']:8.1f}%")
    atty = next(s for s in load_paths([TUNES])[0] if s.title == "All The Things You Are")
    symbols = [p.chord.symbol for s in atty.sections for p in s.chords]
    print(f"\nAll the Things You Are ({len(symbols)} chords)")
    for style in STYLE_NAMES:
        result = voicing({"progression": symbols, "style": style})
        midi = [v["midi"] for v in result["voicings"]]
        print(f"{style:14} total {result['totalVoiceLeading']:4d}  first "
              f"{' '.join(result['voicings'][0]['notes']):22} lowest {min(m[0] for m in midi)} "
              f"top {max(m[-1] for m in midi)}")
    from bench.test_voicing import PROGRESSION
    for style in ("rootless", "pad", "shell", "drop2"):
        request = {"progression": PROGRESSION, "style": style}
        voicing(request)
        median = timed(lambda r=request: voicing(r), 20)
        print(f"256-chord search, {style}: median {1000 * median:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
