"""Work bounded from the request (issue 35, API.md 9): compose's operations x events, one export
per format, the notes an export writes and the answer's bytes; JSON nested too deep and numbers
too large answered ``invalid_request``, never a 500. Each asserts the status and the bound."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from engine import compose
from engine.compose import operation
from engine.compose.operation import MAX_EXPORT_NOTES, MAX_WORK
from engine.errors import InvalidRequest
from server.api.jsonbody import MAX_DEPTH, decode, depth
from server.api.schemas import OPERATIONS
from tests.server_fixtures import bearer, error_of, make, new_key, run, running


def composition(notes: int, plays: int = 1, bars: int = 64) -> dict[str, Any]:
    """A composition of one ``bars``-bar section played ``plays`` times, with ``notes`` melody
    notes in it."""
    comp, _ = operation.apply(None, [{"op": "create", "title": "Bounds", "key": "C",
                                      "progression": "A: " + " | ".join(["Dm7 G7"] * bars),
                                      "form": ["A"] * plays}])
    length = bars * 4 * 480
    comp["tracks"].append({"id": "melody", "role": "melody", "program": 65, "channel": 3,
                           "events": {"A": [[i * length // notes, 60, 60 + i % 12, 80]
                                            for i in range(notes)]}})
    return comp


def refused(request: dict[str, Any]) -> InvalidRequest:
    with pytest.raises(InvalidRequest) as error:
        compose(request)
    return error.value


# ------------------------------------------------------------------ compose


def test_a_format_exported_twice_in_a_request_is_refused_before_any_work() -> None:
    comp = composition(10)
    error = refused({"composition": comp, "operations": [
        {"op": "export", "formats": ["midi", "leadsheet"]}, {"op": "transpose", "semitones": 2},
        {"op": "export", "formats": ["ireal", "midi"]}]})
    assert error.field == "operations[2].formats" and "midi again" in error.message
    twice = refused({"composition": comp, "operations": [
        {"op": "export", "formats": ["musicxml", "musicxml"]}]})
    assert twice.field == "operations[0].formats" and "twice" in twice.message


def test_every_format_once_is_one_request() -> None:
    comp = composition(10)
    result = compose({"composition": comp, "operations": [
        {"op": "export", "formats": ["midi", "musicxml"]},
        {"op": "export", "formats": ["ireal", "chordpro", "leadsheet", "analysis"]}]})
    assert set(result["results"][0]) | set(result["results"][1]) == \
        {*operation.FORMATS, "irealChanges"}   # with the iReal link: what it had to change


def test_operations_times_events_over_the_budget_is_refused_at_once() -> None:
    events = MAX_WORK // 64 + 1
    comp = composition(events, bars=256)
    error = refused({"composition": comp,
                     "operations": [{"op": "transpose", "semitones": 1}] * 64})
    assert error.field == "operations" and f"{MAX_WORK:,}" in error.message
    # the same composition takes fewer operations
    assert len(compose({"composition": comp, "operations": [
        {"op": "transpose", "semitones": 1}] * 2})["results"]) == 2


def test_operations_that_make_events_count_them_as_they_go(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(operation, "MAX_WORK", 200_000)  # the mechanism, at a smaller scale
    notes = [[i * 3, 3, 60, 80] for i in range(200_000 // 60 + 1)]
    error = refused({"operations": [
        {"op": "create", "title": "t", "progression": "A: " + " | ".join(["C"] * 256)},
        *({"op": "add_notes", "section": "A", "notes": notes} if i == 0 else
          {"op": "set_form", "form": ["A"]} for i in range(63))]})
    assert error.details["operation"] < 63 and "200,000" in error.message


def test_an_export_writes_at_most_max_export_notes() -> None:
    comp = composition(MAX_EXPORT_NOTES // 16 + 1, plays=16)
    for fmt in ("midi", "musicxml"):
        error = refused({"composition": comp, "operations": [{"op": "export",
                                                              "formats": [fmt]}]})
        assert error.field == "operations[0].formats"
        assert f"{MAX_EXPORT_NOTES:,}" in error.message and fmt in error.message
    # formats whose size does not follow the notes still export
    assert compose({"composition": comp, "operations": [
        {"op": "export", "formats": ["leadsheet", "ireal"]}]})["results"][0]["ireal"]


def test_the_answer_bytes_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    comp = composition(400)
    monkeypatch.setattr(operation, "MAX_ANSWER_BYTES", 4096)
    error = refused({"composition": comp, "operations": [{"op": "export",
                                                          "formats": ["musicxml"]}]})
    assert error.field == "operations[0]" and "at most 4,096 bytes" in error.message


def test_arrange_over_conducts_chord_limit_names_no_field_the_request_lacks() -> None:
    error = refused({"operations": [
        {"op": "create", "title": "Long", "progression": "A: " + " | ".join(["Dm7 G7"] * 160)},
        {"op": "arrange", "style": "swing"}]})
    assert error.field == "operations[1]" and "320" in error.message and "256" in error.message


def test_the_copy_of_a_composition_is_the_same_json() -> None:
    comp = composition(50)
    copied = operation._copy(comp)
    assert copied == comp and copied is not comp
    assert orjson.dumps(copied) == orjson.dumps(comp)


# ------------------------------------------------------------------ JSON bodies


@pytest.mark.parametrize(("body", "expected"), [
    (b"1", 0), (b'{"a": [1, {"b": []}]}', 4),
    (b"[" * 64 + b"]" * 64, 64), (b"[" * 65 + b"]" * 65, 65),
    (b'{"s": "' + b"[" * 300 + b'", "t": [[[]]]}', 4),         # brackets in strings count not
    (b'{"s": "\\"[[[[", "t": ' + b"{\"a\":" * 70 + b"1" + b"}" * 70 + b"}", 71),
    (b"[" + b",".join([b"[1]"] * 100) + b"]", 2),             # many, none deep
])
def test_depth_counts_the_nesting_of_arrays_and_objects(body: bytes, expected: int) -> None:
    orjson.loads(body)  # valid JSON
    assert depth(body) == expected


@pytest.mark.parametrize(("body", "said"), [
    (b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"x", "not valid JSON"),
    (b'{"chord": "C", "x": ' + b"[" * 65 + b"]" * 65 + b"}", f"deeper than {MAX_DEPTH}"),
    (b"[" * 2000 + b"]" * 2000, f"deeper than {MAX_DEPTH}"),        # past orjson's own limit
    (b'{"chord": "C", "seed": 1' + b"0" * 400 + b"}", "too large"),
    # orjson reads these as the nearest double, -2**63 and 2**64: never rounded into range
    (b'{"prompt": "swing", "seed": -9223372036854775809}', "too large"),
    (b'{"prompt": "swing", "seed": 18446744073709551616}', "too large"),
])
def test_bodies_the_contract_refuses(body: bytes, said: str) -> None:
    with pytest.raises(InvalidRequest) as error:
        decode(body)
    assert said in error.value.message


@pytest.mark.parametrize("body", [
    b'{"prompt": "swing", "seed": -9223372036854775808}',
    b'{"prompt": "swing", "seed": 18446744073709551615}',
    b'{"title": "12345678901234567890123", "seed": 1.0e30, "x": 12345678901234567890.5}',
])
def test_numbers_orjson_reads_exactly_pass(body: bytes) -> None:
    assert decode(body) == orjson.loads(body)


def test_deep_json_and_huge_numbers_are_400_on_every_route(tmp_path: Path) -> None:
    app, store = make(tmp_path, operations=OPERATIONS)
    _, secret = new_key(store, plan="developer")
    nested = b"[" * 254 + b"]" * 254
    comp = orjson.dumps(composition(4))

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            for path, body in (
                    ("/v2/compose", b'{"composition": ' + comp[:-1] + b', "extra": ' + nested
                     + b'}, "operations": [{"op": "export", "formats": ["leadsheet"]}]}'),
                    ("/v2/compose", b'{"operations": [{"op": "create", "title": "x", "zzz": '
                     + nested + b"}]}"),
                    ("/v2/analyze", b'{"chord": ' + nested + b"}"),
                    ("/v2/render", b'{"midi": ' + nested + b"}"),
                    ("/v2/analyze", b'{"chord": "C", "key": 1' + b"0" * 400 + b"}")):
                r = await http.post(path, content=body,
                                    headers={"content-type": "application/json"})
                assert (r.status_code, error_of(r)) == (400, "invalid_request"), (path, r.text)
            assert app.jobs.processes() == []

    run(scenario())


def test_deep_json_in_a_tool_call_is_400_on_mcp(tmp_path: Path) -> None:
    app, store = make(tmp_path, operations=OPERATIONS)
    _, secret = new_key(store, plan="developer")
    nested = b"[" * 254 + b"]" * 254
    call = (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": '
            b'"analyze_chord", "arguments": {"chord": "C", "x": ' + nested + b"}}}")

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            r = await http.post("/mcp", content=call, headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream"})
            assert r.status_code == 400
            body = r.json()
            assert body["id"] == 7 and body["error"]["data"]["code"] == "invalid_request"

    run(scenario())
