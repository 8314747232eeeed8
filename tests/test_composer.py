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
from tests.mcp_live import stdio_session
from tests.server_fixtures import bearer, error_of, make, new_key, run, running
from tests.test_compose import CREATE, SESSION

COMPOSER = str(Path(sys.executable).parent / "harmony-compose")
HARMONY = str(Path(sys.executable).parent / "harmony")
TOOLS = sorted([f"compose_{op}" for op in ("create", "add_section", "set_chords", "set_form",
                                           "reharmonize", "voice", "arrange", "add_notes",
                                           "transpose", "export")] + ["play_composition"])


def stdio(env: dict[str, str], script: Any) -> Any:
    return stdio_session(COMPOSER, env, script)


def test_the_tools_build_the_same_composition_as_the_engine(tmp_path: Path) -> None:
    record = tmp_path / "played.json"
    player = tmp_path / "player.py"
    player.write_text(f"import json, sys\nopen({str(record)!r}, 'w').write("
                      "json.dumps(sys.argv[1:]))\n")

    async def script(client: Client) -> Any:
        listing = await client.list_tools()
        comp = None
        results = []
        for step in SESSION:
            args = {k: v for k, v in step.items() if k != "op"}
            if comp is not None:
                args["composition"] = comp
            answer = await client.call_tool(f"compose_{step['op']}", args)
            assert not answer.is_error, answer.content
            comp = answer.structured_content["composition"]
            results.append(answer.structured_content["result"])
        bad = await client.call_tool("compose_set_chords", {
            "composition": comp, "section": "Q", "progression": "C"})
        played = await client.call_tool("play_composition", {"composition": comp,
                                                             "wait": True})
        return listing, comp, results, bad, played

    listing, comp, results, bad, played = stdio(
        {"HARMONY_AUDIO_PLAYER": f"{sys.executable} {player}"}, script)
    assert sorted(t.name for t in listing.tools) == TOOLS
    whole = compose({"operations": SESSION})
    assert orjson.dumps(comp) == orjson.dumps(whole["composition"])
    assert orjson.dumps(results) == orjson.dumps(whole["results"])
    assert bad.is_error and bad.structured_content["error"]["field"] == "section"
    assert not played.is_error, played.content
    path = played.structured_content["path"]
    assert json.loads(record.read_text()) == [path] and path.endswith(".wav")
    Path(path).unlink()


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
