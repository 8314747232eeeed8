"""``harmony-compose`` through the SDK's stdio client (the ten ``compose_*`` tools and
``play_composition``), ``POST /v2/compose`` on the app, and ``harmony compose`` / ``harmony
export`` on the command line: the same compositions as the Python function."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
from mcp import Client

from engine import compose
from server.api.schemas import OPERATIONS
from tests.mcp_live import running_server, stdio_session
from tests.server_fixtures import bearer, error_of, make, new_key, run, running
from tests.test_compose import CREATE, SESSION
from tests.test_stdio import error_of as tool_error_of

COMPOSER = str(Path(sys.executable).parent / "harmony-compose")
HARMONY = str(Path(sys.executable).parent / "harmony")
TOOLS = sorted([f"compose_{op}" for op in ("create", "add_section", "set_chords", "set_form",
                                           "reharmonize", "voice", "arrange", "add_notes",
                                           "transpose", "export")] + ["play_composition"])


def stdio(env: dict[str, str], script: Any) -> Any:
    return stdio_session(COMPOSER, env, script)


def test_the_tools_build_the_same_composition_as_the_engine(tmp_path: Path) -> None:
    """A session passing compositionId from answer to answer: each answer an id, a summary and
    the result, within 8 KB; the composition kept equals the engine's."""
    record = tmp_path / "played.json"
    player = tmp_path / "player.py"
    player.write_text(f"import json, sys\nopen({str(record)!r}, 'w').write("
                      "json.dumps(sys.argv[1:]))\n")
    store = tmp_path / "store"

    async def script(client: Client) -> Any:
        listing = await client.list_tools()
        key = None
        answers = []
        for step in SESSION:
            args = {k: v for k, v in step.items() if k != "op"}
            if key is not None:
                args["compositionId"] = key
            answer = await client.call_tool(f"compose_{step['op']}", args)
            assert not answer.is_error, answer.content
            key = answer.structured_content["compositionId"]
            answers.append(answer)
        whole = await client.call_tool("compose_transpose", {"compositionId": key,
                                                             "semitones": 0,
                                                             "includeComposition": True})
        bad = await client.call_tool("compose_set_chords", {
            "compositionId": key, "section": "Q", "progression": "C"})
        played = await client.call_tool("play_composition", {"compositionId": key,
                                                             "wait": True})
        return listing, answers, whole, bad, played

    listing, answers, whole, bad, played = stdio(
        {"HARMONY_AUDIO_PLAYER": f"{sys.executable} {player}",
         "HARMONY_COMPOSITIONS": str(store)}, script)
    assert sorted(t.name for t in listing.tools) == TOOLS
    expected = compose({"operations": SESSION})
    for answer in answers:
        assert set(answer.structured_content) == {"compositionId", "summary", "result"}
        assert len(answer.content[0].text.encode()) <= 8192
        assert answer.content[0].text.encode() == orjson.dumps(answer.structured_content)
    results = [a.structured_content["result"] for a in answers]
    assert orjson.dumps(results[:-1]) == orjson.dumps(expected["results"][:-1])
    export = expected["results"][-1]
    assert {f: export[f] for f in results[-1] if f != "omitted"} == {
        f: v for f, v in results[-1].items() if f != "omitted"}
    assert set(results[-1]) - {"omitted"} | set(results[-1].get("omitted", {})) == set(export)
    final = answers[-1].structured_content
    assert orjson.dumps(whole.structured_content["composition"]) == orjson.dumps(
        expected["composition"])
    # the kept file is the composition; its id names it
    kept = store / f"{final['compositionId']}.json"
    assert orjson.loads(kept.read_bytes()) == expected["composition"]
    assert final["compositionId"].startswith("test-tune-")
    summary = final["summary"]
    assert (summary["title"], summary["key"], summary["form"], summary["bars"]) == (
        "Test Tune", "Bb", ["A", "A", "B", "C", "A"], 20)
    assert summary["sections"][0] == {"id": "A", "bars": 4,
                                      "chords": "| Cm7 F7 | Bbmaj7 | Eb7 | Bbmaj7 |"}
    assert [(t["role"], t["events"] > 0) for t in summary["tracks"]] == [
        (t["role"], True) for t in expected["composition"]["tracks"]]
    assert tool_error_of(bad)["field"] == "section"
    assert not played.is_error, played.content
    path = played.structured_content["path"]
    assert json.loads(record.read_text()) == [path] and path.endswith(".wav")


