"""The schema table: well-formed JSON Schemas, one entry per operation of the contract, and the
golden results of every landed operation conform to their declared result schema."""

from __future__ import annotations

from typing import Any

import jsonschema
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import HarmonyError
from server.api.schemas import BY_PATH, BY_TOOL, OPERATIONS
from tests.golden import cases, operations

CONTRACT = {
    "analyze": ("/v2/analyze", "analyze_chord"),
    "resolve": ("/v2/resolve", "resolve_chord"),
    "identify": ("/v2/identify", "identify_chord"),
    "voicing": ("/v2/voicing", "generate_voicing"),
    "reharmonize": ("/v2/reharmonize", "reharmonize"),
    "conduct": ("/v2/conduct", "conduct_band"),
    "render": ("/v2/render", "render_audio"),
    "search": ("/v2/search", "search_corpus"),
    "compose": ("/v2/compose", "compose"),
}


def test_table_has_the_contract_routes_and_tools() -> None:
    assert {n: (op.path, op.tool) for n, op in OPERATIONS.items()} == CONTRACT
    assert set(BY_PATH) == {p for p, _ in CONTRACT.values()}
    assert set(BY_TOOL) == {t for _, t in CONTRACT.values()}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_schemas_are_valid_and_described(name: str) -> None:
    op = OPERATIONS[name]
    jsonschema.Draft202012Validator.check_schema(op.request_schema)
    jsonschema.Draft202012Validator.check_schema(op.result_schema)
    assert op.request_schema["type"] == op.result_schema["type"] == "object"
    assert op.description.endswith(".") and "\n" not in op.description
    for field, schema in op.request_schema["properties"].items():
        assert schema.get("description"), f"{name}.{field} has no description"


@pytest.mark.parametrize("name", ["analyze", "reharmonize"])
def test_key_context_is_an_alias_of_key(name: str) -> None:
    props = OPERATIONS[name].request_schema["properties"]
    assert props["keyContext"]["type"] == props["key"]["type"]
    assert "alias" in props["keyContext"]["description"].lower()


def test_validator_rejects_wrong_types_and_bounds() -> None:
    v = OPERATIONS["analyze"].validator
    assert v.is_valid({"chord": "Dm7", "key": "C"})
    assert not v.is_valid({"key": "C"})
    assert not v.is_valid({"chord": 7})
    assert not v.is_valid({"chord": "C" * 33})
    voicing = OPERATIONS["voicing"].validator
    assert voicing.is_valid({"progression": "Dm7 G7 | Cmaj7"})
    assert not voicing.is_valid({"style": "shell"})
    assert not voicing.is_valid({"chord": "C", "previous": ["C4"] * 9})


GOLDEN_OK = [(op, req, resp) for op, req, resp in cases()
             if op in operations() and resp.exists() and b'"error"' not in resp.read_bytes()[:9]]


@pytest.mark.parametrize(("operation", "request_file", "response_file"), GOLDEN_OK,
                         ids=[f"{c[0]}/{c[1].name.split('.')[0]}" for c in GOLDEN_OK])
def test_golden_requests_and_results_conform(operation: str, request_file, response_file) -> None:
    op = OPERATIONS[operation]
    op.validator.validate(orjson.loads(request_file.read_bytes()))
    jsonschema.validate(orjson.loads(response_file.read_bytes()), op.result_schema)


# ---------------------------------------------------------------- schema and engine agree
# REST skips jsonschema for the operations marked ``engine_checks``: that is sound only while
# the engine refuses every request the schema refuses. Hand-picked cases, then Hypothesis.

CHECKED = [name for name, op in OPERATIONS.items() if op.engine_checks and op.available]

