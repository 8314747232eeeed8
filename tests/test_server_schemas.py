"""The schema table: well-formed JSON Schemas, one entry per operation of the contract, and the
golden results of every landed operation conform to their declared result schema."""

from __future__ import annotations

import jsonschema
import orjson
import pytest

from server.schemas import BY_PATH, BY_TOOL, OPERATIONS
from tests.golden import cases, operations

CONTRACT = {
    "analyze": ("/v2/analyze", "analyze_chord"),
    "resolve": ("/v2/resolve", "resolve_chord"),
    "voicing": ("/v2/voicing", "generate_voicing"),
    "reharmonize": ("/v2/reharmonize", "reharmonize"),
    "conduct": ("/v2/conduct", "conduct_band"),
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