def test_a_whole_composition_inline_still_works(tmp_path: Path) -> None:
    async def script(client: Client) -> Any:
        made = await client.call_tool("compose_create", {**{k: v for k, v in CREATE.items()
                                                            if k != "op"},
                                                         "includeComposition": True})
        comp = made.structured_content["composition"]
        moved = await client.call_tool("compose_transpose", {"composition": comp, "key": "G"})
        both = await client.call_tool("compose_transpose", {
            "composition": comp, "compositionId": made.structured_content["compositionId"],
            "key": "G"})
        neither = await client.call_tool("compose_transpose", {"key": "G"})
        misspelt = await client.call_tool("compose_transpose", {"composition": comp,
                                                                "kee": "G"})
        return comp, moved, both, neither, misspelt

    comp, moved, both, neither, misspelt = stdio({}, script)
    expected = compose({"composition": comp, "operations": [{"op": "transpose", "key": "G"}]})
    assert moved.structured_content["result"] == expected["results"][0]
    assert moved.structured_content["summary"]["key"] == "G"
    assert tool_error_of(both)["field"] == "composition"
    assert tool_error_of(neither)["field"] == "compositionId"
    error = tool_error_of(misspelt)
    assert error["field"] == "kee" and "did you mean 'key'?" in error["message"]


def test_the_store_is_bounded_and_says_when_an_id_is_gone(tmp_path: Path) -> None:
    store = tmp_path / "store"

    async def script(client: Client) -> Any:
        first = await client.call_tool("compose_create", {"title": "One", "progression":
                                                          "A: Dm7 | G7 | Cmaj7 | Cmaj7"})
        key = first.structured_content["compositionId"]
        keys = [key]
        for semitones in (1, 2, 3):
            answer = await client.call_tool("compose_transpose", {"compositionId": keys[-1],
                                                                  "semitones": semitones})
            keys.append(answer.structured_content["compositionId"])
        gone = await client.call_tool("compose_transpose", {"compositionId": key,
                                                            "semitones": 1})
        return keys, gone

    keys, gone = stdio({"HARMONY_COMPOSITIONS": str(store),
                        "HARMONY_COMPOSITIONS_MAX_FILES": "3"}, script)
    assert len(set(keys)) == 4
    assert sorted(p.stem for p in store.iterdir()) == sorted(keys[1:])
    error = tool_error_of(gone)
    assert error["field"] == "compositionId" and f"no composition {keys[0]!r}" in error["message"]


def test_an_export_is_written_to_files_or_kept_within_the_budget(tmp_path: Path) -> None:
    target = tmp_path / "tune.musicxml"

    async def script(client: Client) -> Any:
        made = await client.call_tool("compose_create", {k: v for k, v in CREATE.items()
                                                         if k != "op"})
        key = made.structured_content["compositionId"]
        arranged = await client.call_tool("compose_arrange", {"compositionId": key})
        key = arranged.structured_content["compositionId"]
        # the form cut to A B A: its MusicXML (note types, barlines, an instrument) fits the
        # answer, its MIDI does not
        shorter = await client.call_tool("compose_set_form", {"compositionId": key,
                                                               "form": ["A", "B", "A"]})
        key = shorter.structured_content["compositionId"]
        args = {"compositionId": key, "formats": ["musicxml", "midi", "leadsheet"]}
        inline = await client.call_tool("compose_export", args)
        written = await client.call_tool("compose_export", {**args, "path": str(target)})
        again = await client.call_tool("compose_export", {**args, "path": str(target)})
        return inline, written, again

    inline, written, again = stdio({}, script)
    result = inline.structured_content["result"]
    assert result["leadsheet"].startswith("| Gm7 C7 |")
    assert result["musicxml"].startswith("<?xml")  # what fits comes back, in order
    assert set(result["omitted"]) == {"midi"}
    assert "call compose_export again with path" in result["omitted"]["midi"]
    assert len(orjson.dumps(inline.structured_content)) <= 8192
    files = written.structured_content["result"]["written"]
    assert files == {"musicxml": str(target), "midi": str(tmp_path / "tune.mid"),
                     "leadsheet": str(tmp_path / "tune.txt")}
    assert (tmp_path / "tune.mid").read_bytes()[:4] == b"MThd"
    assert target.read_text().startswith("<?xml")
    assert (tmp_path / "tune.txt").read_text() == result["leadsheet"]
    error = tool_error_of(again)
    assert error["field"] == "path" and "overwrite: true" in error["message"]


