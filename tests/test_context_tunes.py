"""``analyze`` of a whole chart in context (API.md 3.1), on the real iReal charts of
``../shared/corpora/jazzstandards-ireal``: each chord read where it goes, the brackets, the
regions, the cadences and the form, as a jazz teacher would mark the chart."""

from __future__ import annotations

from functools import lru_cache
from itertools import groupby
from typing import Any

import orjson
import pytest

from engine import analyze
from engine.corpus.loaders import load_paths
from engine.errors import InvalidRequest
from tests.conftest import CORPORA

TUNES = CORPORA / "jazzstandards-ireal" / "JazzStandards.json"
needs_corpus = pytest.mark.skipif(not TUNES.is_file(), reason=f"{TUNES} is absent")


@lru_cache(maxsize=1)
def charts() -> dict[str, str]:
    """Title -> the chart as analyze takes it: 'A: Ebmaj7 | Bbm7 Eb7 | ... || B: ...'."""
    songs, _ = load_paths([TUNES])
    out = {}
    for song in songs:
        parts = []
        for section in song.sections:
            bars = [" ".join(p.chord.symbol for p in group)
                    for _, group in groupby(section.chords, key=lambda p: p.bar)]
            parts.append(f"{section.name or 'A'}: " + " | ".join(bars))
        out[song.title] = " || ".join(parts)
    return out


def chart_of(title: str, **extra: Any) -> dict[str, Any]:
    return analyze({"progression": charts()[title], **extra})


def at(result: dict[str, Any], bar: int, symbol: str) -> dict[str, Any]:
    return next(c for c in result["chords"] if c["bar"] == bar and c["chord"] == symbol)


@needs_corpus
def test_misty_bar_2_is_the_ii_v_to_iv() -> None:
    r = chart_of("Misty")
    assert (r["key"], r["keyFound"]) == ("Eb", True)
    ii, v = at(r, 2, "Bbm7"), at(r, 2, "Eb7")
    assert (ii["numeral"], ii["contextNumeral"]) == ("v7", "ii7/IV")  # alone / in context
    assert ii["contextScales"][0]["name"] == "dorian"
    assert ii["contextFunction"] == "predominant, ii of the ii-V to IV"
    assert v["contextNumeral"] == "V7/IV"
    # bar 4's Abm7 Db7 is the backdoor into Ebmaj7: iv7 and bVII7, as read alone
    assert at(r, 4, "Db7")["contextNumeral"] == "bVII7"
    assert {"kind": "ii-V-I", "bar": 2, "beat": 1, "chords": ["Bbm7", "Eb7"],
            "target": "Abmaj7", "arrives": "resolved", "turnaround": False} in r["brackets"]
    assert any(reg["key"] == "Ab" and reg["kind"] == "tonicization" for reg in r["regions"])


@needs_corpus
def test_blue_bossa_ab7_is_the_dominant_of_the_borrowed_bii() -> None:
    r = chart_of("Blue Bossa")
    assert r["key"] == "Cm"
    ab7 = at(r, 10, "Ab7")
    assert ab7["numeral"] == "bVI7"               # alone: the substitute of V7/V
    assert ab7["contextNumeral"] == "V7/bII"      # where it goes: Dbmaj7
    assert at(r, 9, "Ebm7")["contextNumeral"] == "ii7/bII"
    assert {"key": "Db", "start": 9, "end": 12, "kind": "modulation"} in r["regions"]


@needs_corpus
def test_billies_bounce_is_a_blues_whose_i7_is_the_tonic() -> None:
    r = chart_of("Billie's Bounce")
    assert r["form"] == {"name": "12-bar blues", "bars": 12}
    assert at(r, 1, "F7")["contextFunction"].startswith("tonic")
    # bar 4's Cm7 F7 is the ii-V to IV: there the F7 is V7/IV
    assert at(r, 4, "F7")["contextNumeral"] == "V7/IV"
    assert at(r, 4, "Cm7")["contextNumeral"] == "ii7/IV"


@needs_corpus
def test_oleo_is_rhythm_changes() -> None:
    r = chart_of("Oleo")
    assert r["form"] == {"name": "rhythm changes", "bars": 32}
    assert at(r, 5, "Bb7")["contextNumeral"] == "V7/IV"
    assert [reg["key"] for reg in r["regions"]] == ["Bb"]  # ii-V's passed through, no region


@needs_corpus
def test_all_the_things_you_are_visits_its_keys() -> None:
    r = chart_of("All The Things You Are")
    assert r["key"] == "Ab"
    visited = [reg["key"] for reg in r["regions"][1:]]
    for key in ("C", "Eb", "G", "E"):
        assert key in visited
    assert at(r, 10, "Fm7")["contextNumeral"] == "ii7/V"   # Fm7 Bb7 -> Ebmaj7


@needs_corpus
def test_autumn_leaves_ii_v_i_in_both_keys() -> None:
    r = chart_of("Autumn Leaves")
    assert r["key"] == "Gm"
    targets = {b["target"] for b in r["brackets"] if b["kind"] == "ii-V-I"}
    assert {"Bbmaj7", "Gm6"} <= targets or {"Bbmaj7", "Gm7"} <= targets
    assert any(c["kind"] == "authentic" for c in r["cadences"])


