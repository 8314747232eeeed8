"""Corpus search on every surface: ``POST /v2/search`` (the shipped corpus, and the user's own
through ``HARMONY_CORPUS``), ``search_corpus`` on ``harmony-conductor``, and the command line
(``harmony corpus import`` writing an index folder, ``harmony search`` reading it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
from mcp import Client

import engine
from server.api.schemas import OPERATIONS
from tests.server_fixtures import bearer, error_of, make, new_key, run, running
from tests.test_conductor import stdio

HARMONY = str(Path(sys.executable).parent / "harmony")
MY_TUNE = "Title = My Tune\nComposedBy = Me\nKey = G\n Am7 | D7 | Gmaj7 | Cm7 F7 | Gmaj7 |\n"


def test_rest_search_answers_as_the_engine(tmp_path: Path) -> None:
    app, store = make(tmp_path, operations=OPERATIONS)
    _, secret = new_key(store)
    request = {"pattern": "ii7 V7 Imaj7", "limit": 5}

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            r = await http.post("/v2/search", json=request)
            assert r.status_code == 200
            assert r.content == orjson.dumps(engine.search(request))
            assert r.headers["x-quota-used"] == "1"
            bad = await http.post("/v2/search", json={"pattern": "Dm7", "limit": 0})
            assert (bad.status_code, error_of(bad)) == (400, "invalid_request")
            chord = await http.post("/v2/search", json={"pattern": "Dm7 Xyz"})
            assert (chord.status_code, error_of(chord)) == (400, "invalid_chord")

    run(scenario())


def test_rest_search_reads_the_configured_corpus(tmp_path: Path) -> None:
    charts = tmp_path / "charts"
    charts.mkdir()
    (charts / "mine.txt").write_text(MY_TUNE)
    app, store = make(tmp_path, operations=OPERATIONS, corpus=str(charts))
    _, secret = new_key(store)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            mine = (await http.post("/v2/search", json={"title": "my tune"})).json()
            assert [r["id"] for r in mine["results"]] == ["mine"]
            shipped = (await http.post("/v2/search", json={"title": "georgia"})).json()
            assert shipped["total"] == 1  # the project's corpus is searched too

    run(scenario())


def test_the_conductor_searches_the_users_corpus(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text(MY_TUNE)

    async def script(client: Client) -> Any:
        return await client.call_tool("search_corpus", {"pattern": "iv7 bVII7 Imaj7"})

    found = stdio({"HARMONY_CORPUS": str(tmp_path)}, script)
    assert not found.is_error
    ids = [r["id"] for r in found.structured_content["results"]]
    assert "mine" in ids and "form-backdoor" in ids


def test_command_line_import_then_search(tmp_path: Path) -> None:
    charts = tmp_path / "charts"
    charts.mkdir()
    (charts / "mine.txt").write_text(MY_TUNE)
    (charts / "bad.txt").write_text("Title = Bad\n Cmaj7 | Qm7 |\n")
    env = {k: v for k, v in os.environ.items() if k != "HARMONY_CORPUS"}
    done = subprocess.run([HARMONY, "corpus", "import", str(charts), "--out", "idx"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                          check=True, stdin=subprocess.DEVNULL)
    summary = json.loads(done.stdout)
    assert summary["skipped"] == 1 and summary["songs"] == 2 + len(
        engine.corpus.shipped_index().songs)
    assert "bad.txt" in done.stderr and "'Qm7'" in done.stderr and "bar 2" in done.stderr
    assert (tmp_path / "idx" / "tokens.npy").is_file()
    found = subprocess.run([HARMONY, "search", "ii7 V7 Imaj7", "--key", "G", "--exact"],
                           cwd=tmp_path,
                           env={**env, "HARMONY_CORPUS": str(tmp_path / "idx")},
                           capture_output=True, text=True, timeout=120, check=True,
                           stdin=subprocess.DEVNULL)
    assert [r["id"] for r in json.loads(found.stdout)["results"]] == ["mine"]
    refused = subprocess.run([HARMONY, "search", "--limit", "5"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120,
                             stdin=subprocess.DEVNULL)
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["error"]["code"] == "invalid_request"