def test_proxy_mode_composes_on_the_service_and_keeps_the_composition_here(tmp_path: Path
                                                                          ) -> None:
    store = tmp_path / "store"

    (tmp_path / "service").mkdir()
    with running_server(tmp_path / "service") as server:
        env = {"HARMONY_BASE_URL": server.url, "SERVICE_API_KEY": server.key or "",
               "HARMONY_COMPOSITIONS": str(store)}

        async def script(client: Client) -> Any:
            made = await client.call_tool("compose_create", {k: v for k, v in CREATE.items()
                                                             if k != "op"})
            key = made.structured_content["compositionId"]
            moved = await client.call_tool("compose_transpose", {"compositionId": key,
                                                                 "key": "G"})
            bad = await client.call_tool("compose_set_form", {"compositionId": key,
                                                              "form": ["Z"]})
            return moved, bad

        moved, bad = stdio(env, script)
    expected = compose({"operations": [CREATE, {"op": "transpose", "key": "G"}]})
    assert moved.structured_content["result"] == expected["results"][1]
    kept = store / f"{moved.structured_content['compositionId']}.json"
    assert orjson.loads(kept.read_bytes()) == expected["composition"]
    assert tool_error_of(bad)["field"] == "form[0]"  # the service's error, its field flat


def test_rest_compose_answers_as_the_engine(tmp_path: Path) -> None:
    app, store = make(tmp_path, operations=OPERATIONS)
    _, secret = new_key(store)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            r = await http.post("/v2/compose", json={"operations": SESSION})
            assert r.status_code == 200
            assert r.content == orjson.dumps(compose({"operations": SESSION}))
            bad = await http.post("/v2/compose", json={"operations": [
                CREATE, {"op": "voice", "style": "cluster"}]})
            assert (bad.status_code, error_of(bad)) == (400, "invalid_request")
            assert bad.json()["error"]["field"] == "operations[1].style"
            spec = (await http.get("/openapi.json")).json()
            assert spec["paths"]["/v2/compose"]["post"]["x-unstable"] is True

    run(scenario())


def test_command_line_compose_and_export(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()}

    def harmony(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([HARMONY, *args], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)

    made = harmony("compose", "tune.json", "--op", json.dumps(CREATE), "--op",
                   '{"op": "transpose", "key": "G"}')
    assert made.returncode == 0, made.stderr
    comp = json.loads((tmp_path / "tune.json").read_text())
    assert comp["meta"]["key"] == "G"
    assert json.loads(made.stdout)[1] == {"key": "G", "semitones": 2}
    out = harmony("export", "tune.json", "--format", "musicxml")
    assert out.returncode == 0 and (tmp_path / "tune.musicxml").read_text().startswith("<?xml")
    assert harmony("export", "tune.json", "--format", "midi", "-o", "t.mid").returncode == 0
    assert (tmp_path / "t.mid").read_bytes()[:4] == b"MThd"
    bad = harmony("compose", "tune.json", "--op", '{"op": "set_form", "form": ["Z"]}')
    assert bad.returncode == 1 and json.loads(bad.stdout)["error"]["field"] == "operations[0].form[0]"
    assert json.loads((tmp_path / "tune.json").read_text()) == comp  # nothing applied
