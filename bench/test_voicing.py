"""Voicing speed: one chord led from a previous voicing, and a 256-chord progression searched
as a whole (aim: <= 5 ms with grid 4's register model). Run: python -m pytest bench/test_voicing.py --benchmark-enable"""

from __future__ import annotations

from typing import Any

from engine.voicing.operation import voicing, warm_up

# A 32-chord cycle of jazz standards' changes, eight times over: 256 chords.
_CHANGES = ("Cmaj7 Am7 Dm7 G7 Em7 A7b9 Dm7 G13 Fmaj7 Bb7#11 Em7 A7alt Dm9 Db7 Cmaj7 C7 "
            "Fm7 Bb7 Ebmaj7 Ab7 Dm7b5 G7b9 Cm6 C/E F6/9 F#dim7 Gsus4 G7 Am11 D9 Dm7 G7")
PROGRESSION = " ".join([_CHANGES] * 8)


def setup_module() -> None:
    warm_up()


def test_one_voicing_with_previous(benchmark: Any) -> None:
    request = {"chord": "G7", "style": "rootless", "previous": ["F3", "A3", "C4", "E4"]}
    result = benchmark(voicing, request)
    assert result["voiceLeading"] <= 4


def test_one_voicing_without_previous(benchmark: Any) -> None:
    result = benchmark(voicing, {"chord": "Cmaj7", "style": "rootless"})
    assert result["midi"] == [59, 62, 64, 67]       # B3 D4 E4 G4: a left hand's register


def test_progression_256_chords(benchmark: Any) -> None:
    request = {"progression": PROGRESSION, "style": "rootless"}
    result = benchmark(voicing, request)
    assert len(result["voicings"]) == 256


def test_progression_256_chords_pad(benchmark: Any) -> None:
    request = {"progression": PROGRESSION, "style": "pad"}
    result = benchmark(voicing, request)
    assert len(result["voicings"]) == 256
