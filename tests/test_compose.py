"""``engine.compose`` (API.md 13): each operation and its errors, a whole session in one request
equal to the same steps one request at a time, the same request giving the same bytes, and
properties over random compositions (nothing but a HarmonyError escapes; transposing there and
back gives the same chords)."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import HarmonyError, analyze, compose
from engine.chords import parse
from engine.compose.ir import check, section_ticks

TUNE = "A: Gm7 C7 | Fmaj7 | Bb7 | Fmaj7 || B: Am7b5 D7 | Gm7 | C7 | F6"
CREATE = {"op": "create", "title": "Test Tune", "composer": "Jo Smith", "key": "F",
          "tempo": 160, "progression": TUNE, "form": ["A", "A", "B", "A"]}
SESSION = [
    CREATE,
    {"op": "add_section", "id": "C", "progression": "Dm7 | G7 | Gm7 | C7", "after": "B"},
    {"op": "set_form", "form": ["A", "A", "B", "C", "A"], "tempo": 150},
    {"op": "reharmonize", "section": "B", "technique": "tritone_sub"},
    {"op": "voice", "style": "drop2"},
    {"op": "arrange", "style": "bossa_nova", "seed": 3},
    {"op": "add_notes", "section": "A", "notes": [
        {"bar": 1, "beat": 1, "duration": 2, "pitch": 72}, {"bar": 1, "beat": 3, "pitch": 74},
        [1920, 960, 77, 90]]},
    {"op": "transpose", "key": "Bb"},
    {"op": "export", "formats": ["leadsheet", "chordpro", "ireal", "analysis"]},
]


def run(*operations: dict[str, Any], composition: Any = None) -> dict[str, Any]:
    request: dict[str, Any] = {"operations": list(operations)}
    if composition is not None:
        request["composition"] = composition
    return compose(request)


def error(*operations: dict[str, Any], composition: Any = None) -> dict[str, Any]:
    with pytest.raises(HarmonyError) as refused:
        run(*operations, composition=composition)
    return refused.value.to_dict()["error"]  # type: ignore[no-any-return]


def symbols(comp: dict[str, Any], sid: str) -> list[str]:
    section = next(s for s in comp["sections"] if s["id"] == sid)
    return [c["symbol"] for c in sorted(section["chords"], key=lambda c: (c["bar"], c["beat"]))]


def test_create_reads_labelled_sections_and_the_form() -> None:
    answer = run(CREATE)
    comp = answer["composition"]
    assert answer["results"] == [{"sections": 2, "bars": 16}]
    assert comp["meta"]["key"] == "F" and comp["meta"]["mode"] == "major"
    assert comp["form"] == ["A", "A", "B", "A"]
    assert symbols(comp, "A") == ["Gm7", "C7", "Fmaj7", "Bb7", "Fmaj7"]
    a = comp["sections"][0]
    assert a["chords"][:2] == [{"bar": 1, "beat": 1, "symbol": "Gm7"},
                               {"bar": 1, "beat": 3, "symbol": "C7"}]
    minor = run({"op": "create", "key": "Dm"})["composition"]
    assert minor["meta"]["mode"] == "minor" and minor["sections"] == []


def test_create_and_analyze_read_section_labels_by_one_rule() -> None:
    """A label is the text before a ``:`` holding no bar line (API.md 3.1: analyze's charts
    are written "as in compose's create"); compose then checks it as a section id."""
    chart = "Verse: Gm7 C7 | Fmaj7 || Bridge: Am7b5 D7 | Gm7 || C7 | F6"
    comp = run({**CREATE, "progression": chart, "form": None})["composition"]
    assert [s["id"] for s in comp["sections"]] == ["Verse", "Bridge", "C"]
    for written in (chart, chart.replace("Verse:", "Verse 1:")):
        chords = analyze({"progression": written, "key": "F"})["chords"]
        assert [c["chord"] for c in chords] == ["Gm7", "C7", "Fmaj7", "Am7b5", "D7", "Gm7",
                                                "C7", "F6"]
        assert [c["bar"] for c in chords] == [1, 1, 2, 3, 3, 4, 5, 6]
    spaced = error({**CREATE, "progression": chart.replace("Verse:", "Verse 1:")})
    assert spaced["code"] == "invalid_request" and "letters, digits" in spaced["message"]
    assert error({**CREATE, "progression": "Gm7 | C7: F"})["code"] == "invalid_chord"


def test_add_section_places_it_in_the_form() -> None:
    comp = run(CREATE, {"op": "add_section", "id": "C", "bars": 4, "after": "B", "times": 2}
               )["composition"]
    assert comp["form"] == ["A", "A", "B", "C", "C", "A"]
    assert error(CREATE, {"op": "add_section", "id": "A", "bars": 4}) == {
        "code": "invalid_request", "message": "section 'A' exists already",
        "field": "operations[1].id", "operation": 1}


def test_set_chords_and_its_errors() -> None:
    comp = run(CREATE, {"op": "set_chords", "section": "B",
                        "progression": "Em7b5 A7 | Dm7 | G7 | C7"})["composition"]
    assert symbols(comp, "B") == ["Em7b5", "A7", "Dm7", "G7", "C7"]
    bad = error(CREATE, {"op": "set_chords", "section": "B", "progression": "Dm7 | Hm7"})
    assert bad["code"] == "invalid_chord" and bad["symbol"] == "Hm7"
    assert bad["operation"] == 1 and bad["field"] == "operations[1].progression"
    missing = error(CREATE, {"op": "set_chords", "section": "Q", "progression": "C"})
    assert missing["field"] == "operations[1].section"
    beat = error(CREATE, {"op": "set_chords", "section": "A",
                          "chords": [{"bar": 1, "beat": 7, "symbol": "C"}]})
    assert beat["field"] == "operations[1].sections[0].chords[0].beat"


def test_set_form_and_changes_from_a_section() -> None:
    comp = run(CREATE, {"op": "set_form", "form": "A B A", "from": "B", "tempo": 100,
                        "timeSignature": "3/4"})["composition"]
    assert comp["form"] == ["A", "B", "A"]
    b = comp["sections"][1]
    assert (b["tempo"], b["timeSignature"]) == (100, "3/4")
    assert error(CREATE, {"op": "set_form", "form": ["A", "Z"]})["field"] == "operations[1].form[1]"


def test_reharmonize_applies_one_technique_with_its_explanation() -> None:
    answer = run(CREATE, {"op": "reharmonize", "section": "A", "technique": "tritone_sub"})
    result = answer["results"][1]
    assert result["applied"] and "Gb7" in result["explanation"]
    assert symbols(answer["composition"], "A") == ["Gm7", "Gb7", "Fmaj7", "Bb7", "Fmaj7"]
    window = run(CREATE, {"op": "reharmonize", "section": "A", "technique": "tritone_sub",
                          "bars": [3, 4]})
    assert symbols(window["composition"], "A") == ["Gm7", "C7", "Fmaj7", "Bb7", "Fmaj7"]
    assert not window["results"][1]["applied"]
    assert error(CREATE, {"op": "reharmonize", "section": "A", "technique": "nope"}
                 )["operation"] == 1


def test_voice_leads_across_sections_and_writes_the_harmony_track() -> None:
    comp = run(CREATE, {"op": "voice", "style": "shell"})["composition"]
    harmony = next(t for t in comp["tracks"] if t["role"] == "harmony")
    assert set(harmony["events"]) == {"A", "B"}
    a = comp["sections"][0]
    assert all(0 <= e[0] < section_ticks(comp, a) and 36 <= e[2] <= 96
               for e in harmony["events"]["A"])
    assert error(CREATE, {"op": "voice", "style": "cluster"})["field"] == "operations[1].style"


def test_arrange_writes_pattern_bass_and_drums_over_the_form() -> None:
    comp = run(CREATE, {"op": "arrange", "style": "swing", "seed": 1})["composition"]
    roles = {t["role"]: t for t in comp["tracks"]}
    assert set(roles) == {"pattern", "bass", "drums"}
    assert roles["drums"]["channel"] == 9
    for role in ("pattern", "bass", "drums"):
        for sid in ("A", "B"):
            assert roles[role]["events"][sid], (role, sid)
    bass_a = roles["bass"]["events"]["A"]
    assert bass_a[0][0] == 0 and 28 <= bass_a[0][2] <= 60


def test_transpose_respells_and_moves_notes() -> None:
    comp = run(CREATE, {"op": "voice"}, {"op": "transpose", "key": "Eb"})["composition"]
    assert comp["meta"]["key"] == "Eb"
    assert symbols(comp, "A") == ["Fm7", "Bb7", "Ebmaj7", "Ab7", "Ebmaj7"]
    up = run(CREATE, {"op": "transpose", "semitones": 1})["composition"]
    assert up["meta"]["key"] == "F#" and symbols(up, "A")[0] == "G#m7"
    assert error(CREATE, {"op": "transpose", "key": "Dm"})["field"] == "operations[1].key"


def test_a_session_in_one_request_equals_one_request_a_step() -> None:
    whole = run(*SESSION)
    comp = None
    results = []
    for step in SESSION:
        answer = run(step, composition=comp)
        comp = answer["composition"]
        results.extend(answer["results"])
    assert orjson.dumps(comp) == orjson.dumps(whole["composition"])
    assert orjson.dumps(results) == orjson.dumps(whole["results"])
    assert orjson.dumps(run(*SESSION)) == orjson.dumps(whole)  # the same bytes again


def test_a_failing_operation_applies_nothing() -> None:
    comp = run(CREATE)["composition"]
    before = copy.deepcopy(comp)
    bad = error({"op": "transpose", "key": "Bb"}, {"op": "set_form", "form": ["Q"]},
                composition=comp)
    assert bad["operation"] == 1
    assert comp == before


@pytest.mark.parametrize(("request_", "field"), [
    ({"operations": []}, "operations"),
    ({"operations": [{"op": "voice"}]}, "composition"),
    ({"operations": [{"op": "fly"}], "composition": None}, "composition"),
    ({"operations": [CREATE] * 65}, "operations"),
    ({"composition": {"version": 2}, "operations": [{"op": "voice"}]}, "composition.version"),
])
def test_request_errors(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(HarmonyError) as refused:
        compose(request_)
    assert refused.value.to_dict()["error"]["field"] == field


# ------------------------------------------------------------------ properties

CHORDS = st.sampled_from(["C", "Dm7", "G7", "Cmaj7", "Am7", "F#m7b5", "B7alt", "Ebmaj7#11",
                          "Bb13", "Gm6", "Db7(b9)", "E7sus4", "Abdim7", "C/E", "F6/9"])
BARS = st.lists(st.lists(CHORDS, min_size=1, max_size=2), min_size=1, max_size=6)
KEYS = st.sampled_from(["C", "F", "Bb", "Eb", "G", "D", "A", "E", "Ab", "Db", "Am", "Cm"])


def _text(bars: list[list[str]]) -> str:
    return " | ".join(" ".join(b) for b in bars)


@settings(max_examples=25)
@given(a=BARS, b=BARS, key=KEYS, steps=st.lists(st.sampled_from(
    [{"op": "voice"}, {"op": "arrange", "style": "funk"}, {"op": "transpose", "semitones": 5},
     {"op": "reharmonize", "section": "B", "technique": "backdoor"},
     {"op": "export", "formats": ["midi", "musicxml", "ireal", "chordpro"]},
     {"op": "set_form", "form": ["B", "A", "B"]}]), max_size=4))
def test_random_sessions_raise_nothing_but_harmony_errors(
        a: list[list[str]], b: list[list[str]], key: str, steps: list[dict[str, Any]]) -> None:
    create = {"op": "create", "key": key, "progression": f"A: {_text(a)} || B: {_text(b)}"}
    try:
        answer = run(create, *steps)
    except HarmonyError:
        return
    check(answer["composition"])


@settings(max_examples=40)
@given(a=BARS, key=KEYS, to=KEYS)
def test_transposing_there_and_back_keeps_the_chords(a: list[list[str]], key: str,
                                                     to: str) -> None:
    if key.endswith("m") != to.endswith("m"):
        return
    comp = run({"op": "create", "key": key, "progression": f"A: {_text(a)}"})["composition"]
    back = run({"op": "transpose", "key": to}, {"op": "transpose", "key": key},
               composition=comp)["composition"]
    assert [parse(s).pcs for s in symbols(back, "A")] == [parse(s).pcs for s in symbols(comp, "A")]
    assert symbols(back, "A") == symbols(comp, "A") or all(
        parse(x).root.pc == parse(y).root.pc for x, y in zip(symbols(back, "A"),
                                                              symbols(comp, "A"), strict=True))


def test_blue_monday_from_the_readme_arranges_its_aaba_as_written() -> None:
    # The compose session of docs/guide.md (once the README's): an AABA whose A ends on its ii-V (a turnaround back to the
    # top). arrange keeps the written 32 bars (it refused: "could not keep the form's 32 bars").
    from engine import compose

    made = compose({"operations": [{
        "op": "create", "title": "Blue Monday", "key": "F", "tempo": 160,
        "progression": "A: Gm7 C7 | Fmaj7 | Am7b5 D7 | Gm7 C7 || B: Cm7 F7 | Bbmaj7 | "
                       "Bbm6 Eb7 | Am7 D7", "form": ["A", "A", "B", "A"]}]})
    done = compose({"composition": made["composition"], "operations": [
        {"op": "reharmonize", "section": "B", "technique": "backdoor"},
        {"op": "voice", "style": "drop2"}, {"op": "arrange", "style": "bossa_nova"}]})
    assert done["results"][2] == {"style": "bossa_nova", "tracks": ["pattern", "bass", "drums"],
                                  "bars": 16}