AGREEMENT: dict[str, tuple[list[Any], list[Any]]] = {
    # (requests both accept, requests the schema refuses) - the engine must refuse the latter
    "analyze": (
        [{"chord": "Dm7b5", "key": "C"}, {"chord": "G7", "keyContext": "Cm"},
         {"chord": "Bb13", "key": None}, {"chord": "C", "key": ""},
         {"chord": "F#7(b9,#9,#11,b13)/A#"}],
        [[], "Dm7", {"chord": "F#7", "x": 1}, {"chord": "F#7", "Key": "F"}, None, {}, {"key": "C"}, {"chord": None}, {"chord": 7}, {"chord": ""},
         {"chord": ["C"]}, {"chord": "C" * 33}, {"chord": "C", "key": 5},
         {"chord": "C", "key": "C" * 33}, {"chord": "C", "keyContext": ["C"]}],
    ),
    "resolve": (
        [{"chord": "G13"}, {"chord": "G13", "octave": 3, "tuning": 442.5},
         {"chord": "C/E", "octave": None, "tuning": None}, {"chord": "Ab", "tuning": 200}],
        [{}, {"chord": 1}, {"chord": "C", "octave": "4"}, {"chord": "C", "octave": 4.5},
         {"chord": "C", "octave": True}, {"chord": "C", "tuning": "440"},
         {"chord": "C", "tuning": 0}, {"chord": "C", "tuning": -440}, {"chord": "C", "tuning": 1e6},
         {"chord": "C" * 40, "octave": 4}],
    ),
    "identify": (
        [{"notes": ["E3", "G3", "B3", "D4"]}, {"notes": ["B", "D", "F", "A"], "key": "C"},
         {"pcs": [0, 4, 7, 10]}, {"notes": [60, 64.0, "G4"], "bass": "Bb", "pcs": None},
         {"notes": ["C", "E", "G"], "bass": 48, "key": None}],
        [{"notes": "C E G"}, {"notes": []}, {"notes": ["C"] * 33}, {"notes": [128]},
         {"notes": [-1]}, {"notes": [1.5]}, {"notes": [True]}, {"notes": [None]},
         {"pcs": [12]}, {"pcs": ["C"]}, {"pcs": []}, {"notes": ["C"], "bass": 1.5},
         {"notes": ["C"], "bass": True}, {"notes": ["C"], "key": 5}, {"notes": ["C"], "x": 1}],
    ),
    "voicing": (
        [{"chord": "Cmaj7"}, {"progression": "Dm7 G7 | Cmaj7", "style": "drop2"},
         {"chord": "G7", "previous": ["F3", 59], "range": [40, 80], "style": None}],
        [{}, {"style": "shell"}, {"chord": "C", "range": [0, 200]}, {"chord": "C", "range": [48]},
         {"chord": "C", "previous": [1.5]}, {"chord": "C", "previous": ["C4"] * 9},
         {"chord": "C", "style": 5}, {"progression": []}, {"progression": ""},
         {"progression": ["C"] * 257}, {"chord": "C", "range": [-1, 84]}],
    ),
    "reharmonize": (
        [{"progression": "Dm7 G7 Cmaj7"}, {"progression": ["Dm7", "G7"], "key": None,
                                            "techniques": ["tritone_sub"]}],
        [{}, {"progression": "Dm7 G7", "techniques": ["nope"]},
         {"progression": "Dm7", "techniques": "tritone_sub"}, {"progression": "Dm7", "key": 5},
         {"progression": [1, 2]}, {"progression": None}],
    ),
    "conduct": (
        [{"prompt": "medium swing blues in F", "seed": None, "durationSec": None}],
        [{}, {"prompt": ""}, {"prompt": "x" * 2001}, {"prompt": "swing", "durationSec": 1},
         {"prompt": "swing", "durationSec": 1000}, {"prompt": "swing", "seed": 1.5},
         {"prompt": "swing", "seed": "1"}, {"prompt": "swing", "progression": []}],
    ),
}

