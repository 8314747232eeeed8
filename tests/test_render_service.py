"""``POST /v2/render`` on the app, in-process (API.md 12): JSON or the audio itself by
``Accept``, the facts in ``X-Render-*`` headers, its 1 MiB body cap, the job pool's 503 busy, a
render counted as one call, OpenAPI's unstable mark, and hosted /mcp keeping its six tools."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
from pathlib import Path
from typing import Any

import orjson
import soundfile

from server.api.schemas import OPERATIONS
from tests.server_fixtures import bearer, error_of, make, new_key, run, running
from tests.test_render import b64, midi_of

MIDI = b64(midi_of([(0.0, 0.5, 60, 90), (0.5, 0.5, 67, 90)]))


def _app(tmp_path: Path, **settings: Any) -> tuple[Any, str]:
    app, store = make(tmp_path, operations=OPERATIONS, **settings)
    _, secret = new_key(store, plan="developer")
    return app, secret


def test_json_answer_with_the_audio_in_base64(tmp_path: Path) -> None:
    app, secret = _app(tmp_path)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            r = await http.post("/v2/render", json={"midi": MIDI, "engine": "basic"})
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["format"] == "wav" and body["engine"] == "basic"
            audio = base64.b64decode(body["audio"])
            assert hashlib.sha256(audio).hexdigest() == body["sha256"]
            assert r.headers["x-quota-used"] == "1"  # a render is one call
            again = await http.post("/v2/render", json={"midi": MIDI, "engine": "basic"})
            assert again.content == r.content
            assert again.headers["x-quota-used"] == "2"

    run(scenario())


def test_accept_audio_answers_the_bytes_with_the_facts_in_headers(tmp_path: Path) -> None:
    app, secret = _app(tmp_path)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            r = await http.post("/v2/render", json={"midi": MIDI, "engine": "basic"},
                                headers={"accept": "audio/flac, application/json;q=0.5"})
            assert r.status_code == 200
            assert r.headers["content-type"] == "audio/flac"
            assert r.headers["x-render-format"] == "flac"
            assert r.headers["x-render-engine"] == "basic"
            assert "x-render-soundfont" not in r.headers
            assert r.headers["x-render-sha256"] == hashlib.sha256(r.content).hexdigest()
            samples, rate = soundfile.read(io.BytesIO(r.content))
            assert rate == int(r.headers["x-render-sample-rate"]) == 44100
            assert samples.shape[1] == int(r.headers["x-render-channels"]) == 2
            assert float(r.headers["x-render-duration-sec"]) == round(len(samples) / rate, 3)
            # the body's format wins over the Accept type's default
            wav = await http.post("/v2/render", json={"midi": MIDI, "engine": "basic",
                                                      "format": "wav"},
                                  headers={"accept": "audio/*"})
            assert wav.headers["content-type"] == "audio/wav" and wav.content[:4] == b"RIFF"

    run(scenario())


def test_bad_requests_get_the_contract_errors(tmp_path: Path) -> None:
    app, secret = _app(tmp_path)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            r = await http.post("/v2/render", json={"midi": MIDI, "format": "ogg"})
            assert (r.status_code, error_of(r)) == (400, "invalid_request")
            assert r.json()["error"]["field"] == "format"
            # refused in the worker process: the error crosses back whole
            r = await http.post("/v2/render", json={"midi": b64(b"not a midi file")})
            assert (r.status_code, r.json()["error"]["field"]) == (400, "midi")
            r = await http.post("/v2/render", json={"engine": "basic"})
            assert (r.status_code, error_of(r)) == (400, "invalid_request")
            r = await http.post("/v2/render", content=b"{not json")
            assert (r.status_code, error_of(r)) == (400, "invalid_request")

    run(scenario())


def test_render_takes_bodies_up_to_1_mib_and_other_routes_64_kib(tmp_path: Path) -> None:
    app, secret = _app(tmp_path)
    padded = orjson.dumps({"midi": MIDI, "engine": "basic"})[:-1] + b" " * 300_000 + b"}"

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            r = await http.post("/v2/render", content=padded)  # 300 KB: read and rendered
            assert r.status_code == 200 and r.json()["engine"] == "basic"
            big = b'{"midi": "' + b"A" * (1 << 20) + b'"}'
            r = await http.post("/v2/render", content=big)
            assert (r.status_code, error_of(r)) == (413, "payload_too_large")
            assert "1 MiB" in r.json()["error"]["message"]
            r = await http.post("/v2/analyze", content=b'{"chord": "' + b"C" * 70_000 + b'"}')
            assert (r.status_code, error_of(r)) == (413, "payload_too_large")

    run(scenario())


def test_a_full_pool_answers_503_busy_with_retry_after(tmp_path: Path) -> None:
    app, secret = _app(tmp_path, render_workers=1, render_queue=0)
    slow = {"prompt": "up-tempo funk in E minor", "durationSec": 120, "engine": "basic"}

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            first = asyncio.ensure_future(http.post("/v2/render", json=slow))
            for _ in range(2000):
                if app.jobs.in_flight:
                    break
                await asyncio.sleep(0.005)
            assert app.jobs.in_flight == 1
            busy = await http.post("/v2/render", json={"midi": MIDI})
            assert (busy.status_code, error_of(busy)) == (503, "busy")
            assert int(busy.headers["retry-after"]) >= 1
            assert busy.json()["error"]["retryAfter"] == int(busy.headers["retry-after"])
            health = await http.get("/health")  # the loop keeps answering meanwhile
            assert health.status_code == 200
            done = await first
            assert done.status_code == 200
            assert (await http.post("/v2/render", json={"midi": MIDI})).status_code == 200

    run(scenario())


def test_openapi_marks_render_unstable_and_hosted_mcp_keeps_its_six_tools(tmp_path: Path) -> None:
    app, _ = _app(tmp_path)

    async def scenario() -> None:
        async with running(app) as http:
            spec = (await http.get("/openapi.json")).json()
            post = spec["paths"]["/v2/render"]["post"]
            assert post["x-unstable"] is True
            assert "x-unstable" not in spec["paths"]["/v2/analyze"]["post"]
            assert "1 MiB" in post["responses"]["413"]["description"]
            listing = await http.post("/mcp", json={"jsonrpc": "2.0", "id": 1,
                                                    "method": "tools/list"})
            names = sorted(t["name"] for t in listing.json()["result"]["tools"])
            assert names == ["analyze_chord", "conduct_band", "generate_voicing",
                             "identify_chord", "reharmonize", "resolve_chord"]

    run(scenario())
