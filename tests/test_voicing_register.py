"""Where voicings sit in the range: without `previous`, in the middle (where a pianist puts
them), not at the bottom; with `previous`, the contract's least motion decides."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

import pytest

from engine.chords.chord import Chord
from engine.voicing.candidates import candidates
from engine.voicing.styles import STYLES
from engine.voicing.voice import voicing
from tests.test_voicing_styles import CHORDS

RANGES = [(48, 84), (36, 72), (55, 91), (40, 100), (60, 79)]


def _mean(midi: list[int]) -> Fraction:
    return Fraction(sum(midi), len(midi))


def _rank(midi: list[int], low: int, high: int) -> tuple[Fraction, Fraction]:
    """Distance of the mean pitch from the range centre, then the mean itself (ties lower)."""
    return abs(_mean(midi) - Fraction(low + high, 2)), _mean(midi)


def _centred(chord: Chord, style: str, low: int, high: int) -> None:
    table = candidates(chord, STYLES[style], low, high)
    if len(table.midi) == 0:          # too narrow for this style: a range error, tested apart
        return
    got = voicing({"chord": chord.symbol, "style": style, "range": [low, high]})["midi"]
    ranks = [_rank([int(m) for m in row], low, high) for row in table.midi]
    assert _rank(got, low, high) == min(ranks), (chord.symbol, style, low, high, got)
    # and it is the first candidate of that rank: the fixed order breaks the last ties
    first = ranks.index(min(ranks))
    assert got == [int(m) for m in table.midi[first]], (chord.symbol, style, got)


@pytest.mark.parametrize(("low", "high"), RANGES)
def test_without_previous_every_chord_sits_nearest_the_centre(low: int, high: int) -> None:
    # every quality the parser knows on all twelve roots, plus slash chords, in every style
    for style in sorted(STYLES):
        for chord in CHORDS:
            _centred(chord, style, low, high)


def test_rootless_cmaj7_is_no_longer_a_cluster_at_the_bottom() -> None:
    # the complaint: D3 E3 G3 B3 (a major second under the low-interval limit of E-flat 3)
    result = voicing({"chord": "Cmaj7"})
    assert result["notes"] == ["D4", "E4", "G4", "B4"]
    # a range an octave lower has its middle an octave lower
    assert voicing({"chord": "Cmaj7", "range": [36, 72]})["notes"] == ["D3", "E3", "G3", "B3"]


def test_equal_distances_go_to_the_lower_voicing() -> None:
    # guide tones of Cmaj7 in 48..81 (centre 64.5): B3 E4 (mean 61.5) and E4 B4 (67.5) are
    # equally far from the centre; the lower one sounds
    for low, high in [(48, 81), (47, 82)]:
        result = voicing({"chord": "Cmaj7", "style": "guide_tones", "range": [low, high]})
        assert result["notes"] == ["B3", "E4"]


def test_progression_without_previous_stays_near_the_middle() -> None:
    # the same changes from the middle of two different ranges: each search is centred on its
    # own range, and the motion (what the search minimises first) does not depend on it
    changes = "Cm7 F7 | Bbmaj7 Ebmaj7 | Am7b5 D7b9 | Gm6"
    for low, high in [(48, 84), (36, 72)]:
        result = voicing({"progression": changes, "range": [low, high]})
        means = [_mean(v["midi"]) for v in result["voicings"]]
        centre = Fraction(low + high, 2)
        assert all(abs(m - centre) <= 6 for m in means), (low, high, means)
        assert result["totalVoiceLeading"] == \
            voicing({"progression": changes, "range": [low + 12, high + 12]})["totalVoiceLeading"]


def test_with_previous_least_motion_decides_not_the_centre() -> None:
    # a rootless Dm7 below the middle before: G7 follows it there (C to B, E to D), although
    # without previous it would sit higher, around the centre of the range
    result = voicing({"chord": "G7", "previous": ["F3", "A3", "C4", "E4"]})
    assert result["notes"] == ["F3", "A3", "B3", "D4"]
    assert result["voiceLeading"] == 3
    assert _mean(voicing({"chord": "G7"})["midi"]) > _mean(result["midi"]) + 6


# Low-interval limits (jazz arranging practice): the lowest MIDI note at which each interval
# between adjacent voices still sounds clear, by size in semitones (E3 for a minor second,
# E-flat 3 for a major second, C3 for a minor third, B-flat 2 for thirds to tritone ...).
LOW_INTERVAL_LIMITS = {1: 52, 2: 51, 3: 48, 4: 46, 5: 46, 6: 46, 7: 34, 8: 43, 9: 41, 10: 41,
                       11: 41}


def test_default_range_voicings_respect_the_low_interval_limits() -> None:
    # the lowest placement broke them for 176 of 504 rootless chords (e.g. Cmaj7 D3 E3 G3 B3)
    for style in sorted(STYLES):
        for chord in CHORDS:
            midi = voicing({"chord": chord.symbol, "style": style})["midi"]
            for a, b in pairwise(midi):
                limit = LOW_INTERVAL_LIMITS.get(b - a)
                assert limit is None or a >= limit, (chord.symbol, style, midi)