# One valid request per operation; the sweep sets one field at a time to each odd value.
BASE: dict[str, dict[str, Any]] = {
    "analyze": {"chord": "Dm7", "key": "C"},
    "resolve": {"chord": "G13"},
    "identify": {"notes": ["C4", "E4", "G4"]},
    "voicing": {"chord": "Cmaj7"},
    "reharmonize": {"progression": "Dm7 G7 Cmaj7", "key": "C"},
    "conduct": {"prompt": "medium swing blues in F"},
}
ODD: list[Any] = [None, True, False, 0, -1, 7, 1.5, 10**9, "", " ", "x" * 300, "C", [], [None],
                  ["C"] * 300, [1, 2], [48, 84, 90], {}, {"a": 1}]


def _engine_refuses(name: str, request: Any) -> bool:
    try:
        OPERATIONS[name].function(request)
    except HarmonyError:
        return True
    return False


def test_operations_that_skip_the_schema_have_agreement_cases() -> None:
    assert {n for n, op in OPERATIONS.items() if op.engine_checks} <= set(AGREEMENT) & set(BASE)


@pytest.mark.parametrize("name", CHECKED)
def test_schema_and_engine_agree_on_chosen_requests(name: str) -> None:
    valid, invalid = AGREEMENT[name]
    validator = OPERATIONS[name].validator
    for request in valid:
        assert validator.is_valid(request), request
        OPERATIONS[name].function(request)  # answers
    for request in invalid:
        assert not validator.is_valid(request), request
        assert _engine_refuses(name, request), request


@pytest.mark.parametrize("name", CHECKED)
def test_engine_refuses_every_odd_field_the_schema_refuses(name: str) -> None:
    op = OPERATIONS[name]
    for field in [*op.request_schema["properties"], "other"]:
        base = BASE[name]
        if field == "keyContext":  # the alias is read only when 'key' is absent
            base = {k: v for k, v in base.items() if k != "key"}
        for value in ODD:
            request = {**base, field: value}
            if not op.validator.is_valid(request):
                assert _engine_refuses(name, request), request


def _value() -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                        st.floats(allow_nan=False, allow_infinity=False),
                        st.sampled_from(["C", "Dm7", "G7b9", "Cm", "F lydian", "", " ", "H"]),
                        st.text(max_size=40))
    return st.one_of(scalars, st.lists(scalars, max_size=3), st.dictionaries(st.text(), scalars,
                                                                             max_size=2))


@pytest.mark.parametrize("name", CHECKED)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_engine_refuses_whatever_the_schema_refuses(name: str, data: st.DataObject) -> None:
    fields = sorted(OPERATIONS[name].request_schema["properties"])
    request = data.draw(st.dictionaries(st.sampled_from([*fields, "other"]), _value(),
                                        max_size=len(fields) + 1))
    if not OPERATIONS[name].validator.is_valid(request):
        assert _engine_refuses(name, request), request


