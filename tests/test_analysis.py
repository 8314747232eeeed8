"""analyze (API.md §3): numerals, functions and sources across keys, by the rule grid."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import analyze, reharmonize, resolve
from engine.analysis.batch import ROW_FIELDS, analyze_batch
from engine.analysis.operations import analyze_chord
from engine.chords.keys import parse_key
from engine.chords.notes import parse_spelled
from engine.chords.symbols import parse
from engine.chords.tables import QUALITIES, QualityRow
from engine.errors import InvalidChord, InvalidKey, InvalidRequest

MAJOR_KEYS = ["C", "G", "D", "A", "E", "B", "F#", "Db", "Ab", "Eb", "Bb", "F"]
MINOR_KEYS = ["Am", "Em", "Bm", "F#m", "C#m", "G#m", "Ebm", "Bbm", "Fm", "Cm", "Gm", "Dm"]

# Per degree: (seventh suffix, numeral, triad suffix, triad numeral, function).
DIATONIC = {
    "major": [("maj7", "Imaj7", "", "I", "tonic"), ("m7", "ii7", "m", "ii", "predominant"),
              ("m7", "iii7", "m", "iii", "tonic"), ("maj7", "IVmaj7", "", "IV", "predominant"),
              ("7", "V7", "", "V", "dominant"), ("m7", "vi7", "m", "vi", "tonic"),
              ("m7b5", "viiø7", "dim", "vii°", "dominant")],
    "minor": [("m7", "i7", "m", "i", "tonic"), ("m7b5", "iiø7", "dim", "ii°", "predominant"),
              ("maj7", "bIIImaj7", "", "bIII", "tonic"), ("m7", "iv7", "m", "iv", "predominant"),
              ("m7", "v7", "m", "v", "dominant"), ("maj7", "bVImaj7", "", "bVI", "predominant"),
              # the subtonic is the dominant of the relative major (F7 -> Bbmaj7 in Gm)
              ("7", "bVII7", "", "bVII", "dominant")],
}


def an(chord: str, key: str = "C") -> dict[str, Any]:
    return analyze({"chord": chord, "key": key})


@pytest.mark.parametrize("key", MAJOR_KEYS + MINOR_KEYS)
def test_diatonic_sevenths_and_triads_of_every_key(key: str) -> None:
    k = parse_key(key)
    for degree, (seventh, numeral, triad, triad_numeral, function) in enumerate(DIATONIC[k.mode]):
        root = k.scale[degree].name
        for suffix, expected in ((seventh, numeral), (triad, triad_numeral)):
            r = an(root + suffix, key)
            assert (r["numeral"], r["degree"]) == (expected, degree + 1), (root + suffix, key)
            assert r["diatonic"] and not r["borrowed"] and r["source"] is None
            assert r["function"] == f"{function}, diatonic"


SECONDARY = {  # key -> [(chord, numeral, target)]
    "C": [("A7", "V7/ii"), ("B7", "V7/iii"), ("D7", "V7/V"), ("E7", "V7/vi")],
    "Eb": [("C7", "V7/ii"), ("D7", "V7/iii"), ("F7", "V7/V"), ("G7", "V7/vi")],
}


@pytest.mark.parametrize(("chord", "key"), [("F7", "F"), ("Bb7", "Bb"), ("C9", "C")])
def test_the_blues_tonic_i7_is_a_tonic_billies_bounce(chord: str, key: str) -> None:
    # Billie's Bounce, Tenor Madness: I7 alone in a major key is the blues's home chord; it
    # is V7/IV only where it moves to IV (the progression analysis says so in context).
    r = an(chord, key)
    assert r["numeral"].startswith("I") and r["numeral"][1] in "79"
    assert r["function"].startswith("tonic, blues tonic")
    assert r["scales"][0]["name"] == "mixolydian"


def test_the_minor_tonic_and_the_borrowed_v7_take_dorian_so_what_and_misty() -> None:
    # So What's Dm7 (i7 in D minor) and Misty's bar-2 Bbm7 in Eb (v7: the ii of a ii-V to IV)
    assert an("Dm7", "Dm")["scales"][0]["name"] == "dorian"
    assert an("Dm11", "Dm")["scales"][0]["name"] == "dorian"
    assert an("Bbm7", "Eb")["scales"][0]["name"] == "dorian"
    assert an("Cm7", "F")["scales"][0]["name"] == "dorian"


def test_iv_minor_major_seventh_is_modal_interchange() -> None:
    r = an("Fmmaj7", "C")
    assert (r["numeral"], r["borrowed"], r["source"]) == ("iv(maj7)", True, "parallel minor")
    assert r["function"].startswith("predominant, modal interchange")
    assert r["scales"][0]["name"] == "melodic minor"


@pytest.mark.parametrize("key", ["C", "Eb"])
def test_secondary_dominants(key: str) -> None:
    for chord, numeral in SECONDARY[key]:
        r = an(chord, key)
        target = numeral.split("/")[1]
        assert r["numeral"] == numeral
        assert r["function"] == f"dominant, secondary dominant of {target}"
        assert r["source"] == f"secondary dominant of {target}"
        assert not r["borrowed"]
    # extensions and alterations keep the role; the mark follows the quality
    assert an("A7b9", "C")["numeral"] == "V7b9/ii"
    assert an("D13", "C")["numeral"] == "V13/V"


TRITONE = {  # key -> [(chord, numeral, substitute of)]
    "C": [("Db7", "bII7", "V7"), ("Eb7", "bIII7", "V7/ii"), ("Gb7", "bV7", "V7/IV"),
          ("Ab7", "bVI7", "V7/V")],
    # The role names the numeral, whatever the spelling (API.md §3: a tritone substitute is
    # bII7, bVI7 as the substitute of V7/V): E7 and Fb7 in Eb are both bII7.
    "Eb": [("Fb7", "bII7", "V7"), ("E7", "bII7", "V7"), ("Gb7", "bIII7", "V7/ii"),
           ("Bbb7", "bV7", "V7/IV"), ("A7", "bV7", "V7/IV"), ("Cb7", "bVI7", "V7/V"),
           ("B7", "bVI7", "V7/V")],
    "Bb": [("Cb7", "bII7", "V7"), ("B7", "bII7", "V7"), ("Gb7", "bVI7", "V7/V"),
           ("F#7", "bVI7", "V7/V")],
}


@pytest.mark.parametrize("key", ["C", "Eb", "Bb"])
def test_tritone_substitutes(key: str) -> None:
    for chord, numeral, of in TRITONE[key]:
        r = an(chord, key)
        assert r["numeral"] == numeral, (chord, key)
        assert r["function"] == f"dominant, tritone substitute of {of}"
        assert r["source"] == f"tritone substitute of {of}"


def test_tritone_substitute_in_minor_names_what_it_stands_for() -> None:
    # Gb7 in G minor leads to F (bVII); "VII7" would read as F#7, so the numeral names the
    # substitution (docs/analysis.md); the lowered degrees keep the Real Book's bII7, bVI7.
    for chord, key, numeral in [("Gb7", "Gm", "subV7/bVII"), ("E7", "Cm", "subV7/bIII"),
                                ("Db7", "Cm", "bII7"), ("Bb7", "Am", "bII7")]:
        r = an(chord, key)
        assert r["numeral"] == numeral, (chord, key)
        assert r["function"].startswith("dominant, tritone substitute of V7"), (chord, key)


@pytest.mark.parametrize(("key", "backdoor", "blues"), [("C", "Bb7", "F7"), ("Eb", "Db7", "Ab7")])
def test_backdoor_wins_over_substitute_and_iv7_is_the_blues_subdominant(
        key: str, backdoor: str, blues: str) -> None:
    r = an(backdoor, key)  # also the tritone substitute of V7/vi: the backdoor reading wins
    assert (r["numeral"], r["function"], r["source"]) == (
        "bVII7", "dominant, backdoor dominant", "backdoor dominant")
    r = an(blues, key)  # also the tritone substitute of V7/iii
    assert (r["numeral"], r["function"], r["borrowed"]) == (
        "IV7", "predominant, blues subdominant", True)


def test_borrowed_from_c_minor_in_c() -> None:
    cases = [("Fm7", "iv7", "predominant"), ("Fm6", "iv6", "predominant"),
             ("Fm", "iv", "predominant"), ("Abmaj7", "bVImaj7", "predominant"),
             ("Ab", "bVI", "predominant"), ("Ebmaj7", "bIIImaj7", "tonic"),
             ("Eb", "bIII", "tonic"), ("Dm7b5", "iiø7", "predominant"),
             ("Bb", "bVII", "predominant"), ("Cm7", "i7", "tonic"), ("Gm7", "v7", "dominant")]
    for chord, numeral, function in cases:
        r = an(chord, "C")
        assert r["numeral"] == numeral, chord
        assert r["function"] == f"{function}, borrowed from C minor", chord
        assert r["borrowed"] and r["source"] == "parallel minor" and not r["diatonic"]
    # the other parallel modes of C, in the contract's order
    assert an("Dbmaj7")["source"] == "phrygian" and an("Dbmaj7")["numeral"] == "bIImaj7"
    assert an("Bbmaj7")["source"] == "dorian"
    assert an("Bdim7")["source"] == "harmonic minor" and an("Bdim7")["numeral"] == "vii°7"
    assert an("Cm(maj7)")["source"] == "harmonic minor"
    assert an("Cm6")["source"] == "dorian"  # the 6th rules out aeolian
    assert an("Cm6", "Cm")["source"] == "melodic minor"


def test_minor_keys() -> None:
    r = an("E7", "Am")
    assert (r["numeral"], r["function"], r["source"]) == (
        "V7", "dominant, from A harmonic minor", "harmonic minor")
    assert not r["diatonic"] and not r["borrowed"]
    r = an("Fmaj7", "Am")
    assert (r["numeral"], r["diatonic"]) == ("bVImaj7", True)
    r = an("G7", "Am")
    assert (r["numeral"], r["diatonic"]) == ("bVII7", True)
    assert an("G#dim7", "Am")["numeral"] == "vii°7"
    assert an("Bb7", "Am")["function"] == "dominant, tritone substitute of V7"
    assert an("B7", "Am")["numeral"] == "V7/v"
    assert an("D7", "Am")["numeral"] == "V7/bVII"  # secondary before dorian IV7
    r = an("Bm7", "Am")
    assert (r["source"], r["borrowed"]) == ("melodic minor", False)
    r = an("C#m7", "Am")
    assert (r["source"], r["borrowed"], r["function"]) == (
        "parallel major", True, "tonic, borrowed from A major")


def test_passing_diminished_and_chromatic() -> None:
    for chord, numeral, target in [("C#dim7", "#i°7", "ii"), ("D#dim7", "#ii°7", "iii"),
                                   ("F#dim7", "#iv°7", "V"), ("G#dim7", "#v°7", "vi")]:
        r = an(chord)
        assert (r["numeral"], r["function"]) == (numeral, f"passing, diminished approach to {target}")
    r = an("F#m7b5")
    assert (r["numeral"], r["function"], r["source"]) == ("#ivø7", "chromatic, outside the key", None)


def test_quality_marks_and_case() -> None:
    assert an("Eaug")["numeral"] == "III+"
    assert an("Gaug")["function"] == "dominant, augmented dominant"
    assert an("Ebaug", "Cm")["numeral"] == "bIII+"
    assert an("G7alt")["numeral"] == "V7alt"
    assert an("G7sus4")["numeral"] == "V7sus4"
    assert an("F6")["numeral"] == "IV6"
    assert an("G13")["numeral"] == "V13"
    assert an("Bdim")["numeral"] == "vii°"


def test_tensions_outside_the_key_keep_the_role() -> None:
    # the role and numeral stay V's, but the qualifier does not say "diatonic" while diatonic
    # is false (this test pinned "dominant, diatonic" for G7b9): it names the tensions' source
    r = an("G7b9")
    assert (r["numeral"], r["function"], r["diatonic"], r["source"]) == (
        "V7b9", "dominant, with tensions from C harmonic minor", False, "harmonic minor")
    r = an("G7#9")
    assert (r["numeral"], r["function"], r["diatonic"], r["source"]) == (
        "V7#9", "dominant, with tensions outside the key", False, None)
    r = an("Bb7b9", "Cm")
    assert (r["numeral"], r["function"], r["source"]) == (
        "bVII7b9", "dominant, with tensions outside the key", None)
    assert an("Dm9")["diatonic"] and an("G13")["diatonic"]
    assert an("G13")["function"] == "dominant, diatonic"


def test_inversions_and_fields_in_order() -> None:
    r = an("C/E")
    assert (r["bass"], r["inversion"]) == ("E", 1)
    assert an("C/G")["inversion"] == 2 and an("C7/Bb")["inversion"] == 3
    assert an("C/D")["inversion"] is None
    assert list(r) == ["chord", "key", "root", "quality", "name", "bass", "intervals",
                       "semitones", "notes", "pcs", "degree", "numeral", "inversion",
                       "function", "diatonic", "borrowed", "source", "scales"]


def test_scales_by_role() -> None:
    def names(chord: str, key: str = "C") -> list[str]:
        return [s["name"] for s in an(chord, key)["scales"]]
    assert names("Dm7")[0] == "dorian"
    assert names("Am7")[0] == "aeolian"
    assert names("Fmaj7")[0] == "lydian"
    assert names("Cmaj7")[0] == "ionian"
    assert names("G7")[0] == "mixolydian"
    assert names("E7")[0] == "phrygian dominant"  # V7/vi: a minor target
    assert names("E7", "Am")[0] == "phrygian dominant"
    assert names("G7alt")[0] == "altered"
    assert names("G7b9")[0] == "half-whole diminished"
    assert names("Bm7b5")[:2] == ["locrian", "locrian natural 2"]
    assert names("Db7")[0] == "lydian dominant"
    assert names("C#dim7")[0] == "whole-half diminished"
    r = an("Dm7")["scales"]
    assert r[0]["priority"] == "primary" and all(s["priority"] == "secondary" for s in r[1:])
    assert r[0]["notes"] == ["D", "E", "F", "G", "A", "B", "C"]
    assert an("Cmaj7")["scales"][0]["avoid"] == ["F"]


def test_key_and_its_alias_must_agree_when_both_are_given() -> None:
    same = analyze({"chord": "Dm7b5", "key": "Cm", "keyContext": "Cm"})
    assert same == analyze({"chord": "Dm7b5", "key": "Cm"})
    with pytest.raises(InvalidRequest, match="keyContext") as refused:
        analyze({"chord": "Dm7b5", "key": "Cm", "keyContext": "Gm"})
    assert refused.value.to_dict()["error"]["field"] == "keyContext"
    with pytest.raises(InvalidRequest) as refused:
        reharmonize({"progression": "Dm7 G7 Cmaj7", "key": "C", "keyContext": "F"})
    assert refused.value.to_dict()["error"]["field"] == "keyContext"
    # an error in the alias names the alias, the field the client sent
    with pytest.raises(InvalidRequest) as refused:
        analyze({"chord": "C", "keyContext": 5})
    assert refused.value.to_dict()["error"]["field"] == "keyContext"


def test_key_alias_default_and_errors() -> None:
    assert analyze({"chord": "Dm7", "keyContext": "F"})["numeral"] == "vi7"
    assert analyze({"chord": "Dm7"})["key"] == "C"
    with pytest.raises(InvalidKey, match="use key F"):
        analyze({"chord": "C", "key": "Bb lydian"})
    with pytest.raises(InvalidChord):
        analyze({"chord": "Xmaj7"})
    with pytest.raises(InvalidRequest):
        analyze({"key": "C"})
    with pytest.raises(InvalidRequest):
        analyze(["Dm7"])


def test_same_request_same_bytes() -> None:
    req = {"chord": "Ab7", "key": "Eb"}
    assert orjson.dumps(analyze(req)) == orjson.dumps(analyze(dict(req)))


def test_a_caller_changing_its_result_changes_no_other_answer() -> None:
    """The engine keeps one analysis a (chord, key) and one list of scale entries a chord,
    shared by its keys and by resolve: every caller gets its own copy to change."""
    before = {key: orjson.dumps(an("Dm7", key)) for key in ("C", "F", "Am")}
    resolved = orjson.dumps(resolve({"chord": "Dm7"}))
    mine = an("Dm7", "C")
    mine["notes"].append("X")
    mine["scales"][0]["name"] = "mine"
    mine["scales"][0]["notes"].append("X")
    mine["scales"][0]["avoid"].clear()
    mine["scales"].pop()
    theirs = resolve({"chord": "Dm7"})
    theirs["scales"][0]["notes"].append("X")
    theirs["scales"][0]["character"] = "mine"
    assert {key: orjson.dumps(an("Dm7", key)) for key in before} == before
    assert orjson.dumps(resolve({"chord": "Dm7"})) == resolved


_ROOTS = ["C", "C#", "Db", "D", "Eb", "E", "F", "F#", "Gb", "G", "Ab", "A", "Bb", "B", "Cb"]
_KEYS = MAJOR_KEYS + MINOR_KEYS + ["Gb", "C#", "Abm", "D#m"]


@given(root=st.sampled_from(_ROOTS), row=st.sampled_from(QUALITIES), key=st.sampled_from(_KEYS))
def test_every_quality_root_and_key_reads(root: str, row: QualityRow, key: str) -> None:
    chord = parse(root + row.canonical)
    r = analyze_chord(chord, parse_key(key))
    assert 1 <= r["degree"] <= 7
    assert r["function"].split(", ")[0] in {"tonic", "predominant", "dominant", "passing",
                                             "chromatic"}
    head = r["numeral"].split("/")[0].removeprefix("sub").lstrip("b#")  # subV7/bVII
    minor_third = "b3" in chord.intervals and "3" not in chord.intervals
    assert head[0].islower() == minor_third, r["numeral"]
    scale_pcs = {s.pc for s in parse_key(key).scale}
    assert r["diatonic"] == all(parse_spelled(n).pc in scale_pcs for n in chord.notes)
    # the function text says "diatonic" only of a chord whose tones all are
    assert r["function"].endswith(", diatonic") <= r["diatonic"], r["function"]
    batch = analyze_batch([root + row.canonical], key).row(0)
    assert batch == {f: r[f] for f in ROW_FIELDS}


# diatonic, source and the function's qualifier test the chord tones (API.md §3); a slash bass
# is not one (§1: the D of C/D is "a bass that is not a chord tone"), so it changes none of them.
# This test said the bass counted before: C/Db was diatonic false in C with function "tonic,
# diatonic" and source null, three fields that disagreed. A tension is a chord tone: G7b9/Ab
# (its b9 in the bass as well) is diatonic false, and its function says where the b9 comes from.
@pytest.mark.parametrize(("chord", "key", "function", "diatonic", "source"), [
    ("C/Db", "C", "tonic, diatonic", True, None),
    ("C/F#", "C", "tonic, diatonic", True, None),
    ("Dm7/C#", "C", "predominant, diatonic", True, None),
    ("Dm7/Eb", "C", "predominant, diatonic", True, None),
    ("Am/G#", "Am", "tonic, diatonic", True, None),
    ("Dm7b5/E", "Cm", "predominant, diatonic", True, None),
    ("G7b9/Ab", "C", "dominant, with tensions from C harmonic minor", False, "harmonic minor"),
    ("Fm/G", "C", "predominant, borrowed from C minor", False, "parallel minor"),
])
def test_slash_bass_is_not_a_chord_tone_for_diatonic(chord: str, key: str, function: str,
                                                     diatonic: bool, source: str | None) -> None:
    r = an(chord, key)
    assert (r["function"], r["diatonic"], r["source"]) == (function, diatonic, source)
    plain = an(chord.split("/")[0], key)  # the bass moves neither the role nor the tones' test
    assert [r[f] for f in ("numeral", "function", "diatonic", "borrowed", "source")] == \
        [plain[f] for f in ("numeral", "function", "diatonic", "borrowed", "source")]
    assert analyze_batch([chord], key).row(0) == {f: r[f] for f in ROW_FIELDS}


# The numeral of a chord whose role the grid knows is the role's own, whatever the spelling;
# a chromatic chord (no role) is named from its letters. ``degree`` is always the letter's.
@pytest.mark.parametrize(("chord", "key", "degree", "numeral"), [
    ("E7", "Eb", 1, "bII7"), ("Fb7", "Eb", 2, "bII7"), ("B7", "Eb", 5, "bVI7"),
    ("A7", "Eb", 4, "bV7"), ("B7", "Bb", 1, "bII7"), ("C#7", "C", 1, "bII7"),
    ("Db°7", "C", 2, "#i°7"), ("C#°7", "C", 1, "#i°7"), ("Gbdim7", "C", 5, "#iv°7"),
    ("G#maj7", "C", 5, "bVImaj7"), ("A#7", "C", 6, "bVII7"), ("D#maj7", "Cm", 2, "bIIImaj7"),
    ("C", "Cb", 1, "bII"), ("Dbb", "Cb", 2, "bII"), ("B", "Cb", 7, "I"),
    # substitutes whose root would be a natural degree name what they stand for (Gb7 in A
    # minor leads to F, bVI: "VI7" would read F#7; docs/analysis.md)
    ("Ab7", "Am", 1, "subV7/bVII"), ("Gb7", "Am", 7, "subV7/bVI"), ("Db7", "Am", 4, "subV7/bIII"),
    ("Gbm7b5", "C", 5, "bvø7"), ("F#m7b5", "C", 4, "#ivø7"),  # chromatic: the letters
])
def test_numeral_follows_the_role_degree_the_letter(chord: str, key: str, degree: int,
                                                    numeral: str) -> None:
    r = an(chord, key)
    assert (r["degree"], r["numeral"]) == (degree, numeral)
    assert analyze_batch([chord], key).row(0)["numeral"] == numeral


_ROMAN_NUMBER = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7}
_ALL_ROOTS = [letter + acc for letter in "CDEFGAB" for acc in ("", "#", "b")]
_ALL_KEYS = [tonic + mode for tonic in ("C", "G", "D", "A", "E", "B", "F#", "C#", "F", "Bb",
                                        "Eb", "Ab", "Db", "Gb", "Cb") for mode in ("", "m")]


def test_respelling_a_root_keeps_the_numeral_of_its_role() -> None:
    # every key x every pitch class x its spellings on different letters x each family
    by_pc: dict[int, list[str]] = {}
    for root in _ALL_ROOTS:
        by_pc.setdefault(parse_spelled(root).pc, []).append(root)
    for key in _ALL_KEYS:
        tonic_letter = parse_key(key).tonic.letter
        for spellings in by_pc.values():
            for suffix in ("", "m", "7", "maj7", "m7b5", "dim7", "aug", "7sus4", "6"):
                results = [an(root + suffix, key) for root in spellings]
                for root, r in zip(spellings, results, strict=True):
                    letters = (parse_spelled(root).letter - tonic_letter) % 7
                    assert r["degree"] == letters + 1, (root + suffix, key)
                if results[0]["function"].startswith("chromatic"):
                    for r in results:  # no role: the numeral names the letter's degree
                        roman = re.match(r"[b#]*([IViv]+)", r["numeral"])
                        assert roman is not None, r["numeral"]
                        assert _ROMAN_NUMBER[roman[1].lower()] == r["degree"], (r["chord"], key)
                else:
                    assert len({r["numeral"] for r in results}) == 1, (spellings, suffix, key)


@pytest.mark.parametrize(("chord", "key", "numeral"), [
    ("F/G", "C", "V9sus4"), ("Bb/C", "F", "V9sus4"), ("Db/Eb", "Ab", "V9sus4"),
    ("Dm7/G", "C", "V9sus4"),     # ii over V: the sus V of countless ballads
    ("Fmaj7/G", "C", "V13sus4"),
])
def test_slash_sus_chords_are_dominant_sus(chord: str, key: str, numeral: str) -> None:
    # A major triad over the note a whole step up (a minor seventh over its fourth) spells
    # the dominant sus chord on the bass: F/G is G9sus4 (1, b7, 9, 11), read V9sus4, dominant;
    # grid 4 read "IV, predominant".
    r = an(chord, key)
    assert (r["numeral"], r["function"].split(",")[0]) == (numeral, "dominant")
    assert r["root"] == chord.split("/")[0].rstrip("m7aj")  # the chord as written is kept
    assert r["scales"][0]["name"] == "mixolydian"
    assert r["scales"][0]["notes"][0] == chord.split("/")[1]


def test_dolphin_dances_dbmaj7_over_eb_is_the_tonic_sus() -> None:
    r = an("Dbmaj7/Eb", "Eb")
    assert r["numeral"] == "I13sus4"
    assert an("C/E", "C")["numeral"] == "I"  # an inversion stays what it is
