"""Chord symbols as musicians write them: qualities, spellings, slash basses, errors."""

from __future__ import annotations

import pytest

from engine.chords.symbols import parse, parse_progression, split_progression, tokenize
from engine.errors import InvalidChord, InvalidRequest


@pytest.mark.parametrize(("symbol", "quality", "notes"), [
    ("C", "", "C E G"),
    ("Cm", "m", "C Eb G"),
    ("Cdim", "dim", "C Eb Gb"),
    ("Caug", "aug", "C E G#"),
    ("Csus2", "sus2", "C D G"),
    ("Csus", "sus4", "C F G"),
    ("C5", "5", "C G"),
    ("C6", "6", "C E G A"),
    ("Cm6", "m6", "C Eb G A"),
    ("C6/9", "6/9", "C E G A D"),
    ("Cm69", "m6/9", "C Eb G A D"),
    ("C7", "7", "C E G Bb"),
    ("CΔ", "maj7", "C E G B"),
    ("C^7", "maj7", "C E G B"),
    ("C-7", "m7", "C Eb G Bb"),
    ("Cø", "m7b5", "C Eb Gb Bb"),
    ("Cdim7", "dim7", "C Eb Gb Bbb"),
    ("Bdim7", "dim7", "B D F Ab"),
    ("Cm(maj7)", "m(maj7)", "C Eb G B"),
    ("C-Δ7", "m(maj7)", "C Eb G B"),
    ("C7sus4", "7sus4", "C F G Bb"),
    ("C+7", "aug7", "C E G# Bb"),
    ("C7#5", "aug7", "C E G# Bb"),
    ("C+maj7", "maj7#5", "C E G# B"),
    ("Cmaj7b5", "maj7b5", "C E Gb B"),
    ("C7b5", "7b5", "C E Gb Bb"),
    ("C9", "9", "C E G Bb D"),
    ("C11", "11", "C G Bb D F"),
    ("Cm11", "m11", "C Eb G Bb D F"),
    ("C13", "13", "C E G Bb D A"),
    ("Cmaj13", "maj13", "C E G B D A"),
    ("Cm(maj9)", "m(maj9)", "C Eb G B D"),
    ("Cadd9", "add9", "C E G D"),
    ("Cadd2", "add9", "C E G D"),
    ("Cmadd9", "madd9", "C Eb G D"),
    ("C9sus4", "9sus4", "C F G Bb D"),
    ("C13sus4", "13sus4", "C F G Bb D A"),
    ("C7b9sus4", "7sus4b9", "C F G Bb Db"),
    ("F#7#9", "7#9", "F# A# C# E G##"),
    ("C7#9#11", "7#9#11", "C E G Bb D# F#"),
    ("C7b9b13", "7b9b13", "C E G Bb Db Ab"),
    ("C13b9", "13b9", "C E G Bb Db A"),
    ("C13#11", "13#11", "C E G Bb D F# A"),
    ("C7#5#9", "7#5#9", "C E G# Bb D#"),
    ("C7(b9,#11)", "7b9#11", "C E G Bb Db F#"),
    ("C7(#9)", "7#9", "C E G Bb D#"),
    ("C7alt", "7alt", "C E Bb Db D# F# Ab"),
    ("Cno3", "no3", "C G"),
    ("C7omit3", "7no3", "C G Bb"),
])
def test_common_vocabulary(symbol: str, quality: str, notes: str) -> None:
    chord = parse(symbol)
    assert chord.quality == quality
    assert " ".join(chord.notes) == notes
    assert chord.symbol == symbol


