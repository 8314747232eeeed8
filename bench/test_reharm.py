"""reharmonize with all nine techniques: a 32-chord progression in 8 bars, and a 32-bar AABA
tune with its bar lines (aim: <= 2 ms for a 32-bar tune).

Run: .venv/bin/python -m pytest bench/test_reharm.py --benchmark-enable
"""

from __future__ import annotations

from typing import Any

from engine import reharmonize
from engine.reharm.rules import TECHNIQUES

# A 32-bar AABA-like chorus in C: ii-V-Is, a turnaround, stepwise motion and a bridge on IV.
PROGRESSION = (
    "Cmaj7 Am7 Dm7 G7 | Cmaj7 Dm7 Em7 Fmaj7 | G7 Cmaj7 Em7 A7 | Dm7 G7 Cmaj7 Cmaj7 | "
    "Fmaj7 Fmaj7 Em7 Am7 | Dm7 G7 Em7 Dm7 | Cmaj7 C7 Fmaj7 Fm7 | Em7 A7 Dm7 G7"
)
REQUEST = {"progression": PROGRESSION, "key": "C"}


def test_reharmonize_32_chords(benchmark: Any) -> None:
    result = benchmark(reharmonize, REQUEST)
    assert len(result["progression"]) == 32
    assert [a["technique"] for a in result["alternatives"]] == list(TECHNIQUES)


# A 32-bar AABA tune in Bb written for this bench: ii-Vs a bar or two long, a held dominant
# bridge, a passing diminished chord and a turnaround.
TUNE = (
    "Bbmaj7 | Gm7 | Cm7 | F7 | Dm7 G7 | Cm7 F7 | Bbmaj7 Bdim7 | Cm7 F7 | "
    "Bbmaj7 | Gm7 | Cm7 | F7 | Fm7 | Bb7 | Ebmaj7 | Ebm7 Ab7 | "
    "D7 | D7 | G7 | G7 | C7 | C7 | F7 | F7 | "
    "Bbmaj7 | Gm7 | Cm7 | F7 | Dm7 G7 | Cm7 F7 | Bbmaj7 | Cm7 F7"
)


def test_reharmonize_32_bar_tune(benchmark: Any) -> None:
    result = benchmark(reharmonize, {"progression": TUNE, "key": "Bb"})
    assert all(len(a["bars"]) == 32 for a in result["alternatives"])