# The other direction: what the schema (OpenAPI, MCP inputSchema) accepts, the engine answers,
# and what the engine refuses as a malformed request, the schema refuses too.
ENGINE_REFUSES: dict[str, list[Any]] = {
    "analyze": [{"chord": " "}, {"chord": "\t\n"}, {"chord": "0"}, {"chord": " 7"}],
    "resolve": [{"chord": "  "}, {"chord": "0"}, {"chord": "C", "octave": 10},
                {"chord": "B##", "octave": -3}],
    "identify": [{"notes": []}, {"pcs": [12]}, {"notes": [200]}],
    "voicing": [{"chord": "C", "progression": "Dm7 G7"}, {"chord": "C", "progression": ["G7"]},
                {"chord": None}, {"progression": None}, {"chord": None, "progression": None},
                {"progression": "|"}, {"progression": " | | "}, {"progression": ["|"]},
                {"progression": [" | ", "|\t"]}, {"progression": "Dm7 0 G7"},
                {"progression": ["Dm7", "|C"]}],
    "reharmonize": [{"progression": "|"}, {"progression": "  "}, {"progression": ["|", "|"]},
                    # list items are trimmed: " |" is a bar line too
                    {"progression": ["|", " |"]}, {"progression": ["\u3000|\n"]},
                    {"progression": "0"}, {"progression": "Dm7|x7"}],
    "conduct": [{"prompt": "   "}, {"prompt": "swing", "progression": "|"},
                {"prompt": "swing", "progression": ["| ", " |"]},
                {"prompt": "swing", "seed": 2**70}, {"prompt": "swing", "seed": -(2**70)},
                {"prompt": "swing", "seed": 2**63}, {"prompt": "swing", "seed": -(2**63) - 1},
                {"prompt": "swing", "progression": "0"},
                {"prompt": "swing", "progression": ["Dm7 G7 |", "| 0"]}],
    # the operations REST checks by schema first (search, compose, render): what they refuse
    "search": [{"limit": 5}, {"title": " ", "pattern": ""}, {"pattern": None, "title": None}],
    "compose": [{"operations": [{"op": "voice"}]}, {"operations": [{"op": "nope"}]},
                {"composition": None, "operations": [{"op": "transpose", "key": "F"}]},
                {"composition": {}, "operations": [{"op": "voice"}]},
                {"composition": {"version": 2, "meta": {}, "sections": [], "form": [],
                                 "tracks": []}, "operations": [{"op": "voice"}]}],
    "render": [{"midi": "0"}, {"midi": "AAAA"}, {"midi": "TVRoZ!"},
               {"arrangement": {"midi": "bm90IG1pZGk="}}],
}
ENGINE_ACCEPTS: dict[str, list[Any]] = {
    # JSON clients send 4.0 for 4 (Python's json does); JSON Schema's "integer" admits it.
    "resolve": [{"chord": "C", "octave": 4.0}, {"chord": "C", "octave": 3},
                # the bounds of 'octave' are the widest any chord takes: B#-2 is MIDI 0
                {"chord": "B#", "octave": -2}, {"chord": "C", "octave": 9},
                {"chord": "\x85C\u3000"}],
    "voicing": [{"chord": "C", "range": [48.0, 84.0]}, {"chord": "C", "previous": [60.0, "E4"]},
                {"chord": "C", "progression": None}, {"progression": "Dm7 G7", "chord": None},
                {"progression": ["|", "Dm7", "|"]}, {"progression": "|Dm7|\x1fG7 |"}],
    "conduct": [{"prompt": "swing", "seed": 4.0}, {"prompt": "swing", "seed": 2**63 - 1},
                {"prompt": "swing", "seed": -(2**63)}, {"prompt": " swing "},
                {"prompt": "swing", "progression": ["|Dm7 G7", "Cmaj7|", "", "NC"]}],
    "search": [{"title": "blues"}, {"pattern": "", "similarTo": "C7 F7 C7"}],
    "render": [{"midi": "TVRo\nZAAAAAYAAAABAeBNVHJrAAAAIAD/UQMHoSAAwAAAkEVkg2CARQAAkEhkg2CASAAA/y8A",
                "engine": "basic"}],
}


@pytest.mark.parametrize("name", sorted(ENGINE_REFUSES))
def test_schema_refuses_what_the_engine_refuses(name: str) -> None:
    op = OPERATIONS[name]
    for request in ENGINE_REFUSES[name]:
        assert _engine_refuses(name, request), request
        assert not op.validator.is_valid(request), request


@pytest.mark.parametrize("name", sorted(ENGINE_ACCEPTS))
def test_engine_answers_what_the_schema_accepts(name: str) -> None:
    op = OPERATIONS[name]
    for request in ENGINE_ACCEPTS[name]:
        assert op.validator.is_valid(request), request
        op.function(request)  # answers


def test_integral_floats_read_as_integers() -> None:
    assert OPERATIONS["resolve"].function({"chord": "C", "octave": 4.0}) == \
        OPERATIONS["resolve"].function({"chord": "C", "octave": 4})
    voicing = OPERATIONS["voicing"].function
    assert voicing({"chord": "G7", "previous": [64.0, 65], "range": [40.0, 80]}) == \
        voicing({"chord": "G7", "previous": [64, 65], "range": [40, 80]})