@pytest.mark.parametrize(("symbol", "same_as"), [
    ("Cmi", "Cm"), ("Cmin7", "Cm7"), ("Ch7", "Cm7b5"), ("Ch", "Cm7b5"), ("C0", "Cdim"),
    ("C07", "Cdim7"), ("Co7", "Cdim7"), ("C°7", "Cdim7"), ("C7+", "Caug7"),
    ("Cm/maj7", "Cm(maj7)"), ("CmM7", "Cm(maj7)"), ("C7sus", "C7sus4"), ("C69", "C6/9"),
    ("CM7", "Cmaj7"), ("Cma7", "Cmaj7"), ("CMaj7", "Cmaj7"), ("CΔ7", "Cmaj7"),
    ("C7-5", "C7b5"), ("C7(b9)", "C7b9"), ("C7b9#11", "C7#11b9"), ("Cmaug", "Cm#5"),
    ("Cm+", "Cm#5"), ("C9+", "C9#5"), ("CM7+", "Cmaj7#5"), ("Cmb5", "Cdim"),
])
def test_lead_sheet_spellings(symbol: str, same_as: str) -> None:
    a, b = parse(symbol), parse(same_as)
    assert (a.quality, a.intervals, a.notes) == (b.quality, b.intervals, b.notes)


def test_jazz_practice_tones() -> None:
    assert parse("G13").semitones == (0, 4, 7, 10, 14, 21)
    assert parse("C11").semitones == (0, 7, 10, 14, 17)
    assert parse("C7alt").intervals == ("1", "3", "b7", "b9", "#9", "#11", "b13")
    assert "11" in parse("Cm11").intervals and "b3" in parse("Cm11").intervals


def test_names_carry_the_root() -> None:
    assert parse("C7b9").name == "C dominant seventh flat nine"
    assert parse("Bbm7b5").name == "Bb half-diminished seventh"
    assert parse("C/E").name == "C major over E"


def test_slash_basses() -> None:
    assert parse("C").bass is None and parse("C").inversion == 0
    c_e = parse("C/E")
    assert c_e.bass_name == "E" and c_e.inversion == 1 and c_e.notes == ("C", "E", "G")
    assert parse("C/G").inversion == 2
    assert parse("C7/Bb").inversion == 3
    c_d = parse("C/D")
    assert c_d.bass_name == "D" and c_d.inversion is None
    assert parse("Ebm/maj7/Gb").bass_name == "Gb"
    assert parse("Cm/maj7/G").quality == "m(maj7)"
    assert parse("C6/9/E").quality == "6/9"


def test_unicode_accidentals_and_mask() -> None:
    chord = parse("B♭7")
    assert chord.root_name == "Bb" and chord.pcs == (10, 2, 5, 8)
    assert chord.mask == sum(1 << pc for pc in chord.pcs)


def test_tokenize() -> None:
    assert tokenize("Bbm7b5/Fb") == ("Bb", "m7b5", "Fb")
    assert tokenize("C6/9") == ("C", "6/9", "")
    assert tokenize("xyz") == ("", "xyz", "")


@pytest.mark.parametrize("symbol", [
    "", "  ", "H", "c7", "Ab#", "A#b", "Abbb", "A###", "Csus3", "C/B###", "C/H", "C7b9b9",
    "Cmaj7(", "C7()", "C7(b9", "Cfoo", "C9add9", "Cmsus4", "C" + "7" * 40, "NC", "C/",
    "Cmaj7alt", "C7 b9",
])
def test_invalid_symbols(symbol: str) -> None:
    with pytest.raises(InvalidChord) as info:
        parse(symbol)
    assert info.value.code == "invalid_chord"
    assert info.value.to_dict()["error"]["symbol"] == symbol


def test_invalid_non_strings() -> None:
    for value in (None, 7, ["C"], {"a": 1}):
        with pytest.raises(InvalidChord):
            parse(value)  # type: ignore[arg-type]


def test_error_position_and_reason() -> None:
    with pytest.raises(InvalidChord) as info:
        parse("Cmaj7foo")
    assert info.value.position == 5
    assert "position 5" in info.value.message
    with pytest.raises(InvalidChord) as info:
        parse("  C7/H")
    # the quality 7 reads: the bass H is what is wrong, at its own position (was 4, the slash,
    # with "unknown chord quality '/H'")
    assert info.value.position == 5
    assert "bass 'H' is not a note name" in info.value.message


