"""reharmonize in context (API.md §6) on the real iReal charts of
``../shared/corpora/jazzstandards-ireal``: each test is a defect a pianist found playing the
alternatives through (issue 37), on the tune it was found in. The charts go in with their bar
lines and section labels, as analyze reads them, in the key analyze finds for them."""

from __future__ import annotations

from functools import cache
from typing import Any

from engine import analyze, reharmonize
from tests.test_context_tunes import charts, needs_corpus


@cache
def key_of(title: str) -> str:
    return str(analyze({"progression": charts()[title]})["key"])


def alternative(title: str, technique: str) -> dict[str, Any] | None:
    result = reharmonize({"progression": charts()[title], "key": key_of(title),
                          "techniques": [technique]})
    return result["alternatives"][0] if result["alternatives"] else None


def input_chords(title: str) -> list[str]:
    return list(reharmonize({"progression": charts()[title], "key": key_of(title),
                             "techniques": []})["progression"])


def changes_at(alt: dict[str, Any] | None, old: str) -> list[list[str]]:
    return [] if alt is None else [c["to"] for c in alt["changes"] if c["from"] == old]


def bar_symbols(alt: dict[str, Any], first: int, last: int) -> list[list[str]]:
    """The symbols of bars ``first``..``last`` (1-based) of an alternative."""
    return [[c["symbol"] for c in bar] for bar in alt["bars"][first - 1:last]]


# --- modal_interchange ----------------------------------------------------------------------

@needs_corpus
def test_all_the_things_you_are_keeps_fm7_the_ii_of_bb7() -> None:
    # Cm7 Fm7 Bb7 Ebmaj7 became Cm7 Emaj7 Bb7: the ii of the ii-V gone. Now the ii borrows the
    # half-diminished ii of Eb minor and keeps leading to Bb7.
    assert key_of("All The Things You Are") == "Ab"
    alt = alternative("All The Things You Are", "modal_interchange")
    assert alt is not None
    assert bar_symbols(alt, 9, 12) == [["Cm7"], ["Fm7b5"], ["Bb7"], ["Ebmaj7"]]
    assert "Fbmaj7" not in alt["progression"]


@needs_corpus
def test_solar_keeps_its_fm7_bb7() -> None:
    # Solar's signature move, Fmaj7 | Fmaj7 | Fm7 | Bb7, lost its Fm7 to Fmaj7.
    alt = alternative("Solar", "modal_interchange")
    assert all(to == ["Fm7b5"] for to in changes_at(alt, "Fm7"))
    assert alt is not None and bar_symbols(alt, 7, 8) == [["Fm7b5"], ["Bb7"]]


@needs_corpus
def test_autumn_leaves_keeps_cm7_the_ii_of_f7() -> None:
    assert key_of("Autumn Leaves") == "Gm"
    alt = alternative("Autumn Leaves", "modal_interchange")
    assert ["Cmaj7"] not in changes_at(alt, "Cm7")
    assert all(to == ["Cm7b5"] for to in changes_at(alt, "Cm7"))


@needs_corpus
def test_blue_bossa_borrows_the_dorian_iv7_in_minor() -> None:
    # Cm7 | Cm7 | Fm7 | Fm7 | Dm7b5: the iv (no ii of a V here) becomes F7, the IV7 of C
    # dorian, as in a minor blues, not the major key's Fmaj7.
    alt = alternative("Blue Bossa", "modal_interchange")
    assert changes_at(alt, "Fm7") == [["F7"], ["F7"]]
    assert alt is not None and "borrowed from C dorian" in alt["explanation"]


@needs_corpus
def test_summertime_keeps_the_arrival_on_dm7() -> None:
    # Am7 A7b9 | Dm7: Dm7 is where A7b9 arrives; nothing borrowed replaces it.
    assert changes_at(alternative("Summertime", "modal_interchange"), "Dm7") == []


@needs_corpus
def test_little_sunflower_a_modal_vamp_gets_no_picardy_third() -> None:
    # Dm7 vamps with a bridge on Ebmaj7 and Dmaj7: the last Dm7 became Dmaj7.
    alt = alternative("Little Sunflower", "modal_interchange")
    assert alt is None or all(c["index"] != len(input_chords("Little Sunflower")) - 1
                              for c in alt["changes"])


# --- secondary_dominants --------------------------------------------------------------------

@needs_corpus
def test_oleo_bridge_keeps_its_f7() -> None:
    # D7 | D7 | G7 | G7 | C7 | C7 | F7 | F7: the first F7 became C7, a third bar of C7.
    alt = alternative("Oleo", "secondary_dominants")
    assert alt is not None
    bridge = bar_symbols(alt, 17, 24)
    assert bridge[4:] == [["C7"], ["C7"], ["F7"], ["F7"]]


@needs_corpus
def test_stella_by_starlight_arrives_on_cm7_in_bar_19() -> None:
    # G7b13 | G7b13 | Cm7 | Cm7: the arrival on Cm7 was postponed by a bar of G7.
    alt = alternative("Stella By Starlight", "secondary_dominants")
    assert alt is not None
    assert bar_symbols(alt, 17, 19) == [["G7b13"], ["G7b13"], ["Cm7"]]


# --- ii_v_insertion and related_ii ----------------------------------------------------------

