"""identify (API.md 17): notes -> chord symbols, ranked as musicians name them; the round trip
over every symbol of the two jazz corpora; bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine import analyze, identify, resolve
from engine.chords import parse, transpose_mask
from engine.errors import InvalidKey, InvalidRequest
from engine.identify.table import EXACT_COUNT, SET_ENTRY, SET_ROOT, omittable
from engine.identify.vocabulary import VOCABULARY
from tests.corpus_tokens import keyed_tokens


def first(request: dict[str, Any]) -> dict[str, Any]:
    reading: dict[str, Any] = identify(request)["readings"][0]
    return reading


def symbols(request: dict[str, Any]) -> list[str]:
    return [r["symbol"] for r in identify(request)["readings"]]


def test_the_bass_decides_c6_against_am7_over_c() -> None:
    assert first({"notes": ["C3", "E3", "G3", "A3"]})["symbol"] == "C6"
    assert first({"notes": ["A2", "C3", "E3", "G3"]})["symbol"] == "Am7"
    assert symbols({"notes": ["C3", "E3", "G3", "A3"]})[1] == "Am7/C"
    assert first({"notes": ["E", "G", "A", "C"], "bass": "C"})["symbol"] == "C6"


def test_root_position_before_a_slash_reading() -> None:
    reading = first({"notes": ["E3", "C4", "G4"]})
    assert (reading["symbol"], reading["bass"], reading["inversion"]) == ("C/E", "E", 1)
    assert first({"notes": ["F3", "G3", "B3", "D4"]})["symbol"] == "G7/F"


def test_rootless_b_d_f_a_is_bm7b5_alone_and_g9_when_the_key_or_bass_says_so() -> None:
    assert first({"notes": ["B", "D", "F", "A"]})["symbol"] == "Bm7b5"
    in_c = first({"notes": ["B", "D", "F", "A"], "key": "C"})
    assert (in_c["symbol"], in_c["rootless"], in_c["omitted"]) == ("G9", True, ["G"])
    assert (in_c["numeral"], in_c["function"]) == ("V9", "dominant, diatonic")
    over_g = first({"notes": ["B", "D", "F", "A"], "bass": "G"})
    assert (over_g["symbol"], over_g["rootless"]) == ("G9", False)
    # in A minor G is not the dominant: the half-diminished ii
    assert first({"notes": ["B", "D", "F", "A"], "key": "Am"})["symbol"] == "Bm7b5"
    # a known bass decides before the key: B in the bass is Bm7b5's root
    assert first({"notes": ["B3", "D4", "F4", "A4"], "key": "C"})["symbol"] == "Bm7b5"


def test_we_will_meet_again_g13b9_rootless_is_the_dominant_in_c_minor(corpora: Path) -> None:
    # Bill Evans' We Will Meet Again (C minor) and My Romance (C) write G13b9; its rootless
    # voicing (b7 3 13 b9: F B E Ab, the bass player on G) is the dominant when the key says
    # so, as B D F A is G9 in C; alone it stays its own name
    tokens = set(keyed_tokens(corpora))
    assert ("G13b9", "Cmin") in tokens and ("G13b9", "C") in tokens
    for key, numeral in (("Cm", "V13b9"), ("C", "V13b9")):
        reading = first({"notes": ["F", "B", "E", "Ab"], "key": key})
        assert (reading["symbol"], reading["rootless"], reading["numeral"]) == \
            ("G13b9", True, numeral)
    assert first({"notes": ["F", "B", "E", "Ab"]})["symbol"] != "G13b9"
    # a sounding bass decides first, as for G9
    assert first({"notes": ["F3", "B3", "E4", "Ab4"], "key": "Cm"})["symbol"] != "G13b9"


def test_a_sixth_chord_off_the_tonic_is_the_inverted_ii7_in_a_key() -> None:
    # Beethoven's predominant ii65 (DCML ABC): F A C D over F in C
    assert symbols({"notes": ["F3", "A3", "C4", "D4"], "key": "C"})[:2] == ["Dm7/F", "F6"]
    assert first({"notes": ["F3", "Ab3", "C4", "D4"], "key": "Cm"})["symbol"] == "Dm7b5/F"
    assert first({"notes": ["F3", "A3", "C4", "D4"]})["symbol"] == "F6"
    # on the tonic the sixth chord stays
    assert first({"notes": ["C3", "E3", "G3", "A3"], "key": "C"})["symbol"] == "C6"


def test_stella_by_starlight_em7b5_stays_half_diminished_in_bb() -> None:
    # bar 1 of Stella by Starlight: Em7b5 A7b9; its rootless C9 is not Bb's dominant
    reading = first({"notes": ["E3", "G3", "Bb3", "D4"], "key": "Bb"})
    assert (reading["symbol"], reading["numeral"]) == ("Em7b5", "#iv" + "ø7")


def test_my_way_f_over_g_in_c_is_the_dominant_sus_as_analyze_reads_it() -> None:
    # My Way's F/G in C (and Ana Maria's Bb/C in F): a triad a step under its bass is the
    # dominant's sus chord, G9sus4 without its root's fifth, read V9sus4 as analyze reads the
    # symbol; a slash bass that is a chord tone keeps the triad's own role
    for notes, key, symbol in ((["G2", "F3", "A3", "C4"], "C", "F/G"),
                               ([48, 58, 62, 65], "F", "Bb/C")):   # names and MIDI numbers
        readings = identify({"notes": notes, "key": key})["readings"]
        sus = analyze({"chord": symbol, "key": key})
        assert (readings[0]["symbol"], readings[0]["numeral"], readings[0]["function"]) == \
            (symbol, sus["numeral"], sus["function"]) == (symbol, "V9sus4", "dominant, diatonic")
        assert readings[1]["symbol"].endswith("9sus4") and readings[1]["numeral"] == "V9sus4"
        added9 = next(r for r in readings if r["symbol"].endswith("add9/" + symbol[-1]))
        assert added9["numeral"] == "IVadd9"   # over the same bass, not heard as a sus chord
    inverted = first({"notes": ["A2", "F3", "C4"], "key": "C"})
    assert (inverted["symbol"], inverted["numeral"]) == ("F/A", "IV")


def test_watermelon_man_ab13_as_a_pianists_shell_reads_ab13(corpora: Path) -> None:
    # Watermelon Man's F7#9(Ab13): the shell a pianist voices for Ab13 (root, seventh, third,
    # thirteenth: Levine's 3-7-13) is named Ab13, its fifth and ninth left out; with its fifth
    # and no ninth the same tones are the charts' Ab7add13 (F7add13 in the corpora)
    assert "Ab13" in {symbol for symbol, _ in keyed_tokens(corpora)}
    shell = identify({"notes": ["Ab2", "Gb3", "C4", "F4"]})["readings"]
    assert (shell[0]["symbol"], shell[0]["omitted"]) == ("Ab13", ["Eb", "Bb"])
    assert [r["symbol"] for r in shell[1:3]] == ["Ab7add13", "Fmaddb9/Ab"]
    assert first({"notes": ["Ab2", "Gb3", "C4", "F4"], "key": "Db"})["numeral"] == "V13"
    # typed as letters, no bass sounded: still Ab13, not F minor with an added flat ninth
    assert [r["symbol"] for r in identify({"notes": ["Ab", "C", "Gb", "F"]})["readings"][:3]] \
        == ["Ab13", "Ab7add13", "Fmaddb9"]
    # over F the same tones are F's: a minor triad with its flat ninth (Phrygian)
    assert first({"notes": ["F2", "Ab3", "C4", "Gb4"]})["symbol"] == "Fmaddb9"
    full = first({"notes": ["Ab2", "C3", "Eb3", "Gb3", "F4"]})
    assert (full["symbol"], full["omitted"]) == ("Ab7add13", [])


def test_goodbye_pork_pie_hat_c13_sharp11_voiced_b7_3_sharp11_13(corpora: Path) -> None:
    # Goodbye Pork Pie Hat's C13#11 as a pianist voices the Lydian dominant (Bb E F# A over
    # C, its fifth and ninth left out) is C13#11, not an A minor sixth with a flat ninth over C
    assert "C13#11" in {symbol for symbol, _ in keyed_tokens(corpora)}
    reading = first({"notes": ["C2", "Bb2", "E3", "F#3", "A3"]})
    assert (reading["symbol"], reading["omitted"]) == ("C13#11", ["G", "D"])
    # the Phrygian minor of the charts (Cm7b9, every tone sounding) keeps its name
    assert first({"notes": resolve({"chord": "Cm7b9"})["notes"]})["symbol"] == "Cm7b9"


def test_my_romance_e7_sharp9_flat13_written_with_a_g_reads_e7_sharp9_flat13(
        corpora: Path) -> None:
    # My Romance's E7#9b13 (to Am9, in C) as a pianist writes it: E G# D G C, the sharp ninth
    # on the minor third's letter (G, not F##) as lead sheets and voicing books write it; it
    # was a D sus chord over E, the G spelled otherwise costing the dominant
    assert ("E7#9b13", "C") in set(keyed_tokens(corpora))
    readings = identify({"notes": ["E2", "G#3", "D4", "G4", "C5"], "key": "C"})["readings"]
    assert (readings[0]["symbol"], readings[0]["numeral"]) == ("E7#9b13", "V7#9b13/vi")
    assert readings[0]["explains"] == ["E", "G#", "D", "G", "C"]   # as written
    # Watermelon Man's F7#9 with its b13 (F Eb A Ab Db), and a C7alt's left hand over C
    assert first({"notes": ["F2", "Eb3", "A3", "Ab3", "Db4"]})["symbol"] == "F7#9b13"
    assert first({"notes": ["C3", "E4", "Bb4", "Eb5", "Ab5"]})["symbol"] == "C7#9b13"
    # without its root sounding the minor third's letter is no sharp ninth: Gb Eb E Bb is
    # Gb13 (3-7-13 over its root), not a rootless C7b5#9 over Gb
    assert first({"notes": ["Gb2", "Eb3", "E3", "Bb3"]})["symbol"] == "Gb13"


def test_a_diminished_seventh_is_named_from_its_spelling() -> None:
    reading = first({"notes": ["B", "D", "F", "Ab"], "bass": "D"})
    assert (reading["symbol"], reading["inversion"]) == ("Bdim7/D", 1)
    assert first({"notes": ["D", "F", "Ab", "Cb"]})["symbol"] == "Ddim7"


def test_omitted_fifth_and_a_bass_outside_the_chord() -> None:
    c7 = first({"pcs": [0, 4, 10]})
    assert (c7["symbol"], c7["omitted"], c7["explains"]) == ("C7", ["G"], ["C", "E", "Bb"])
    slash = first({"notes": [62, 72, 76, 79]})
    assert (slash["symbol"], slash["inversion"]) == ("C/D", None)


def test_numeral_and_function_are_analyzes() -> None:
    reading = first({"notes": ["D3", "F#3", "A3", "C4"], "key": "C"})
    expected = analyze({"chord": "D7", "key": "C"})
    assert reading["symbol"] == "D7"
    assert (reading["numeral"], reading["function"]) == (expected["numeral"],
                                                         expected["function"])


def test_a_set_no_chord_names_gets_the_nearest_readings() -> None:
    answer = identify({"pcs": [0, 1, 2]})
    assert answer["readings"] and all(r["added"] or r["omitted"] for r in answer["readings"])
    assert answer["readings"][0]["symbol"] == "Csus2"
    assert answer["readings"][0]["added"] == ["Db"]


def test_midi_numbers_and_names_read_alike() -> None:
    by_name = identify({"notes": ["C4", "E4", "G4", "Bb4"]})["readings"][0]
    by_midi = identify({"notes": [60, 64, 67, 70]})["readings"][0]
    assert by_name["symbol"] == by_midi["symbol"] == "C7"


def test_answers_are_fresh_copies() -> None:
    one = identify({"notes": ["C", "E", "G"]})
    one["readings"][0]["explains"].append("X")
    assert identify({"notes": ["C", "E", "G"]})["readings"][0]["explains"] == ["C", "E", "G"]


@pytest.mark.parametrize(("request_", "field", "named"), [
    ({"notes": ["C4", "H4"]}, "notes", "'H4'"),
    ({"notes": ["C", "E", "Gx7y"]}, "notes", "'Gx7y'"),
    ({"notes": [60, 128]}, "notes", "128"),
    ({"notes": []}, "notes", "at least one"),
    ({}, "notes", "required"),
    ({"notes": ["C"], "pcs": [0]}, "pcs", "not both"),
    ({"pcs": [12]}, "pcs", "12"),
    ({"notes": ["C"], "bass": "Q"}, "bass", "'Q'"),
    ({"notes": "C E G"}, "notes", "list"),
    ({"notes": ["C"], "chord": "C"}, "chord", "unknown field"),
])
def test_bad_input_is_invalid_request_naming_the_note(request_: dict[str, Any], field: str,
                                                      named: str) -> None:
    with pytest.raises(InvalidRequest) as info:
        identify(request_)
    assert info.value.field == field and named in info.value.message


def test_a_mode_is_an_invalid_key() -> None:
    with pytest.raises(InvalidKey):
        identify({"notes": ["C", "E", "G"], "key": "C lydian"})


def test_every_reading_of_the_table_names_its_set() -> None:
    """Each exact reading adds no tone, and leaves out only tones a player leaves out."""
    for mask in range(4096):
        for i in range(int(EXACT_COUNT[mask])):
            entry, root = VOCABULARY[int(SET_ENTRY[mask, i])], int(SET_ROOT[mask, i])
            chord = transpose_mask(entry.mask, root)
            assert mask & ~chord == 0
            may = {semis for semis, _ in omittable(entry)}
            left_out = chord & ~mask
            assert all((pc - root) % 12 in may for pc in range(12) if left_out >> pc & 1)


def test_a_rootless_reading_is_never_an_added_tone_chord() -> None:
    """Bill Evans' rootless voicings are sixth, seventh, ninth and thirteenth chords': no
    reading of any set leaves out the root of an added-tone chord (E G B F is not a rootless
    Cmaj7add11)."""
    for mask in range(4096):
        for i in range(int(EXACT_COUNT[mask])):
            entry, root = VOCABULARY[int(SET_ENTRY[mask, i])], int(SET_ROOT[mask, i])
            if not mask >> root & 1:
                assert "add" not in entry.suffix, (mask, root, entry.suffix)
    assert not any(r["rootless"] and "add" in r["quality"]
                   for r in identify({"notes": ["E2", "G3", "B3", "F4"]})["readings"])


def test_every_jazz_corpus_symbol_reads_back(corpora: Path) -> None:
    """identify(resolve(s)) answers s, or a symbol with the same notes and bass, first."""
    def notes_and_bass(symbol: str) -> tuple[frozenset[int], int]:
        chord = parse(symbol)
        bass = chord.root_pc if chord.bass is None else chord.bass_pc
        assert bass is not None
        return frozenset(chord.pcs) | {bass}, bass

    distinct = sorted({symbol for symbol, _ in keyed_tokens(corpora)})
    assert len(distinct) > 1800
    wrong = []
    for symbol in distinct:
        reading = first({"notes": resolve({"chord": symbol})["notes"]})
        if reading["omitted"] or reading["added"] or \
                notes_and_bass(reading["symbol"]) != notes_and_bass(symbol):
            wrong.append((symbol, reading["symbol"]))
    assert wrong == []
