"""reharmonize: the contract's shape and errors, and musically checked examples per technique.

Each expected progression below was worked out by hand from the textbook form of the
technique (Levine, The Jazz Theory Book; Coltrane's "Countdown"), in several keys, major and
minor, with cases where the technique must stay silent.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from engine import reharmonize
from engine.errors import InvalidChord, InvalidKey, InvalidRequest
from engine.reharm.rules import TECHNIQUES


def alternative(progression: str, key: str, technique: str) -> dict[str, Any] | None:
    """The alternative of ``technique`` for ``progression`` in ``key``, None if it stays silent."""
    result = reharmonize({"progression": progression, "key": key, "techniques": [technique]})
    assert [a["technique"] for a in result["alternatives"]] in ([], [technique])
    return result["alternatives"][0] if result["alternatives"] else None


def changed(progression: str, key: str, technique: str) -> str | None:
    alt = alternative(progression, key, technique)
    return None if alt is None else " ".join(alt["progression"])


# --- the contract ---------------------------------------------------------------------------

def test_ii_v_i_in_c_first_alternative_is_the_tritone_substitute() -> None:
    result = reharmonize({"progression": "Dm7 G7 Cmaj7", "key": "C"})
    assert list(result) == ["key", "progression", "alternatives"]
    assert result["key"] == "C"
    assert result["progression"] == ["Dm7", "G7", "Cmaj7"]
    first = result["alternatives"][0]
    assert list(first) == ["technique", "progression", "changes", "explanation", "bars"]
    assert first["technique"] == "tritone_sub"
    assert first["progression"] == ["Dm7", "Db7", "Cmaj7"]
    assert first["changes"] == [{"index": 1, "from": "G7", "to": ["Db7"]}]
    assert "G7" in first["explanation"] and "Db7" in first["explanation"]
    assert "B–F" in first["explanation"]


def test_alternatives_follow_the_fixed_order_and_appear_once() -> None:
    result = reharmonize({"progression": "Cmaj7 Dm7 Em7 Fmaj7 G7 Cmaj7 Am7 Dm7 G7 Cmaj7"})
    names = [a["technique"] for a in result["alternatives"]]
    assert names == [t for t in TECHNIQUES if t in names]
    assert len(names) == len(set(names)) == len(TECHNIQUES)


def test_techniques_restrict_but_do_not_reorder() -> None:
    result = reharmonize({"progression": "Dm7 G7 Cmaj7",
                          "techniques": ["backdoor", "tritone_sub"]})
    assert [a["technique"] for a in result["alternatives"]] == ["tritone_sub", "backdoor"]
    assert reharmonize({"progression": "Dm7 G7 Cmaj7", "techniques": []})["alternatives"] == []


def test_key_defaults_to_c_and_key_context_is_an_alias() -> None:
    assert reharmonize({"progression": "Dm7 G7 Cmaj7"})["key"] == "C"
    by_alias = reharmonize({"progression": "Gm7 C7 Fmaj7", "keyContext": "F"})
    assert by_alias == reharmonize({"progression": "Gm7 C7 Fmaj7", "key": "F"})
    assert by_alias["key"] == "F"


def test_bar_lines_and_lists_give_the_same_chords_on_their_own_bars() -> None:
    as_text = reharmonize({"progression": "| Dm7 G7 | Cmaj7 |", "key": "C"})
    as_list = reharmonize({"progression": ["Dm7", "G7", "Cmaj7"], "key": "C"})
    assert as_text["progression"] == as_list["progression"]
    for text, listed in zip(as_text["alternatives"], as_list["alternatives"], strict=True):
        assert {k: v for k, v in text.items() if k != "bars"} == \
            {k: v for k, v in listed.items() if k != "bars"}
    # the list gives each chord a bar; the bar lines put the ii-V in one bar
    assert as_list["alternatives"][0]["bars"] == [
        [{"symbol": "Dm7", "beat": 1, "beats": 4}], [{"symbol": "Db7", "beat": 1, "beats": 4}],
        [{"symbol": "Cmaj7", "beat": 1, "beats": 4}]]
    assert as_text["alternatives"][0]["bars"] == [
        [{"symbol": "Dm7", "beat": 1, "beats": 2}, {"symbol": "Db7", "beat": 3, "beats": 2}],
        [{"symbol": "Cmaj7", "beat": 1, "beats": 4}]]


def test_list_items_are_echoed_trimmed() -> None:
    result = reharmonize({"progression": ["  Dm7", "G7 ", "Cmaj7"], "key": "C",
                          "techniques": ["tritone_sub"]})
    assert result["progression"] == ["Dm7", "G7", "Cmaj7"]
    alt = result["alternatives"][0]
    assert alt["progression"] == ["Dm7", "Db7", "Cmaj7"]
    assert alt["changes"] == [{"index": 1, "from": "G7", "to": ["Db7"]}]
    assert "replaces G7," in alt["explanation"]
    assert result == reharmonize({"progression": "Dm7 G7 Cmaj7", "key": "C",
                                  "techniques": ["tritone_sub"]})


def test_no_chord_is_kept_and_never_changed() -> None:
    result = reharmonize({"progression": "Dm7 G7 N.C. Cmaj7", "key": "C"})
    assert result["progression"] == ["Dm7", "G7", "N.C.", "Cmaj7"]
    for alt in result["alternatives"]:
        assert all(c["index"] != 2 for c in alt["changes"])
    # G7 is followed by NC, not by its resolution: no tritone substitute.
    assert "tritone_sub" not in [a["technique"] for a in result["alternatives"]]


def test_same_request_same_bytes() -> None:
    request = {"progression": "Cmaj7 Am7 Dm7 G7 Em7 A7 Dm7 G7", "key": "C"}
    assert orjson.dumps(reharmonize(request)) == orjson.dumps(reharmonize(dict(request)))


def test_a_bad_chord_is_invalid_chord_with_symbol_and_index() -> None:
    with pytest.raises(InvalidChord) as err:
        reharmonize({"progression": "Dm7 Gzz7 Cmaj7"})
    body = err.value.to_dict()["error"]
    assert body["code"] == "invalid_chord"
    assert body["symbol"] == "Gzz7"
    assert body["index"] == 1


@pytest.mark.parametrize("progression", ["", "   ", " | | ", [], ["C"] * 257])
def test_empty_or_too_long_is_invalid_request(progression: object) -> None:
    with pytest.raises(InvalidRequest) as err:
        reharmonize({"progression": progression})
    assert err.value.field == "progression"


def test_missing_progression_or_not_an_object_is_invalid_request() -> None:
    with pytest.raises(InvalidRequest) as err:
        reharmonize({"key": "C"})
    assert err.value.field == "progression"
    with pytest.raises(InvalidRequest):
        reharmonize(["Dm7", "G7"])  # type: ignore[arg-type]


def test_256_chords_are_accepted() -> None:
    result = reharmonize({"progression": ["Dm7", "G7", "Cmaj7", "Cmaj7"] * 64})
    assert len(result["progression"]) == 256


@pytest.mark.parametrize("techniques", [["tritone"], ["tritone_sub", 3], "tritone_sub",
                                        [["tritone_sub"]], {"tritone_sub": True}])
def test_unknown_technique_is_invalid_request_naming_the_field(techniques: object) -> None:
    with pytest.raises(InvalidRequest) as err:
        reharmonize({"progression": "Dm7 G7 Cmaj7", "techniques": techniques})
    assert err.value.field == "techniques"


def test_bad_key_is_invalid_key() -> None:
    with pytest.raises(InvalidKey):
        reharmonize({"progression": "Dm7 G7 Cmaj7", "key": "H"})


# --- tritone_sub ----------------------------------------------------------------------------

@pytest.mark.parametrize(("progression", "key", "expected"), [
    ("Gm7 C7 Fmaj7", "F", "Gm7 Gb7 Fmaj7"),             # Gb7, not F#7: bII of F
    ("Fm7 Bb7 Ebmaj7", "Eb", "Fm7 Fb7 Ebmaj7"),         # bII7 of Eb, as analyze names it
    ("Bm7b5 E7b9 Am", "Am", "Bm7b5 Bb7 Am"),            # minor key
    ("Em7b5 A7 Dm6", "Dm", "Em7b5 Eb7 Dm6"),
    ("A7 D7 G7 Cmaj7", "C", "Eb7 D7 Db7 Cmaj7"),        # every other dominant: a chromatic line
    ("Dm7 G7alt Cmaj7", "C", "Dm7 Db7#11 Cmaj7"),       # altered G = lydian dominant Db
    ("Cmaj7 Am7 Dm7 G7", "C", "Cmaj7 Am7 Dm7 Db7"),     # turnaround back to the top
    ("Abm7 Db7 Gbmaj7", "Gb", "Abm7 G7 Gbmaj7"),        # G7, not Abb7
])
def test_tritone_sub(progression: str, key: str, expected: str) -> None:
    assert changed(progression, key, "tritone_sub") == expected


@pytest.mark.parametrize(("progression", "key"), [
    ("Cmaj7 Fmaj7 Em7 Am7", "C"),   # no dominant at all
    ("Cmaj7 G7 Am7", "C"),          # deceptive: G7 does not resolve down a fifth
    ("Dm7 G7/B Cmaj7", "C"),        # the user's bass line is kept
    ("Ab7 D7 Gmaj7", "G"),          # Ab7 Ab7 Gmaj7 would only repeat the dominant before it
])
def test_tritone_sub_stays_silent(progression: str, key: str) -> None:
    assert alternative(progression, key, "tritone_sub") is None


# --- ii_v_insertion -------------------------------------------------------------------------

@pytest.mark.parametrize(("progression", "key", "expected"), [
    ("Cmaj7 Am7 Dm7 G7", "C", "Cmaj7 Bm7b5 E7b9 Am7 Dm7 G7"),
    ("Bbmaj7 Gm7", "Bb", "Bbmaj7 Am7b5 D7b9 Gm7"),
    ("Gm7 Ebmaj7", "Gm", "Gm7 Fm7 Bb7 Ebmaj7"),          # major target in a minor key
    ("Am7 Dm7 E7 Am7", "Am", "Am7 Dm7 F#m7b5 B7b9 E7 Am7"),  # C# would clash: minor ii-V
    ("Cmaj7 Fmaj7 Cmaj7", "C", "Cmaj7 Fmaj7 Dm7 G7 Cmaj7"),
])
def test_ii_v_insertion(progression: str, key: str, expected: str) -> None:
    assert changed(progression, key, "ii_v_insertion") == expected


@pytest.mark.parametrize(("progression", "key"), [
    ("Dm7 G7 Cmaj7", "C"),      # every chord is already approached from a fifth above
    ("Cmaj7 Bm7b5", "C"),       # a diminished chord is no target
    ("Em7 A7 Dm7", "Dm"),
])
def test_ii_v_insertion_stays_silent(progression: str, key: str) -> None:
    assert alternative(progression, key, "ii_v_insertion") is None


# --- modal_interchange ----------------------------------------------------------------------

@pytest.mark.parametrize(("progression", "key", "expected"), [
    ("Cmaj7 Fmaj7 G7 Cmaj7", "C", "Cmaj7 Fm7 G7 Cmaj7"),
    ("Cmaj7 Am7 Dm7 G7", "C", "Cmaj7 Abmaj7 Dm7b5 G7"),
    ("D G A7 D", "D", "D Gm A7 D"),
    ("Am Dm E7 Am", "Am", "Am D7 E7 A"),                 # dorian IV7, picardy third
    ("Em C Am B7 Em", "Em", "Em C A7 B7 E"),
    ("Gbmaj7 Ebm7 Abm7 Db7", "Gb", "Gbmaj7 Dmaj7 Abm7b5 Db7"),  # bVI is D, not Ebb
    # A kept root keeps the user's spelling, even against the key's (Em7, not Fbm7, in Cb).
    ("Cbmaj7 Emaj7 Gb7 Cbmaj7", "Cb", "Cbmaj7 Em7 Gb7 Cbmaj7"),
    ("Bbm7 Ebm7 Ab7 Dbmaj7", "C#", "Amaj7 Ebm7b5 Ab7 Dbmaj7"),  # not D#m7b5 beside Ab7
])
def test_modal_interchange(progression: str, key: str, expected: str) -> None:
    assert changed(progression, key, "modal_interchange") == expected


@pytest.mark.parametrize(("progression", "key"), [
    ("Cmaj7 G7 Cmaj7", "C"),        # tonic and dominant stay
    ("Fm7 Bb7 Cmaj7", "C"),         # Fm7 is already borrowed
    ("Am Em Am7 E7", "Am"),         # the minor tonic changes only as the last chord
    ("Cmaj7 Bm7b5 E7 Am7", "C"),    # E7 asks for Am7: the resolution of V7/vi stays
    ("Cmaj7 A7 Dm7", "C"),          # the same for V7/ii
    ("Em7 D7 B7", "G"),             # ... and for the turnaround back to the top, B7 -> Em7
])
def test_modal_interchange_stays_silent(progression: str, key: str) -> None:
    assert alternative(progression, key, "modal_interchange") is None


# --- secondary_dominants --------------------------------------------------------------------

@pytest.mark.parametrize(("progression", "key", "expected"), [
    ("Cmaj7 Am7 Dm7 G7", "C", "Cmaj7 A7 D7 G7"),                       # I VI7 II7 V7
    ("Cmaj7 Dm7 Em7 Fmaj7 G7 Cmaj7", "C", "Cmaj7 B7 Em7 D7 G7 Cmaj7"),
    ("Cmaj7 Fmaj7 G7 Cmaj7", "C", "Cmaj7 D7 G7 Cmaj7"),
    ("Am7 Dm7 E7 Am7", "Am", "Am7 B7 E7 Am7"),                         # V7 of V in minor
    ("Bbm7 Ebm7 F7 Bbm7", "Bbm", "Bbm7 C7 F7 Bbm7"),
    ("F Bb C7 F", "F", "F G7 C7 F"),
    ("Em7b5 A7 Dm", "Dm", "E7 A7 Dm"),                                 # II7 V7 i
])
def test_secondary_dominants(progression: str, key: str, expected: str) -> None:
    assert changed(progression, key, "secondary_dominants") == expected


@pytest.mark.parametrize(("progression", "key"), [
    ("G7 Cmaj7", "C"),          # a V7 into I is the primary dominant, not a secondary one
    ("Cmaj7 D7 G7", "C"),       # D7 is already the V7 of G7, and D7 is no diatonic target
    ("Dm A7 Dm", "Dm"),         # the tonic before V stays the tonic
])
def test_secondary_dominants_stay_silent(progression: str, key: str) -> None:
    assert alternative(progression, key, "secondary_dominants") is None


def test_tonic_becomes_its_own_dominant_seventh_before_iv() -> None:
    assert changed("Cmaj7 Fmaj7", "C", "secondary_dominants") == "C7 Fmaj7"


# --- dominant_chain -------------------------------------------------------------------------

@pytest.mark.parametrize(("progression", "key", "expected"), [
    ("Dm7 G7 Cmaj7", "C", "A7 D7 G7 Cmaj7"),
    ("Am7 D7 G7 Cmaj7", "C", "E7 A7 D7 G7 Cmaj7"),          # Sweet Georgia Brown
    ("Fmaj7 Bbmaj7 C7 Fmaj7", "F", "Fmaj7 D7 G7 C7 Fmaj7"),
    ("Em7b5 A7 Dm", "Dm", "B7 E7 A7 Dm"),
])
def test_dominant_chain(progression: str, key: str, expected: str) -> None:
    alt = alternative(progression, key, "dominant_chain")
    assert alt is not None and " ".join(alt["progression"]) == expected
    assert len(alt["changes"]) == 1 and len(alt["changes"][0]["to"]) == 2


@pytest.mark.parametrize(("progression", "key"), [
    ("Cmaj7 G7 Cmaj7", "C"),    # the tonic before V is kept
    ("G7 Cmaj7", "C"),          # nothing before the dominant
    ("Dm7 G7 Am7", "C"),        # G7 does not resolve down a fifth
    ("Gm7 D7", "F"),            # D7 turns back to Gm7, which must stay to be resolved to
    ("D7 Dm7 G7 Cmaj7", "C"),   # D7 is already there: the chain would repeat it
    # minor keys
    ("Dm A7 Dm", "Dm"),         # the tonic before V is kept
    ("Dm6 A7 Dm6", "Dm"),       # ... in its melodic-minor colour too
    ("A7 Dm A7 Dm", "Dm"),
    ("Em7b5 A7 Bbmaj7", "Dm"),  # deceptive: A7 does not resolve down a fifth
    ("Dm B7 E7 A7 Dm", "Dm"),   # the chain is already written, from the tonic on
    ("Am7 E7 Am7", "Am"),
])
def test_dominant_chain_stays_silent(progression: str, key: str) -> None:
    assert alternative(progression, key, "dominant_chain") is None


@pytest.mark.parametrize(("progression", "key", "offered"), [
    # One of the chain's dominants already written before the head: the chain would only turn
    # the head into its same-root V7, which secondary_dominants writes (Cmaj7 A7 D7 G7 Cmaj7).
    ("Cmaj7 A7 Dm7 G7 Cmaj7", "C", False),
    ("E7 A7 Dm7 G7 Cmaj7", "C", False),
    # ... while a chain that adds its two dominants before the head is offered
    ("Bm7b5 E7 Am7 D7 Gmaj7", "G", True),
    ("Cmaj7 Em7 A7 Dm7 G7 Cmaj7", "C", True),
])
def test_dominant_chain_is_never_secondary_dominants_again(progression: str, key: str,
                                                           offered: bool) -> None:
    chain = alternative(progression, key, "dominant_chain")
    assert (chain is not None) == offered
    if chain is not None:
        assert chain["progression"] != \
            alternative(progression, key, "secondary_dominants")["progression"]
        assert all(len(c["to"]) >= 2 for c in chain["changes"])


@pytest.mark.parametrize(("progression", "key", "expected", "index", "old", "new", "chain",
                          "target"), [
    # A7 Dm7 G7 Cmaj7 has the chain into Cmaj7 written but for Dm7's D7: not a chain of its
    # own; the chain into Dm7 replaces Em7 and falls through the A7 already there.
    ("Cmaj7 Em7 A7 Dm7 G7 Cmaj7", "C", "Cmaj7 B7 E7 A7 Dm7 G7 Cmaj7", 1, "Em7", ["B7", "E7"],
     "B7 E7 A7", "Dm7"),
    ("Bm7b5 E7 Am7 D7 Gmaj7", "G", "F#7 B7 E7 Am7 D7 Gmaj7", 0, "Bm7b5", ["F#7", "B7"],
     "F#7 B7 E7", "Am7"),
])
def test_dominant_chain_never_repeats_a_dominant(progression: str, key: str, expected: str,
                                                 index: int, old: str, new: list[str],
                                                 chain: str, target: str) -> None:
    alt = alternative(progression, key, "dominant_chain")
    assert alt is not None and " ".join(alt["progression"]) == expected
    assert alt["changes"] == [{"index": index, "from": old, "to": new}]
    assert alt["explanation"] == (f"{old} becomes {' '.join(new)}, so the dominants {chain} "
                                  f"fall by fifths into {target}.")


@pytest.mark.parametrize(("progression", "key", "technique", "expected"), [
    # The melodic-minor tonics m6 and m(maj7) are targets like the plain minor tonic.
    ("Em7b5 A7 Dm6", "Dm", "dominant_chain", "B7 E7 A7 Dm6"),
    ("Em7b5 A7 Dm(maj7)", "Dm", "dominant_chain", "B7 E7 A7 Dm(maj7)"),
    ("Am6 Dm7 E7 Am6", "Am", "dominant_chain", "Am6 F#7 B7 E7 Am6"),
    ("Dm6 Gm7 Dm6", "Dm", "ii_v_insertion", "Dm6 Gm7 Em7b5 A7b9 Dm6"),
    ("C Dm6", "Dm", "diminished_passing", "C C#dim7 Dm6"),
])
def test_minor_tonic_colours_are_targets(progression: str, key: str, technique: str,
                                         expected: str) -> None:
    assert changed(progression, key, technique) == expected


def test_minor_sixth_tonic_gets_what_the_minor_triad_gets() -> None:
    request = {"progression": "Em7b5 A7 Dm6", "key": "Dm",
               "techniques": ["dominant_chain", "ii_v_insertion", "diminished_passing"]}
    plain = reharmonize({**request, "progression": "Em7b5 A7 Dm"})
    coloured = reharmonize(request)
    assert [a["technique"] for a in coloured["alternatives"]] \
        == [a["technique"] for a in plain["alternatives"]] == ["dominant_chain"]


# --- coltrane_changes -----------------------------------------------------------------------

@pytest.mark.parametrize(("progression", "key", "expected"), [
    ("Dm7 G7 Cmaj7", "C", "Dm7 Eb7 Abmaj7 B7 Emaj7 G7 Cmaj7"),
    ("Fm7 Bb7 Ebmaj7", "Eb", "Fm7 F#7 Bmaj7 D7 Gmaj7 Bb7 Ebmaj7"),   # Countdown's last bars
    ("Gm7 C7 Fmaj7", "F", "Gm7 Ab7 Dbmaj7 E7 Amaj7 C7 Fmaj7"),
    ("Dm7 G7 Cmaj7", "Am", "Dm7 Eb7 Abmaj7 B7 Emaj7 G7 Cmaj7"),      # into the relative major
])
def test_coltrane_changes(progression: str, key: str, expected: str) -> None:
    alt = alternative(progression, key, "coltrane_changes")
    assert alt is not None and " ".join(alt["progression"]) == expected
    assert [c["index"] for c in alt["changes"]] == [1]


@pytest.mark.parametrize(("progression", "key"), [
    ("Bm7b5 E7 Am7", "Am"),     # the cycle lands on major chords only
    ("G7 Cmaj7", "C"),          # no ii
    ("Dm7 G7 Cm7", "Cm"),
])
def test_coltrane_changes_stay_silent(progression: str, key: str) -> None:
    assert alternative(progression, key, "coltrane_changes") is None


# --- backdoor -------------------------------------------------------------------------------

@pytest.mark.parametrize(("progression", "key", "expected"), [
    ("Dm7 G7 Cmaj7", "C", "Fm7 Bb7 Cmaj7"),
    ("Cmaj7 G7 Cmaj7", "C", "Cmaj7 Bb7 Cmaj7"),
    ("Am7 D7 Gmaj7", "G", "Cm7 F7 Gmaj7"),
    ("Bb7 Ebmaj7", "Eb", "Db7 Ebmaj7"),
    ("Dm7 G7 Cmaj7", "Am", "Fm7 Bb7 Cmaj7"),
    # One family for both chords: Em7 A7, not Fbm7 A7 (nor the unreadable Fbm7 Bbb7).
    ("Dbm7 Gb7 Cbmaj7", "Cb", "Em7 A7 Cbmaj7"),
    # iv7 and bVII7 of Gb on their own letters, as analyze names them (not Bm7 E7).
    ("Abm7 Db7 Gbmaj7", "Gb", "Cbm7 Fb7 Gbmaj7"),
    ("Gb7 Cbmaj7", "Cb", "A7 Cbmaj7"),
])
def test_backdoor(progression: str, key: str, expected: str) -> None:
    assert changed(progression, key, "backdoor") == expected


@pytest.mark.parametrize(("progression", "key"), [
    ("Bm7b5 E7 Am", "Am"),      # the backdoor resolves to a major chord
    ("Dm7 G7 Em7", "C"),
    ("Cm7 F7 Bbm7", "Bbm"),
])
def test_backdoor_stays_silent(progression: str, key: str) -> None:
    assert alternative(progression, key, "backdoor") is None


# --- diminished_passing ---------------------------------------------------------------------

@pytest.mark.parametrize(("progression", "key", "expected"), [
    ("Cmaj7 Dm7", "C", "Cmaj7 C#dim7 Dm7"),
    ("Fmaj7 Gm7", "F", "Fmaj7 F#dim7 Gm7"),
    ("Em7 Dm7 G7 Cmaj7", "C", "Em7 Ebdim7 Dm7 G7 Cmaj7"),       # descending
    ("C Dm E7 Am", "Am", "C C#dim7 Dm D#dim7 E7 Am"),
    ("Ebmaj7 Fm7", "Eb", "Ebmaj7 Edim7 Fm7"),
    # The line is the sounding bass's: E Eb D under C/E Dm7, C C# D under Cmaj7 G/D.
    ("C/E Dm7 G7 Cmaj7", "C", "C/E Ebdim7 Dm7 G7 Cmaj7"),
    ("Bb/D Cm7", "Bb", "Bb/D Dbdim7 Cm7"),
    ("Cmaj7 G/D", "C", "Cmaj7 C#dim7 G/D"),
])
def test_diminished_passing(progression: str, key: str, expected: str) -> None:
    assert changed(progression, key, "diminished_passing") == expected


@pytest.mark.parametrize(("progression", "key"), [
    ("Dm7 G7 Cmaj7", "C"),
    ("Cmaj7 C#dim7 Dm7", "C"),  # already there
    ("Am Bm7b5", "Am"),          # a diminished chord is no target
    ("C/E F", "C"),              # the bass E F is already a half step
])
def test_diminished_passing_stays_silent(progression: str, key: str) -> None:
    assert alternative(progression, key, "diminished_passing") is None


# --- spelling of new roots -------------------------------------------------------------------

@pytest.mark.parametrize(("progression", "key", "technique", "expected"), [
    # Not F##m7b5 B#7b9: a pair is spelled in one family, from E#'s enharmonic F.
    ("C#maj7 E#m7 A#m7", "C#", "ii_v_insertion", "C#maj7 Gm7b5 C7b9 E#m7 A#m7"),
    ("F#maj7 G#m7 E#7 A#m7", "F#", "dominant_chain", "F#maj7 G7 C7 E#7 A#m7"),  # not F##7 B#7
    ("C#maj7 D#m7 E#m7", "C#", "secondary_dominants", "C#maj7 B#7 E#m7"),  # B# is the key's
    # Coltrane's centres spelled as a group on the flat side, each dominant from its centre:
    # not F##7 B#maj7 (G# has F## in its scale, but no new root takes a double accidental)
    ("A#m7 D#7 G#maj7", "G#", "coltrane_changes", "A#m7 B7 Emaj7 G7 Cmaj7 D#7 G#maj7"),
    # Giant Steps in B: Bb7 Ebmaj7 as Coltrane wrote it, not A#7 D#maj7
    ("C#m7 F#7 Bmaj7", "B", "coltrane_changes", "C#m7 D7 Gmaj7 Bb7 Ebmaj7 F#7 Bmaj7"),
])
def test_new_roots_are_readable(progression: str, key: str, technique: str,
                                expected: str) -> None:
    assert changed(progression, key, technique) == expected


# --- explanations ---------------------------------------------------------------------------

@pytest.mark.parametrize(("technique", "words"), [
    ("tritone_sub", ["Db7", "G7", "tritone B–F", "half step", "Cmaj7"]),
    ("modal_interchange", ["Dm7", "Dm7b5", "C minor"]),
    ("secondary_dominants", ["Dm7", "D7", "V7 of G7"]),
    ("dominant_chain", ["A7 D7 G7", "fifths", "Cmaj7"]),
    ("coltrane_changes", ["Eb7 Abmaj7 B7 Emaj7 G7", "major thirds", "Ab, E"]),
    ("backdoor", ["Fm7 Bb7", "backdoor", "Cmaj7"]),
])
def test_explanation_names_the_chords_and_the_reason(technique: str, words: list[str]) -> None:
    alt = alternative("Dm7 G7 Cmaj7", "C", technique)
    assert alt is not None
    sentence = alt["explanation"]
    assert all(w in sentence for w in words), sentence
    assert sentence.endswith(".") and sentence.count(". ") == 0


def test_explanations_of_insertions_name_the_new_chords() -> None:
    ii_v = alternative("Cmaj7 Am7", "C", "ii_v_insertion")
    assert ii_v is not None
    assert ii_v["explanation"] == "Am7 is approached by its own ii-V, Bm7b5 E7b9."
    dim = alternative("Cmaj7 Dm7", "C", "diminished_passing")
    assert dim is not None
    assert dim["explanation"] == "C#dim7 passes chromatically from Cmaj7 up to Dm7."


def test_a_repeated_reason_is_said_once() -> None:
    alt = alternative("Dm7 G7 Cmaj7 Dm7 G7 Cmaj7", "C", "tritone_sub")
    assert alt is not None and len(alt["changes"]) == 2
    assert alt["explanation"].count("Db7 replaces G7") == 1


def test_an_overlong_key_is_refused_like_analyze_refuses_it() -> None:
    with pytest.raises(InvalidRequest) as err:
        reharmonize({"progression": "Dm7 G7 Cmaj7", "key": "C" * 40})
    assert err.value.field == "key"


def test_dominant_chain_never_replaces_the_goal_of_a_written_dominant() -> None:
    # All the Things You Are's bridge arrives on Emaj7 through B7: a chain that turned the
    # Emaj7 into D7 G7 (into C7#5 Fm7) left the B7 resolving nowhere.
    bridge = "Am7 D7 Gmaj7 Gmaj7 F#m7b5 B7 Emaj7 C7#5 Fm7 Bbm7 Eb7 Abmaj7"
    result = reharmonize({"progression": bridge, "key": "Ab", "techniques": ["dominant_chain"]})
    changed = {c["index"] for a in result["alternatives"] for c in a["changes"]}
    assert 6 not in changed


# --- related_ii -----------------------------------------------------------------------------

@pytest.mark.parametrize(("progression", "key", "expected"), [
    ("D7 | G7 | Cmaj7", "C", "Am7 D7 Dm7 G7 Cmaj7"),       # the first reharmonization taught
    ("Cmaj7 | E7 | Am7", "C", "Cmaj7 Bm7b5 E7 Am7"),        # into a minor chord: iiø7
    ("Cmaj7 | E7 | E7 | Am7", "C", "Cmaj7 Bm7b5 E7 E7 Am7"),  # held: looks past the bars
    ("Dm7 G7 | Cmaj7", "C", None),                          # G7 already has its ii
    ("C7 | F7 | C7 | C7", "C", "C7 Cm7 F7 C7 C7"),          # the blues's I7 takes none
    ("Dm7 Db7 | Cmaj7", "C", None),                         # a tritone substitute takes none
])
def test_related_ii(progression: str, key: str, expected: str | None) -> None:
    assert changed(progression, key, "related_ii") == expected


def test_related_ii_shares_its_dominants_bar() -> None:
    alt = alternative("D7 | D7 | G7 | G7", "C", "related_ii")
    assert alt is not None
    assert alt["changes"] == [{"index": 0, "from": "D7", "to": ["Am7", "D7"]},
                              {"index": 2, "from": "G7", "to": ["Dm7", "G7"]}]
    assert [[(c["symbol"], c["beat"], c["beats"]) for c in bar] for bar in alt["bars"]] == [
        [("Am7", 1, 2), ("D7", 3, 2)], [("D7", 1, 4)], [("Dm7", 1, 2), ("G7", 3, 2)],
        [("G7", 1, 4)]]


# --- bars -----------------------------------------------------------------------------------

def test_a_ii_v_inserted_into_one_beat_takes_a_half_and_two_quarters() -> None:
    alt = alternative("Cmaj7 Cmaj7 Cmaj7 Am7 | Dm7 G7 | Cmaj7", "C", "ii_v_insertion")
    assert alt is not None
    assert [(c["symbol"], c["beat"], c["beats"]) for c in alt["bars"][0]] == [
        ("Cmaj7", 1, 1), ("Cmaj7", 2, 1), ("Cmaj7", 3, 0.5), ("Bm7b5", 3.5, 0.25),
        ("E7b9", 3.75, 0.25), ("Am7", 4, 1)]
    assert alt["bars"][1:] == [
        [{"symbol": "Dm7", "beat": 1, "beats": 2}, {"symbol": "G7", "beat": 3, "beats": 2}],
        [{"symbol": "Cmaj7", "beat": 1, "beats": 4}]]


def test_coltrane_cycle_in_a_one_bar_ii_v_shares_that_bar() -> None:
    alt = alternative("Dm7 G7 | Cmaj7", "C", "coltrane_changes")
    assert alt is not None
    assert [c["symbol"] for c in alt["bars"][0]] == ["Dm7", "Eb7", "Abmaj7", "B7", "Emaj7", "G7"]
    assert [c["beats"] for c in alt["bars"][0]] == [1, 0.5, 0.5, 1, 0.5, 0.5]
    assert alt["bars"][1] == [{"symbol": "Cmaj7", "beat": 1, "beats": 4}]


def test_three_chords_in_a_bar_take_two_one_one_beats() -> None:
    alt = alternative("Cmaj7 Dm7 G7 | Cmaj7", "C", "tritone_sub")
    assert alt is not None
    assert alt["bars"][0] == [{"symbol": "Cmaj7", "beat": 1, "beats": 2},
                              {"symbol": "Dm7", "beat": 3, "beats": 1},
                              {"symbol": "Db7", "beat": 4, "beats": 1}]


def test_five_chords_in_a_bar_is_invalid_request() -> None:
    with pytest.raises(InvalidRequest) as err:
        reharmonize({"progression": "C Dm Em F G | C"})
    assert err.value.field == "progression"


def test_a_modal_vamp_gets_no_cadence_and_no_picardy_third() -> None:
    vamp = "Dm7 | Dm7 | Dm7 | Dm7 | Ebm7 | Ebm7 | Ebm7 | Ebm7 | Dm7 | Dm7 | Dm7 | Dm7"
    assert alternative(vamp, "Dm", "ii_v_insertion") is None
    assert alternative(vamp, "Dm", "modal_interchange") is None
    # the same minor tonic after a cadence does take the picardy third
    assert changed("Dm | Em7b5 A7 | Dm", "Dm", "modal_interchange") == "Dm Em7b5 A7 D"


def test_backdoor_never_repeats_the_dominant_before_it() -> None:
    # Bb7 G7 Cmaj7: the backdoor Bb7 is already there before G7.
    assert alternative("Bb7 G7 Cmaj7", "C", "backdoor") is None
    assert changed("Fmaj7 G7 Cmaj7", "C", "backdoor") == "Fmaj7 Bb7 Cmaj7"