@needs_corpus
def test_body_and_soul_keeps_the_passing_diminished_line() -> None:
    # Fm7 Edim7 Ebm7 (E07 in the chart) became Fm7 Edim7 Fm7b5 Bb7b9 Ebm7.
    alt = alternative("Body And Soul", "ii_v_insertion")
    assert alt is not None
    assert all(c["from"] != "E07" for c in alt["changes"])
    chords = alt["progression"]
    assert all(chords[i + 1] == "Ebm7" for i, s in enumerate(chords) if s == "E07")


@needs_corpus
def test_so_what_gets_no_functional_cadence() -> None:
    assert alternative("So What", "ii_v_insertion") is None


@needs_corpus
def test_oleo_bridge_related_ii_before_each_dominant() -> None:
    alt = alternative("Oleo", "related_ii")
    assert alt is not None
    assert bar_symbols(alt, 17, 24) == [["Am7", "D7"], ["D7"], ["Dm7", "G7"], ["G7"],
                                        ["Gm7", "C7"], ["C7"], ["Cm7", "F7"], ["F7"]]
    # the A sections' dominants already have their ii: none added there
    assert bar_symbols(alt, 2, 2) == [["Cm7", "F7"]]
    assert alt["bars"][16][0] == {"symbol": "Am7", "beat": 1, "beats": 2}


@needs_corpus
def test_stella_by_starlight_related_ii_is_half_diminished_into_cm7() -> None:
    # G7b13 | G7b13 | Cm7: the held G7 goes to a minor chord, so its ii is Dm7b5 (iiø7), and
    # D7b9 before it, going to G7, takes Am7.
    alt = alternative("Stella By Starlight", "related_ii")
    assert alt is not None
    assert bar_symbols(alt, 16, 19) == [["Am7", "D7b9"], ["Dm7b5", "G7b13"], ["G7b13"],
                                        ["Cm7"]]


# --- bars -----------------------------------------------------------------------------------

@needs_corpus
def test_tune_up_coltrane_cycle_is_countdown_in_the_ii_v_bars() -> None:
    # Coltrane's Countdown puts the cycle Em7 F7 Bbmaj7 Db7 Gbmaj7 A7 over Tune Up's ii-V.
    countdown = input_chords("Countdown")[:7]
    alt = alternative("Tune Up", "coltrane_changes")
    assert alt is not None
    assert alt["progression"][:7] == countdown
    assert bar_symbols(alt, 1, 3) == [["Em7", "F7", "Bbmaj7"], ["Db7", "Gbmaj7", "A7"],
                                      ["Dmaj7"]]
    assert [c["beats"] for c in alt["bars"][0]] == [2, 1, 1]


TUNES = ("Autumn Leaves", "All The Things You Are", "Giant Steps", "Blue Bossa",
         "Stella By Starlight", "Billie's Bounce", "Oleo", "So What", "Body And Soul", "Solar",
         "Misty", "Summertime")


@needs_corpus
def test_every_alternative_of_twelve_standards_sits_on_the_input_bars() -> None:
    for title in TUNES:
        result = reharmonize({"progression": charts()[title], "key": key_of(title)})
        n_bars = charts()[title].count("|") - charts()[title].count("||") + 1
        for alt in result["alternatives"]:
            assert len(alt["bars"]) == n_bars, (title, alt["technique"])
            for bar in alt["bars"]:
                assert sum(c["beats"] for c in bar) == 4, (title, alt["technique"], bar)
                beat = 1
                for c in bar:
                    assert c["beat"] == beat
                    beat += c["beats"]
            # the bars read the alternative's chords in order (a chord held over a bar line
            # is written again in the next bar)
            laid = [c["symbol"] for bar in alt["bars"] for c in bar]
            assert [s for i, s in enumerate(laid)
                    if i == 0 or s != laid[i - 1]] == [s for i, s in enumerate(alt["progression"])
                                                       if i == 0 or s != alt["progression"][i - 1]]


# --- spelling by function -------------------------------------------------------------------

@needs_corpus
def test_misty_bvi_is_cbmaj7() -> None:
    # Ebmaj7 Cm7 | Fm7: the vi borrows bVImaj7 of Eb, Cbmaj7 (analyze's bVImaj7), not Bmaj7.
    alt = alternative("Misty", "modal_interchange")
    assert ["Cbmaj7"] in changes_at(alt, "Cm7")
    assert alt is not None and "Bmaj7" not in alt["progression"]
    assert analyze({"chord": "Cbmaj7", "key": "Eb"})["numeral"] == "bVImaj7"


@needs_corpus
def test_oleo_tritone_substitute_of_f7_is_cb7() -> None:
    alt = alternative("Oleo", "tritone_sub")
    assert alt is not None
    assert ["Cb7"] in changes_at(alt, "F7") and "B7" not in alt["progression"]
    assert analyze({"chord": "Cb7", "key": "Bb"})["numeral"] == "bII7"


@needs_corpus
def test_israel_line_cliche_keeps_its_moving_voice() -> None:
    # Gm Gm/maj7 Gm7 Gm6: the inner line G F# F E is the point; Gm7 and Gm6 became G7 G7.
    chords = input_chords("Israel")
    line = {i for i, s in enumerate(chords) if s in ("Gm", "Gm/maj7", "Gm7", "Gm6")}
    assert len(line) >= 4
    alt = alternative("Israel", "modal_interchange")
    assert alt is None or all(c["index"] not in line for c in alt["changes"])
