"""Where voicings sit: each style's register windows (engine.voicing.styles.REGISTERS), which the
search keeps every voicing inside whenever ``range`` allows, pulling it towards their centres;
``range`` still bounds every note."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.chords.chord import Chord
from engine.chords.symbols import parse
from engine.errors import InvalidRequest
from engine.voicing.candidates import candidates
from engine.voicing.operation import _prepare, voicing
from engine.voicing.styles import BASS_FLOOR, REGISTERS, STYLES
from tests.test_voicing_styles import CHORDS

RANGES = [(48, 84), (36, 72), (55, 91), (40, 100), (60, 79)]


def inside(style: str, midi: list[int], low: int = 48, high: int = 84,
           bass_low: int | None = None) -> bool:
    """Whether a voicing lies in every window of its style, each clamped to the range: the
    lowest voice above the bass in ``low``, the top in ``top``, the bass (split styles, voice 0)
    in ``bass``, clamped to [bass_low (None: low), high]. Written out from the windows'
    definition, apart from the engine's cost."""
    reg = REGISTERS[style]
    upper = midi[1:] if reg.split and len(midi) > 1 else midi
    notes = [(upper[0], reg.low, low), (upper[-1], reg.top, low)]
    if reg.bass is not None:
        notes.append((midi[0], reg.bass, low if bass_low is None else bass_low))
    return all(min(max(lo, floor), high) <= n <= max(min(hi, high), floor)
               for n, (lo, hi), floor in notes)


# The voicings no placement in 48..84 can keep inside their style's windows: the power chords
# (no third: root and fifth) leave a pad or a drop3 one tone above the bass or a doubled root.
# (Until grid 7 bill_evans' A and B forms of the 13#5 chords did too, spanning 22 semitones; it
# may now play their close stack, at a cost, where no form fits.)
OUTSIDE_BY_SHAPE = {("pad", "Ab5"), ("drop3", "F5")}


def test_default_range_voicings_lie_inside_their_style_windows() -> None:
    # every quality on all twelve roots, plus slash chords, in every style (7,680 voicings)
    outside = set()
    for style in sorted(STYLES):
        for chord in CHORDS:
            midi = voicing({"chord": chord.symbol, "style": style})["midi"]
            if not inside(style, midi, bass_low=BASS_FLOOR):
                outside.add((style, chord.symbol))
    assert outside == OUTSIDE_BY_SHAPE


def _first_least_register(chord: Chord, style: str, low: int, high: int) -> list[int] | None:
    # the chord as the style plays it alone (a half-diminished takes its 11: engine.voicing.colour)
    try:
        table = _prepare([chord], STYLES[style], low, high, low)[0][0]
    except InvalidRequest:            # too narrow for this style: a range error, tested apart
        return None
    if len(table.midi) == 0:          # too narrow for this style: a range error, tested apart
        return None
    costs = [int(c) for c in table.register]
    best = [k for k, c in enumerate(costs) if c == min(costs)]
    # ties: the mean nearest the range centre, then the lower, then the first
    centre2 = low + high

    def tie(k: int) -> tuple[int, int, int]:
        row = [int(m) for m in table.midi[k]]
        off = 2 * sum(row) - len(row) * centre2
        return abs(off), int(off > 0), k

    return [int(m) for m in table.midi[min(best, key=tie)]]


def test_without_previous_a_chord_takes_its_least_register_cost() -> None:
    for low, high in RANGES:
        for style in sorted(STYLES):
            for chord in CHORDS[::7]:
                expected = _first_least_register(chord, style, low, high)
                if expected is None:
                    continue
                got = voicing({"chord": chord.symbol, "style": style, "range": [low, high]})
                assert got["midi"] == expected, (chord.symbol, style, low, high)


def test_register_cost_is_the_distance_from_each_window_centre() -> None:
    # rootless Cmaj7 in 48..84: windows low 50..67 (centre 58.5) and top 58..79 (68.5);
    # B3 D4 E4 G4 costs |118 - 117| + |134 - 137| = 4 in half semitones, the least
    table = candidates(parse("Cmaj7"), STYLES["rootless"], 48, 84)
    rows = [[int(m) for m in r] for r in table.midi]
    assert table.register[rows.index([59, 62, 64, 67])] == 1 + 3
    assert min(table.register) == 4
    # every row kept lies inside the windows; the ones outside were dropped
    assert all(inside("rootless", r) for r in rows)


def test_rootless_voicings_sit_where_a_left_hand_plays_them() -> None:
    # the complaint: rootless started on C5 Eb5 G5 Ab5 for Fm7 and wandered from Bb3 to C5
    assert voicing({"chord": "Cmaj7"})["notes"] == ["B3", "D4", "E4", "G4"]
    assert voicing({"chord": "Fm7"})["notes"] == ["C4", "Eb4", "G4", "Ab4"]
    # a range below the window: the window is clamped to it, the voicing as high as it allows
    low = voicing({"chord": "Cmaj7", "range": [36, 60]})["midi"]
    assert max(low) <= 60 and low == sorted(low)


def test_progression_stays_inside_the_windows_in_any_range_that_holds_them() -> None:
    # the same changes in ranges that contain the rootless windows: the same voicings
    changes = "Cm7 F7 | Bbmaj7 Ebmaj7 | Am7b5 D7b9 | Gm6 | " * 8
    results = [voicing({"progression": changes, "range": [low, high]})
               for low, high in [(48, 84), (40, 90), (36, 96)]]
    assert all(r == results[0] for r in results)
    assert all(inside("rootless", v["midi"]) for v in results[0]["voicings"])


def test_with_previous_the_motion_still_leads() -> None:
    # a rootless Dm7 low in the window before: G7 follows it there (C to B, E to D), although
    # without previous it would sit higher, nearer the windows' centres
    result = voicing({"chord": "G7", "previous": ["F3", "A3", "C4", "E4"]})
    assert result["notes"] == ["F3", "A3", "B3", "D4"]
    assert result["voiceLeading"] == 3
    # a previous voicing far above the window: the next one comes back into it
    high = voicing({"chord": "G7", "previous": ["F5", "A5", "C6", "E6"]})
    assert inside("rootless", high["midi"])


symbols = st.lists(st.sampled_from(["Dm7", "G7alt", "Cmaj9", "A7b9", "Fm6", "Bb13", "C/E",
                                    "Ebmaj7#11", "Abdim7", "F#m7b5", "Esus4", "Db6/9"]),
                   min_size=1, max_size=6)


@settings(max_examples=60)
@given(symbols, st.sampled_from(sorted(STYLES)), st.integers(0, 100), st.integers(12, 60),
       st.lists(st.integers(0, 127), max_size=4))
def test_the_register_cost_never_leaves_range(progression: list[str], style: str, low: int,
                                              width: int, previous: list[int]) -> None:
    high = min(127, low + width)
    try:
        result = voicing({"progression": progression, "style": style, "range": [low, high],
                          "previous": previous})
    except InvalidRequest as error:       # a range narrower than a shape: said, not bent
        assert error.field == "range"
        return
    for v in result["voicings"]:
        assert all(low <= m <= high for m in v["midi"]), (v, low, high)
        assert v["midi"] == sorted(v["midi"])


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
