"""reharmonize on a 32-chord progression with all eight techniques (aim: <= 1 ms).

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
