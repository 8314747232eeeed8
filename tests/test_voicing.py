"""The voicing operation as a user calls it (API.md §5): least motion from `previous`,
progressions searched as a whole, and `invalid_request` with the field for bad input."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.chords.symbols import parse
from engine.chords.tables import QUALITY_NAMES
from engine.conduct import MAX_FIT_BARS
from engine.errors import InvalidChord, InvalidRequest
from engine.voicing import kernels
from engine.voicing.candidates import Candidates, candidates
from engine.voicing.operation import DEFAULT_RANGE, _prepare, voice_progression, voicing, warm_up
from engine.voicing.styles import (
    BASS_FLOOR,
    GUIDE_LINE_MAX,
    GUIDE_STEP,
    REGISTERS,
    STYLES,
    style_named,
)
from tests import naive

FIELDS = ["chord", "style", "notes", "midi", "omitted", "voiceLeading", "guideTonesKept"]


def test_result_fields_in_contract_order() -> None:
    result = voicing({"chord": "Cmaj7", "style": "rootless", "previous": ["E3", "G3", "B3", "D4"],
                      "range": [48, 84]})
    assert list(result) == FIELDS
    assert result["chord"] == "Cmaj7"
    # the previous voicing is itself a rootless Cmaj7: nothing moves
    assert result["midi"] == [52, 55, 59, 62]
    assert result["notes"] == ["E3", "G3", "B3", "D4"]
    assert result["voiceLeading"] == 0
    assert result["guideTonesKept"] is True
    assert result["omitted"] == ["C"]


def test_without_previous_motion_is_zero_and_kept_is_null() -> None:
    result = voicing({"chord": "Dm7"})
    assert result["style"] == "rootless"
    assert result["voiceLeading"] == 0
    assert result["guideTonesKept"] is None


def test_previous_as_midi_numbers_equals_previous_as_names() -> None:
    by_name = voicing({"chord": "G7", "previous": ["F3", "A3", "C4", "E4"]})
    by_midi = voicing({"chord": "G7", "previous": [64, 53, 60, 57]})
    assert by_name == by_midi


@pytest.mark.parametrize("style", ["stride", "bill evans", " Drop2 ", "SHELL", ""])
def test_an_unknown_style_is_refused_naming_the_styles(style: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        voicing({"chord": "Cmaj7", "style": style})
    assert refused.value.details["field"] == "style"
    assert "rootless, bill_evans, shell" in refused.value.message


def test_no_style_is_rootless() -> None:
    assert voicing({"chord": "Cmaj7", "style": None}) == voicing({"chord": "Cmaj7"})
    assert voicing({"chord": "Cmaj7"})["style"] == "rootless"


def test_ii_v_i_moves_by_a_few_semitones() -> None:
    result = voicing({"progression": "Dm7 G7 Cmaj7", "previous": ["F3", "A3", "C4", "E4"]})
    assert list(result) == ["voicings", "totalVoiceLeading"]
    moves = [v["voiceLeading"] for v in result["voicings"]]
    assert moves[0] == 0                  # the previous voicing is a rootless Dm7
    assert all(m <= 4 for m in moves)
    assert result["totalVoiceLeading"] == sum(moves) <= 6
    assert all(v["guideTonesKept"] for v in result["voicings"])
    # chord by chord with `previous` gives the same path
    before: list[Any] = ["F3", "A3", "C4", "E4"]
    total = 0
    for symbol in ("Dm7", "G7", "Cmaj7"):
        one = voicing({"chord": symbol, "previous": before})
        total += one["voiceLeading"]
        before = one["midi"]
    assert total == result["totalVoiceLeading"]


def test_single_chord_takes_the_least_motion_placement() -> None:
    previous = [50, 57, 60, 65]
    result = voicing({"chord": "Bb7", "style": "drop2", "previous": previous})
    table = candidates(parse("Bb7"), STYLES["drop2"], 48, 84)
    least = min(naive.motion(previous, [int(m) for m in row]) for row in table.midi)
    assert result["voiceLeading"] == least
    assert naive.motion(previous, result["midi"]) == least


SYMBOLS = ["Dm7", "G7", "Cmaj7", "A7b9", "Fm6", "Bb13", "Ebmaj7#11", "Abdim7", "C/E", "F#m7b5",
           "B7alt", "Esus4", "Gm(maj7)", "Db6/9"]


@settings(max_examples=25)
@given(st.lists(st.sampled_from(SYMBOLS), min_size=1, max_size=3),
       st.sampled_from(sorted(STYLES)),
       st.lists(st.integers(48, 84), max_size=4),
       st.sampled_from([(48, 84), (36, 72), (43, 90)]))
def test_progression_is_optimal_against_brute_force(symbols: list[str], style: str,
                                                    previous: list[int],
                                                    span: tuple[int, int]) -> None:
    low, high = span
    # the chords as the style plays them in this order (engine.voicing.colour), and the
    # search's leap bounds per chord (bill_evans on an arrival)
    tables, leaps, units = _prepare([parse(s) for s in symbols], STYLES[style], low, high,
                                    low, led=bool(previous))
    rows = [[[int(m) for m in r] for r in t.midi] for t in tables]
    flags = [[[int(g) for g in r] for r in t.guide] for t in tables]
    registers = [[int(c) for c in t.register] for t in tables]
    split = REGISTERS[style].split
    leap, unit = [int(x) for x in leaps], [int(x) for x in units]
    prev = sorted(previous)
    line = [1] * len(prev)                  # at most GUIDE_LINE_MAX notes: a guide-tone line
    best = naive.search(prev, line, rows, flags, GUIDE_STEP, low + high, registers, split, leap,
                        unit)
    result = voicing({"progression": symbols, "style": style, "previous": previous,
                      "range": [low, high]})
    assert [v["midi"] for v in result["voicings"]] == [rows[t][k] for t, k in enumerate(best)]
    greedy = naive.greedy(prev, line, rows, flags, GUIDE_STEP, low + high, registers, split,
                          leap, unit)
    assert result["totalVoiceLeading"] == naive.total_motion(prev, rows, best)
    assert naive.total_cost(prev, rows, best, registers, split, leap, unit) <= \
        naive.total_cost(prev, rows, greedy, registers, split, leap, unit)


def test_voice_progression_matches_the_operation() -> None:
    symbols = ["Cmaj7", "Am7", "Dm7", "G7", "Em7", "A7", "Dm7", "G7"]
    midi = voice_progression([parse(s) for s in symbols], "drop2", 48, 84, [60, 64, 67])
    result = voicing({"progression": symbols, "style": "drop2", "previous": [60, 64, 67]})
    assert midi == [v["midi"] for v in result["voicings"]]
    assert voice_progression([]) == []
    # no chord: nothing sounds, and the next chord is led from the one before the gap
    gap = voice_progression([parse("Dm7"), None, parse("G7")], previous=[53, 57, 60, 64])
    assert gap[1] == []
    assert gap[::2] == voice_progression([parse("Dm7"), parse("G7")], previous=[53, 57, 60, 64])
    assert voice_progression([None]) == [[]]


def test_same_request_same_answer() -> None:
    request = {"progression": "Cm7 F7 | Bbmaj7 Ebmaj7 | Am7b5 D7b9 | Gm6", "style": "bill_evans"}
    assert voicing(request) == voicing(dict(request))


def test_warm_up_runs() -> None:
    warm_up()


@pytest.mark.parametrize(("request_", "field"), [
    ({"chord": "C7", "previous": ["H3"]}, "previous"),
    ({"chord": "C7", "previous": ["E"]}, "previous"),
    ({"chord": "C7", "previous": [60, 128]}, "previous"),
    ({"chord": "C7", "previous": [True]}, "previous"),
    ({"chord": "C7", "previous": list(range(60, 69))}, "previous"),
    ({"chord": "C7", "previous": "E3 G3"}, "previous"),
    ({"chord": "C7", "range": [60, 66]}, "range"),
    ({"chord": "C7", "style": "pad", "range": [48, 56]}, "range"),   # C E G Bb spans 10
    ({"chord": "C7", "range": [-1, 84]}, "range"),
    ({"chord": "C7", "range": [48, 128]}, "range"),
    ({"chord": "C7", "range": [84, 48]}, "range"),
    ({"chord": "C7", "range": [48]}, "range"),
    ({"chord": "C7", "range": [48.5, 84]}, "range"),  # 48.0 is 48 (JSON Schema "integer")
    ({"chord": "C7", "style": 7}, "style"),
    ({}, "chord"),
    ({"chord": "C7", "progression": "C7 F7"}, "chord"),
    ({"progression": []}, "progression"),
])
def test_bad_input_is_invalid_request_with_field(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidRequest) as info:
        voicing(request_)
    assert info.value.to_dict()["error"]["field"] == field


def test_bad_chords_are_invalid_chord() -> None:
    with pytest.raises(InvalidChord):
        voicing({"chord": "Cxyz7"})
    with pytest.raises(InvalidChord) as info:
        voicing({"progression": "Dm7 G7 Hmaj7"})
    assert info.value.to_dict()["error"]["index"] == 2
    with pytest.raises(InvalidRequest):
        voicing(["Cmaj7"])


def test_style_named_takes_exact_names() -> None:
    assert style_named("shell").name == "shell"
    assert style_named(None).name == "rootless"


@settings(max_examples=100)
@given(st.sampled_from(["C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]),
       st.sampled_from(QUALITY_NAMES), st.sampled_from(sorted(STYLES)),
       st.integers(0, 127), st.integers(0, 127))
def test_any_chord_style_and_range_gives_a_voicing_or_a_range_error(
        root: str, quality: str, style: str, a: int, b: int) -> None:
    low, high = min(a, b), max(a, b)
    request = {"chord": root + quality, "style": style, "range": [low, high]}
    try:
        result = voicing(request)
    except InvalidRequest as exc:
        assert exc.field == "range"
        assert high - low < 47          # a window of four octaves always holds a voicing
        return
    assert low <= result["midi"][0] and result["midi"][-1] <= high
    assert result["midi"] == sorted(result["midi"])


def test_nc_in_a_progression_is_a_silent_entry() -> None:
    result = voicing({"progression": "Dm7 NC G7 N.C."})
    assert [v["chord"] for v in result["voicings"]] == ["Dm7", "NC", "G7", "NC"]
    silent = {"chord": "NC", "style": "rootless", "notes": [], "midi": [], "omitted": [],
              "voiceLeading": 0, "guideTonesKept": None}
    assert result["voicings"][1] == silent and result["voicings"][3] == silent
    assert list(result["voicings"][1]) == FIELDS
    # the chord after the gap is led from the last sounding voicing, as if NC were not there
    plain = voicing({"progression": "Dm7 G7"})
    assert result["voicings"][::2] == plain["voicings"]
    assert result["totalVoiceLeading"] == plain["totalVoiceLeading"]
    assert voicing({"progression": ["NC"], "style": "pad"}) == {
        "voicings": [{**silent, "style": "pad"}], "totalVoiceLeading": 0}
    with pytest.raises(InvalidChord):
        voicing({"chord": "NC"})


def test_range_error_says_no_placement_fits_and_what_span_it_needs() -> None:
    with pytest.raises(InvalidRequest) as info:
        voicing({"chord": "C7", "range": [60, 69]})
    message = str(info.value.to_dict()["error"]["message"])
    assert "no placement of the rootless voicing of C7 fits in range [60, 69]" in message
    assert "spans 8 semitones" in message and "at least 19 semitones wide" in message
    # the width the message promises always holds a voicing, wherever the range sits
    for low in range(0, 128 - 19):
        assert voicing({"chord": "C7", "range": [low, low + 19]})["midi"]


def test_guide_tones_kept_follows_the_previous_chords_guide_tones() -> None:
    # a cluster of eight notes has every tone near it: it says nothing about a guide-tone line
    assert voicing({"chord": "C7", "previous": list(range(60, 68))})["guideTonesKept"] is None
    assert voicing({"chord": "C7", "previous": [64, 70]})["guideTonesKept"] is True
    assert voicing({"chord": "C7", "style": "guide_tones",
                    "previous": [48, 55]})["guideTonesKept"] is False
    # F#m7b5 -> Dm7 as pads (F#3 E4 A4 C5 -> D3 F4 A4 C5): the 3rd F4 is a step from the 7th
    # E4 and the 7th C5 holds, but C is the b5 of F#m7b5, not one of its guide tones (A, E),
    # and lies 3 semitones from A4: the line is not kept
    pads = voicing({"progression": ["F#m7b5", "Dm7"], "style": "pad"})["voicings"]
    assert pads[0]["notes"] == ["F#3", "E4", "A4", "C5"]
    assert pads[1]["notes"] == ["D3", "F4", "A4", "C5"]
    assert pads[1]["guideTonesKept"] is False
    # ... and across an NC the line continues from the last sounding chord
    ii_v = voicing({"progression": "Dm7 NC G7"})["voicings"]
    assert ii_v[2]["guideTonesKept"] is True


def test_voice_progression_refuses_more_chords_than_the_search_keys_hold() -> None:
    with pytest.raises(InvalidRequest) as info:
        voice_progression([parse("C")] * (kernels.MAX_CHORDS + 1))
    assert info.value.field == "progression"
    # conduct voices at most MAX_FIT_BARS bars of up to 12 chords (a 12/8 bar, one a beat)
    assert MAX_FIT_BARS * 12 <= kernels.MAX_CHORDS


def _kept_count(table: Candidates, k: int, before: list[int]) -> int:
    """Guide tones of candidate ``k`` within GUIDE_STEP of a note of ``before``: the rule of the
    reported ``guideTonesKept``, counted."""
    guides = _guide_midi(table, k)
    return sum(min(abs(g - p) for p in before) <= GUIDE_STEP for g in guides)


def _notes(table: Candidates, k: int) -> list[int]:
    """The notes row ``k`` sounds (its first ``count``)."""
    return [int(m) for m in table.midi[k, :table.count[k]]]


def _row(table: Candidates, midi: list[int]) -> int:
    return next(k for k in range(len(table.midi)) if _notes(table, k) == midi)


def _guide_midi(table: Candidates, k: int) -> list[int]:
    n = table.count[k]
    return [int(m) for m, g in zip(table.midi[k, :n], table.guide[k, :n], strict=True) if g]


def test_a_motion_tie_goes_to_the_voicing_that_keeps_the_guide_tones() -> None:
    # A7b9 C#4 E4 G4 Bb4 -> Bb13 C4 D4 G4 Ab4 and Bb3 C#4 E4 G4 -> Ab3 C4 D4 G4 cost the search
    # the same (5 semitones each, in the same register); only the first keeps the line
    # (C# -> D, G -> Ab), so it is the one chosen
    result = voicing({"progression": ["A7b9", "Bb13"]})
    assert result["totalVoiceLeading"] == 5
    assert [v["notes"] for v in result["voicings"]] == [["C#4", "E4", "G4", "Bb4"],
                                                        ["C4", "D4", "G4", "Ab4"]]
    assert result["voicings"][1]["guideTonesKept"] is True


@settings(max_examples=40)
@given(st.lists(st.sampled_from([*SYMBOLS, "D13", "Db7b9", "C13#11", "Gm11"]), min_size=2,
                max_size=2),
       st.sampled_from(sorted(STYLES)), st.lists(st.integers(48, 84), max_size=8))
@example(["D13", "Db7b9"], "rootless", [])
@example(["Bb13", "C/E"], "triad", [69])
def test_among_equal_motion_the_chosen_voicings_keep_the_most_guide_tones(
        symbols: list[str], style: str, previous: list[int]) -> None:
    # the tie-break counts guide tones kept by the very rule that reports guideTonesKept: no
    # other pair of voicings with the same total motion keeps more of them (a ``previous`` of
    # more than GUIDE_LINE_MAX notes is no guide-tone line and keeps none)
    result = voicing({"progression": symbols, "style": style, "previous": previous})
    # the chords as the style plays them in this order (engine.voicing.colour)
    (first, second), leaps, units = _prepare([parse(s) for s in symbols], STYLES[style],
                                             *DEFAULT_RANGE, BASS_FLOOR, led=bool(previous))
    prev = sorted(previous)
    line = prev if len(prev) <= GUIDE_LINE_MAX else []
    rows = [_notes(first, k) for k in range(len(first.midi))]
    split = REGISTERS[style].split
    into = [(naive.step_cost(prev, r, split, int(leaps[0]), int(units[0])) if prev else 0)
            + int(first.register[k]) for k, r in enumerate(rows)]
    kept_into = [_kept_count(first, k, line) if line else 0 for k in range(len(rows))]

    def cost(a: int, b: int) -> tuple[int, int]:
        """(the search's first key, guide tones kept) of the path ``a`` -> ``b``."""
        between = _guide_midi(first, a)
        kept = kept_into[a] + (_kept_count(second, b, between) if between else 0)
        step = naive.step_cost(rows[a], _notes(second, b), split,
                               int(leaps[1]), int(units[1]))
        return into[a] + step + int(second.register[b]), kept

    a, b = (_row(t, v["midi"]) for t, v in zip((first, second), result["voicings"],
                                                 strict=True))
    key, kept = cost(a, b)
    assert result["totalVoiceLeading"] == (naive.motion(prev, rows[a]) if prev else 0) + \
        naive.motion(rows[a], _notes(second, b))
    for i in range(len(rows)):
        for j in range(len(second.midi)):
            other = cost(i, j)
            assert other[0] > key or (other[0] == key and other[1] <= kept), \
                (symbols, style, previous, rows[i], second.midi[j])
    # and what it reports is that same count
    for table, k, before, entry in ((first, a, line, result["voicings"][0]),
                                    (second, b, _guide_midi(first, a), result["voicings"][1])):
        guides = _guide_midi(table, k)
        expected = None if not before or not guides else \
            _kept_count(table, k, before) == len(guides)
        assert entry["guideTonesKept"] is expected


def test_a_dominant_into_a_minor_target_takes_b9_and_b13_blue_bossa() -> None:
    # Blue Bossa's Dm7b5 G7b9 | Cm7, written plain: a pianist plays b9/b13 into the minor
    # target (phrygian dominant, as analyze reads it), and 11, not 9, on the half-diminished ii
    for style in ("bill_evans", "rootless"):
        ii, v, _ = voicing({"progression": "Dm7b5 G7 Cm7", "style": style})["voicings"]
        assert v["chord"] == "G7"                       # as written
        assert {"Ab", "Eb"} <= {n[:-1] for n in v["notes"]}
        assert not {"A", "E"} & {n[:-1] for n in v["notes"]}
        assert "E" not in {n[:-1] for n in ii["notes"]}  # no natural 9 on Dm7b5
    # into a major target the natural tensions stay; a written tension is played as written
    major = voicing({"progression": "Dm7 G7 Cmaj7", "style": "bill_evans"})["voicings"][1]
    assert not {"Ab", "Eb"} & {n[:-1] for n in major["notes"]}
    written = voicing({"progression": "G13 Cm7", "style": "bill_evans"})["voicings"][0]
    assert "E" in {n[:-1] for n in written["notes"]}
