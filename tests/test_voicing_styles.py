"""Style invariants for every chord quality the parser knows, on all twelve roots."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.chords.chord import Chord
from engine.chords.notes import parse_note_octave
from engine.chords.symbols import parse
from engine.chords.tables import QUALITY_NAMES
from engine.voicing.operation import voicing
from engine.voicing.styles import ALTERATIONS, BASS_FLOOR, GIVES_WAY, SHELL_REACH, STYLES
from tests.vocabulary import CHART_QUALITIES, vocabulary

ROOTS = ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
QUALITIES = CHART_QUALITIES
SLASH = ("C/E", "C/G", "C/D", "Dm7/G", "F/A", "Bb/C", "G7/B", "Ebmaj7/Bb", "F#m7b5/C",
         "Ab6/Eb", "E7sus4/D", "Bbdim7/Db")
LOW, HIGH = 48, 84


def _chords() -> Iterator[Chord]:
    for quality in dict.fromkeys(QUALITY_NAMES + QUALITIES):  # every quality the parser knows
        for root in ROOTS:
            yield parse(root + quality)
    for symbol in SLASH:
        yield parse(symbol)


CHORDS = list(_chords())


def _voice(chord: Chord, style: str) -> list[int]:
    result = voicing({"chord": chord.symbol, "style": style})
    midi = result["midi"]
    # names and numbers agree, notes ascend and stay in range
    assert [parse_note_octave(n)[1] for n in result["notes"]] == midi, chord.symbol
    assert midi == sorted(set(midi)) or style.startswith("drop"), (chord.symbol, midi)
    assert midi == sorted(midi), (chord.symbol, midi)
    # the default range bounds the upper voices; a shell or pad bass may go down to C2
    floor = BASS_FLOOR if STYLES[style].bass and len(midi) > 1 else LOW
    assert midi[0] >= floor and midi[1:] == [m for m in midi[1:] if m >= LOW] \
        and midi[-1] <= HIGH, (chord.symbol, midi)
    assert result["style"] == style
    return midi


def _pcs(chord: Chord, labels: tuple[str, ...]) -> set[int]:
    return {pc for label, pc in zip(chord.intervals, chord.pcs, strict=True) if label in labels}


def _label_of(chord: Chord, note: int) -> str:
    """The interval label of the chord tone ``note`` sounds."""
    return chord.intervals[chord.pcs.index(note % 12)]


def _guides(chord: Chord) -> tuple[int | None, int | None]:
    """The 3rd (sus 4, else 2) and the 7th (else the 6) of a chord, as pitch classes."""
    def first(groups: tuple[tuple[str, ...], ...]) -> int | None:
        for labels in groups:
            found = _pcs(chord, labels)
            if found:
                return min(found)
        return None
    if len(_pcs(chord, ("7", "b7", "bb7"))) > 1:   # dim7(maj7): which is "the" 7th is moot
        return None, None
    third = first((("3", "b3"), ("4", "11"), ("2", "9")))
    seventh = first((("7", "b7", "bb7"), ("6",)))
    return third, seventh


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_quality_and_root_voices_in_range(style: str) -> None:
    for chord in CHORDS:
        midi = _voice(chord, style)
        assert midi, chord.symbol


def test_rootless_never_holds_the_root() -> None:
    # except a slash chord's: it keeps the chord it names over the bass (C/E is C E G)
    for style in ("rootless", "bill_evans"):
        for chord in CHORDS:
            slash = chord.bass is not None and chord.bass.pc != chord.root.pc
            held = chord.root.pc in {m % 12 for m in _voice(chord, style)}
            assert held == slash, chord.symbol


def test_guide_tones_are_exactly_the_third_and_seventh() -> None:
    for chord in CHORDS:
        third, seventh = _guides(chord)
        if third is None or seventh is None:
            continue
        assert sorted(m % 12 for m in _voice(chord, "guide_tones")) == sorted({third, seventh})
        assert [m % 12 for m in _voice(chord, "guide_third")] == [third]
        assert [m % 12 for m in _voice(chord, "guide_seventh")] == [seventh]


def test_shell_is_root_then_third_and_seventh() -> None:
    for chord in CHORDS:
        midi = _voice(chord, "shell")
        if chord.bass is not None:
            assert midi[0] % 12 == chord.bass.pc, chord.symbol
            if chord.bass.pc != chord.root.pc:    # the root right above the bass, or on top
                assert chord.root.pc in (midi[1] % 12, midi[-1] % 12), chord.symbol
            continue
        third, seventh = _guides(chord)
        if third is None or seventh is None:
            continue
        assert midi[0] % 12 == chord.root.pc, chord.symbol
        # API.md 5: 1-3-7 or 1-7-3 (and a half-diminished or diminished chord's b5) within a
        # tenth, the root in E2-B3: a left-hand shell; a b5 or a sus 4th on top may reach
        # beyond the tenth (1-7-3-b5, 1-b7-11: styles.SHELL_REACH)
        upper = [m % 12 for m in midi[1:] if m % 12 not in _pcs(chord, ("b5",))]
        assert upper in ([third, seventh], [seventh, third]), chord.symbol
        assert _pcs(chord, ("b5",)) <= {m % 12 for m in midi}, chord.symbol
        reach = dict(SHELL_REACH).get(_label_of(chord, midi[-1]), 0)
        assert 40 <= midi[0] <= 59 and midi[-1] - midi[0] <= 16 + reach, (chord.symbol, midi)


def _undrop(midi: list[int], depth: int) -> list[int]:
    """Raise the lowest voice an octave; check it lands ``depth``-th from the top."""
    stack = sorted([*midi[1:], midi[0] + 12])
    assert stack.index(midi[0] + 12) == len(stack) - depth, midi
    return stack


@pytest.mark.parametrize(("style", "depth"), [("drop2", 2), ("drop3", 3)])
def test_drop_voicings_are_close_stacks_with_one_voice_dropped(style: str, depth: int) -> None:
    for chord in CHORDS:
        midi = _voice(chord, style)
        if len(midi) < 4:
            continue
        stack = _undrop(midi, depth)
        assert stack[-1] - stack[0] <= 12, (chord.symbol, midi)


def test_drop2_of_a_seventh_chord_holds_its_four_tones() -> None:
    for root in ROOTS:
        chord = parse(root + "m7")
        assert {m % 12 for m in _voice(chord, "drop2")} == set(chord.pcs)
        assert _voice(chord, "drop2") != sorted(_voice(chord, "drop3"))


def test_triad_is_root_third_fifth_in_close_position() -> None:
    for root in ROOTS:
        for quality in ("", "m", "dim", "aug", "sus4", "maj7", "m7b5"):
            chord = parse(root + quality)
            midi = _voice(chord, "triad")
            assert {m % 12 for m in midi} == set(chord.pcs[:3]), chord.symbol
            assert midi[-1] - midi[0] < 12


def test_pad_has_the_root_in_the_bass_and_is_spread() -> None:
    for chord in CHORDS:
        midi = _voice(chord, "pad")
        bass = chord.root if chord.bass is None else chord.bass
        assert midi[0] % 12 == bass.pc, chord.symbol
        if len(midi) > 1:
            assert midi[1] - midi[0] >= 3, chord.symbol       # no second over the bass
            assert midi[-1] - midi[0] <= 36, chord.symbol
            assert midi[0] <= 59, chord.symbol        # the bass in octave 2-3
    # the root in octave 3, the upper structure a tenth and more above it, no seconds
    assert voicing({"chord": "Cmaj7", "style": "pad"})["notes"] == ["C3", "E4", "G4", "B4"]
    assert voicing({"chord": "Cmaj7", "style": "pad", "range": [36, 72]})["notes"] == \
        ["C3", "B3", "E4", "G4"]
    # a bass below C3 keeps a fifth and more under the upper voices
    for chord in CHORDS[::5]:
        for low, high in ((24, 72), (30, 78)):
            midi = voicing({"chord": chord.symbol, "style": "pad", "range": [low, high]})["midi"]
            assert midi[0] >= 48 or len(midi) == 1 or midi[1] - midi[0] >= 7, \
                (chord.symbol, low, midi)


def test_bill_evans_a_and_b_forms_with_13_for_5_on_dominants() -> None:
    g7 = voicing({"chord": "G7", "style": "bill_evans"})
    assert g7["notes"] in (["B3", "E4", "F4", "A4"], ["F3", "A3", "B3", "E4"])
    assert g7["omitted"] == ["G", "D"]
    # the chord's own colour tone before an added 13
    lydian = voicing({"chord": "Db7#11", "style": "bill_evans"})
    assert "G" in {n[:-1] for n in lydian["notes"]} and lydian["omitted"] == ["Db", "Ab"]
    dm7 = voicing({"chord": "Dm7", "style": "bill_evans", "range": [52, 66]})
    assert dm7["notes"] == ["F3", "A3", "C4", "E4"]            # A form: 3 5 7 9
    dm7b = voicing({"chord": "Dm7", "style": "bill_evans", "range": [48, 58]})
    assert dm7b["notes"] == ["C3", "E3", "F3", "A3"]           # B form: 7 9 3 5


def test_sixths_sus_and_slash_chords() -> None:
    assert voicing({"chord": "C6", "style": "guide_tones"})["notes"] == ["A3", "E4"]
    assert voicing({"chord": "C7sus4", "style": "guide_tones"})["notes"] == ["Bb3", "F4"]
    shell = voicing({"chord": "C/E", "style": "shell"})
    assert shell["notes"][0].startswith("E") and shell["omitted"] == []
    pad = voicing({"chord": "C/D", "style": "pad"})
    assert pad["notes"][0].startswith("D") and pad["omitted"] == []


def test_omitted_spells_the_tones_left_out() -> None:
    assert voicing({"chord": "C7", "style": "guide_tones"})["omitted"] == ["C", "G"]
    # notes as a pianist reads them: no double flat or sharp (A, not Bbb; A, not G##)
    assert voicing({"chord": "Cdim7", "style": "guide_tones"})["notes"] == ["A3", "Eb4"]
    sharp9 = voicing({"chord": "F#7#9", "style": "rootless"})
    assert sharp9["omitted"] == ["F#"]
    assert sorted(n[:-1] for n in sharp9["notes"]) == ["A", "A#", "C#", "E"]


BASSES = ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")


@pytest.mark.parametrize("style", ["shell", "pad", "triad", "drop2", "drop3"])
def test_slash_chords_keep_their_root_in_root_holding_styles(style: str) -> None:
    # the slash bass is added under the chord, never put in place of its root: every style
    # that sounds the root of Cm7 sounds it in Cm7/Bb (drop voicings swap it for a 9 alike)
    for quality in QUALITIES:
        for root in ("C", "Ab"):
            plain = parse(root + quality)
            holds_root = plain.root.pc in {m % 12 for m in _voice(plain, style)}
            assert holds_root or style.startswith("drop"), plain.symbol
            for bass in BASSES:
                chord = parse(f"{root}{quality}/{bass}")
                midi = _voice(chord, style)
                if holds_root:
                    assert chord.root.pc in {m % 12 for m in midi}, (chord.symbol, midi)
                if STYLES[style].bass:
                    assert midi[0] % 12 == chord.bass.pc and midi.count(midi[0]) == 1, \
                        (chord.symbol, midi)
    if style in ("shell", "pad"):
        assert voicing({"chord": "C/G", "style": "shell"})["notes"] == ["G3", "C4", "E4"]
        assert voicing({"chord": "C7/Db", "style": "pad"})["omitted"] == []


def test_slash_shells_as_a_pianist_plays_them() -> None:
    # the bass, the root right above it, the 3rd and the 5 (the bass holds the 7th) near it
    # (the default range lets the bass go under C3: Bb2, a seventh under the shell's root)
    assert voicing({"chord": "Cm7/Bb", "style": "shell"})["notes"] == ["Bb2", "C4", "Eb4", "G4"]
    assert voicing({"chord": "C/D", "style": "shell"})["notes"] == ["D3", "C4", "E4", "G4"]


def _top_extension(chord: Chord, guides: set[int]) -> int | None:
    """The pitch class of the chord's highest natural 9, 11 or 13 (not standing in for a 3rd),
    leaving out an 11 over a major 3rd: it gives way (a minor 9th above the 3rd)."""
    named = [(int(label), pc) for label, pc in zip(chord.intervals, chord.pcs, strict=True)
             if label in ("9", "11", "13") and pc not in guides
             and GIVES_WAY.get(label) not in chord.intervals]
    return max(named)[1] if named else None


@pytest.mark.parametrize("style", ["rootless", "bill_evans", "pad", "drop2", "drop3"])
def test_written_alterations_sound_where_the_style_has_room(style: str) -> None:
    # A style of four voices or more sounds every altered tone of the symbol (b5 #5 #11 b9 #9
    # b13) unless all its colour voices (neither root nor 3rd nor 7th) already hold one; and
    # likewise the chord's highest named extension (the 13 of a 13 chord, the 11 of an m11, the
    # 9 of a 9 chord): an alteration pushes out a lesser colour tone (the 5, an added tone, a
    # lower extension), never the one the symbol is named by.
    for chord in vocabulary():
        third, seventh = _guides(chord)
        if third is None or seventh is None:
            continue
        midi = _voice(chord, style)
        sounding = {m % 12 for m in midi}
        altered = _pcs(chord, ALTERATIONS)
        colour = sounding - {chord.root.pc, third, seventh}
        assert altered <= sounding or colour <= altered, (chord.symbol, style, midi)
        top = _top_extension(chord, {third, seventh})
        assert top is None or top in sounding or colour <= altered, (chord.symbol, style, midi)
    for symbol, style_, held in [("C7#11", "drop2", "F#"), ("Cmaj7#11", "drop3", "F#"),
                                 ("Cm11b5", "rootless", "Gb"), ("C13b5", "rootless", "Gb"),
                                 ("C13b5", "bill_evans", "Gb"), ("C9#11", "pad", "F#"),
                                 ("C13#11", "pad", "F#"), ("C7#9b13", "pad", "D#"),
                                 ("C7b9#11", "drop2", "F#"), ("C13#11", "rootless", "A"),
                                 ("C13b5", "bill_evans", "A"), ("Cm11b5", "rootless", "F"),
                                 ("C9#11", "drop2", "D"), ("C6/9#11", "drop3", "D"),
                                 ("Cm11", "drop2", "F")]:
        if style_ == style:
            assert held not in voicing({"chord": symbol, "style": style})["omitted"], symbol
    if style == "drop2":      # the natural 5 gives way to the #11, not the 9 beside it
        lydian = voicing({"chord": "C9#11", "style": "drop2"})
        assert sorted(n[:-1] for n in lydian["notes"]) == ["Bb", "D", "E", "F#"]
        assert lydian["omitted"] == ["C", "G"]
    if style == "rootless":   # the 9 gives way to the b5, the 13 stays
        assert voicing({"chord": "C13b5", "style": "rootless"})["omitted"] == ["C", "D"]
    if style == "rootless":   # no room for all four: the #9 and b13 of the altered sound
        alt = voicing({"chord": "C7alt", "style": "rootless"})
        # its alterations spelled alike (Eb beside Ab, not D#)
        assert sorted(n[:-1] for n in alt["notes"]) == ["Ab", "Bb", "E", "Eb"]


@pytest.mark.parametrize("style", ["drop2", "drop3"])
def test_drop_voicings_avoid_a_minor_ninth_between_voices(style: str) -> None:
    for root in ROOTS:
        for quality in ("maj7", "m(maj7)", "maj7#5", "7b9"):
            midi = _voice(parse(root + quality), style)
            assert all(b - a != 13 for i, a in enumerate(midi) for b in midi[i + 1:]), \
                (root + quality, midi)
        previous = [69, 74, 77, 82]       # A4 D5 F5 Bb5: the root a minor ninth above the 7th
        led = voicing({"chord": "Bbmaj7", "style": style, "previous": previous})["midi"]
        assert all(b - a != 13 for i, a in enumerate(led) for b in led[i + 1:]), led


@pytest.mark.parametrize("style", sorted(STYLES))
def test_omitted_names_exactly_the_chord_tones_that_do_not_sound(style: str) -> None:
    # A doubled root that gives way to a written 11 leaves the root sounding (Cadd4 drop2 is
    # C4 F4 G4 E5: nothing omitted, not "C").
    for chord in vocabulary():
        result = voicing({"chord": chord.symbol, "style": style})
        sounding = {m % 12 for m in result["midi"]}
        silent = [n for n, pc in zip(chord.notes, chord.pcs, strict=True) if pc not in sounding]
        assert result["omitted"] == list(dict.fromkeys(silent)), (chord.symbol, result)
