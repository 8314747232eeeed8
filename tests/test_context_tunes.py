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