@needs_corpus
def test_a_charts_summary_fits_a_models_context() -> None:
    # the MCP tool's default with a progression (docs/mcp.md): a 36-bar chart under 8 KB
    r = chart_of("All The Things You Are", detail="summary")
    assert len(orjson.dumps(r)) < 8192
    assert set(r["chords"][0]) == {"bar", "beat", "chord", "contextNumeral", "contextScale"}


def test_a_given_key_is_kept_and_runners_up_are_ranked() -> None:
    r = analyze({"progression": "Dm7 G7 | Cmaj7 | Cmaj7", "key": "F"})
    assert (r["key"], r["keyFound"]) == ("F", False)
    found = analyze({"progression": ["Dm7 G7", "Cmaj7", "Cmaj7"]})
    assert (found["key"], found["keyFound"]) == ("C", True)
    scores = [c["score"] for c in found["keyCandidates"]]
    assert scores == sorted(scores, reverse=True) and len(scores) == 3
    assert found["cadences"] == [{"bar": 2, "beat": 1, "kind": "authentic",
                                  "chords": ["Dm7", "G7", "Cmaj7"]}]


@pytest.mark.parametrize(("request_", "field"), [
    ({"progression": "Dm7 G7", "chord": "C"}, "chord"),
    ({"progression": "| |"}, "progression"),
    ({"progression": 7}, "progression"),
    ({"progression": "Dm7 G7", "detail": "short"}, "detail"),
    ({"progression": "C D E F G | C"}, "progression"),     # five chords in a 4/4 bar
])
def test_bad_charts_are_refused_naming_the_field(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        analyze(request_)
    assert refused.value.details["field"] == field


@needs_corpus
def test_avalon_a_ii_v_held_two_bars_each_is_one_ii_v_i() -> None:
    # Avalon opens | Cm7 | Cm7 | F7 | F7 | Bb6 |: one ii-V-I to the tonic, each chord held two
    # bars; the second Cm7 and the second F7 read in the bracket as the first do.
    r = chart_of("Avalon")
    first = r["brackets"][0]
    assert (first["kind"], first["bar"], first["target"], first["arrives"]) == (
        "ii-V-I", 1, "Bb6", "resolved")
    assert [c["contextNumeral"] for c in r["chords"][:4]] == ["ii7", "ii7", "V7", "V7"]
    assert r["cadences"][0]["bar"] == 5


@needs_corpus
def test_black_nile_a_held_dominant_still_arrives() -> None:
    # Black Nile: | Em7b5 | A7b9 | A7b9 | Dm6 |: the iiø-V-i of the home key, the V held.
    r = chart_of("Black Nile")
    assert any(b["kind"] == "ii-V-I" and b["chords"][0] == "Em7b5" and b["target"] == "Dm6"
               for b in r["brackets"])


def _brute_force_ii_v_is(chords: list[Any]) -> set[int]:
    """Independently of the engine: the first index of each ii-V-I of a chart whose chords are
    (symbol, root pc, intervals, has a bass): a m7/m9/m11/m7b5 in root position, a dominant a
    fourth above, then a major or minor chord (not a half-diminished or diminished one, the ii
    of a chain) a fourth above that; a chord held over bars counts once; the target may be at
    the top of the form (a turnaround)."""
    held = [i for i, c in enumerate(chords) if i == 0 or c[0] != chords[i - 1][0]]
    out = set()
    for k in range(len(held) - 1):
        ii, v = chords[held[k]], chords[held[k + 1]]
        i = chords[held[k + 2]] if k + 2 < len(held) else chords[0]
        minor_seventh = "b3" in ii[2] and "b7" in ii[2]
        dominant = "b7" in v[2] and "b3" not in v[2]
        arrival = ("3" in i[2] or "b3" in i[2]) and not ("b3" in i[2] and "b5" in i[2]) \
            and not ("b7" in i[2] and "b3" not in i[2])
        if minor_seventh and not ii[3] and dominant and arrival and \
                (v[1] - ii[1]) % 12 == 5 and (i[1] - v[1]) % 12 == 5:
            out.add(held[k])
    return out


@needs_corpus
def test_every_ii_v_i_of_the_standards_is_bracketed() -> None:
    # bench/run_brackets.py prints the same figure: 7,236 of the 7,237 ii-V-Is a brute-force
    # scan finds; the one left is a ii at the very end whose V is the first chord (Sweeping Up).
    from engine.analysis.context import find_brackets
    from engine.analysis.readings import heard_as

    songs, _ = load_paths([TUNES])
    scanned = found = 0
    for song in songs:
        chords = [p.chord for s in song.sections for p in s.chords]
        if len(chords) < 3:
            continue
        heard = [heard_as(c) for c in chords]
        starts = {b.start for b in find_brackets(heard) if b.kind == "ii-V-I"}
        expected = _brute_force_ii_v_is([(c.symbol, c.root.pc, c.intervals, c.bass is not None)
                                         for c in chords])
        scanned += len(expected)
        found += len(expected & starts)
    assert scanned > 6_500
    assert scanned - found <= 1