@pytest.mark.parametrize(("symbol", "position", "reason"), [
    ("C/H", 2, "bass 'H' is not a note name"), ("Cmaj7/Q", 6, "bass 'Q'"),
    ("C7/9", 3, "bass '9'"), ("C/", 2, "needs a bass note"),
    ("C7#/E", 2, "unknown chord quality '#'"),  # the quality is wrong, not the bass
])
def test_bad_bass_is_blamed(symbol: str, position: int, reason: str) -> None:
    with pytest.raises(InvalidChord) as info:
        parse(symbol)
    assert info.value.position == position and reason in info.value.message


@pytest.mark.parametrize(("symbol", "quality"), [
    ("C+9", "9#5"), ("Caug9", "9#5"), ("C9+", "9#5"), ("C9#5", "9#5"), ("C9+5", "9#5"),
    ("C+7", "aug7"), ("C7+", "aug7"), ("C7+9", "7#9"), ("C7#9", "7#9"), ("C+9#11", "9#5#11"),
    # the rest of the family: C+13 is 13#5, C+maj9 maj9#5, C+maj13 maj13#5 (all were refused)
    ("C+13", "13#5"), ("Caug13", "13#5"), ("C13+", "13#5"), ("C13#5", "13#5"),
    ("C+13b9", "13#5b9"), ("C+maj9", "maj9#5"), ("Caugmaj9", "maj9#5"), ("C+M9", "maj9#5"),
    ("C+Δ9", "maj9#5"), ("Cmaj9+", "maj9#5"), ("C+maj9#11", "maj9#5#11"),
    ("C+maj13", "maj13#5"), ("Cmaj13#5", "maj13#5"), ("C+maj7", "maj7#5"),
    ("C–7", "m7"), ("C−7", "m7"), ("C–7b5", "m7b5"), ("C7–9", "7b9"),
])
def test_augmented_ninth_and_dash_spellings(symbol: str, quality: str) -> None:
    chord = parse(symbol)
    assert chord.quality == quality
    assert chord.quality == parse("C" + quality).quality  # the canonical form reads back


def test_augmented_ninth_tones() -> None:
    chord = parse("C+9")
    assert chord.notes == ("C", "E", "G#", "Bb", "D")
    assert chord.name == "C dominant ninth sharp five"
    chord = parse("C+13")
    assert chord.notes == ("C", "E", "G#", "Bb", "D", "A")
    assert chord.name == "C dominant thirteenth sharp five"
    chord = parse("C+maj9")
    assert chord.notes == ("C", "E", "G#", "B", "D")
    assert chord.name == "C major ninth sharp five"


def test_progression_string_and_list() -> None:
    chords = parse_progression("| Dm7 G7 | Cmaj7 |")
    assert [c.quality for c in chords if c] == ["m7", "7", "maj7"]
    assert [c.symbol for c in parse_progression(["Dm7", "G7"]) if c] == ["Dm7", "G7"]
    assert parse_progression("C NC G7", allow_nc=True)[1] is None
    assert parse_progression("C N.C. G7", allow_nc=True)[1] is None


def test_split_progression_keeps_symbols_as_written() -> None:
    assert split_progression("| Dm7  G7 | N.C. |") == ["Dm7", "G7", "N.C."]
    assert split_progression(["Dm7", "|", "G7", 5]) == ["Dm7", "G7", 5]  # items judged later
    assert split_progression(["  Dm7", "G7 ", " | ", "\tN.C."]) == ["Dm7", "G7", "N.C."]
    with pytest.raises(InvalidRequest) as req:
        split_progression({"C": 1}, field="changes")
    assert req.value.field == "changes"


def test_progression_errors() -> None:
    with pytest.raises(InvalidChord) as info:
        parse_progression("Dm7 G7 Hmaj7")
    assert info.value.to_dict()["error"]["index"] == 2
    with pytest.raises(InvalidChord):
        parse_progression("C NC G7")
    for bad in ("", " | ", [], 5, ["C", 5], "C " * 257):
        with pytest.raises(InvalidRequest) as req:
            parse_progression(bad, field="changes")
        assert req.value.field == "changes"
