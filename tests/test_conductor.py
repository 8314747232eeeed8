"""``harmony-conductor`` as a subprocess, driven by the SDK's stdio client (API.md 8.3, 12):
its tools, ``render_audio`` writing the file and attaching the audio (never over an existing
file unless ``overwrite``; without a path into the bounded renders folder; progress
notifications), ``play_audio`` through a fake player that records its arguments, through a player
that fails at once and through nothing (``audio_unavailable``), ``ping`` answered while a call
plays, and the proxy mode against a running ``harmony serve``."""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from mcp import Client

import engine
from tests.mcp_live import LiveServer, running_server, stdio_session
from tests.test_render import b64, midi_of
from tests.test_stdio import error_of

CONDUCTOR = str(Path(sys.executable).parent / "harmony-conductor")
TOOLS = ["conduct_band", "play_audio", "render_audio", "search_corpus"]
MIDI = b64(midi_of([(0.0, 0.5, 60, 90), (0.5, 0.5, 64, 90)]))


def stdio(env: dict[str, str], script: Any) -> Any:
    return stdio_session(CONDUCTOR, env, script)


def recorder(tmp_path: Path) -> tuple[str, Path]:
    """A player command that writes its arguments to a file."""
    record = tmp_path / "played.json"
    fake = tmp_path / "player.py"
    fake.write_text(f"import json, sys\nopen({str(record)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    return f"{sys.executable} {fake}", record


def test_lists_its_tools_and_renders_a_file_with_the_audio_attached(tmp_path: Path) -> None:
    target = tmp_path / "take.wav"

    async def script(client: Client) -> Any:
        listing = await client.list_tools()
        rendered = await client.call_tool("render_audio", {"midi": MIDI, "engine": "basic",
                                                           "path": str(target)})
        return listing, rendered

    listing, rendered = stdio({}, script)
    assert sorted(t.name for t in listing.tools) == TOOLS
    assert not rendered.is_error, rendered.content
    result = rendered.structured_content
    assert result["path"] == str(target.resolve()) and result["engine"] == "basic"
    audio = target.read_bytes()
    assert hashlib.sha256(audio).hexdigest() == result["sha256"]
    attached = [c for c in rendered.content if c.type == "audio"]
    assert len(attached) == 1 and attached[0].mime_type == "audio/wav"
    assert base64.b64decode(attached[0].data) == audio


def test_render_without_a_path_goes_to_the_renders_folder_and_can_play_it(tmp_path: Path
                                                                          ) -> None:
    player, record = recorder(tmp_path)
    renders = tmp_path / "renders"

    async def script(client: Client) -> Any:
        return [await client.call_tool("render_audio", {"midi": MIDI, "engine": "basic",
                                                        "format": "flac", "play": True}),
                await client.call_tool("render_audio", {"midi": MIDI, "engine": "basic",
                                                        "format": "flac"})]

    rendered, again = stdio({"HARMONY_AUDIO_PLAYER": player, "HARMONY_RENDERS": str(renders)},
                            script)
    result = rendered.structured_content
    assert not rendered.is_error and result["format"] == "flac"
    path = Path(result["path"])
    assert path == renders / f"harmony-{result['sha256'][:16]}.flac" and path.is_file()
    assert result["played"].startswith("HARMONY_AUDIO_PLAYER")
    for _ in range(200):  # the player runs on in the background
        if record.exists():
            break
        time.sleep(0.05)
    assert json.loads(record.read_text()) == [result["path"]]
    # the same audio again is the same file, not a second one
    assert again.structured_content["path"] == result["path"]
    assert [p.name for p in renders.iterdir()] == [path.name]


def test_the_renders_folder_keeps_its_bound_deleting_the_oldest(tmp_path: Path) -> None:
    renders = tmp_path / "cache" / "harmony" / "renders"  # under XDG_CACHE_HOME
    midis = [b64(midi_of([(0.0, 0.25, pitch, 90)])) for pitch in (60, 62, 64)]

    async def script(client: Client) -> Any:
        return [await client.call_tool("render_audio", {"midi": m, "engine": "basic"})
                for m in midis]

    answers = stdio({"XDG_CACHE_HOME": str(tmp_path / "cache"),
                     "HARMONY_RENDERS_MAX_FILES": "2"}, script)
    paths = [Path(a.structured_content["path"]) for a in answers]
    assert all(p.parent == renders for p in paths)
    assert sorted(renders.iterdir()) == sorted(paths[1:])  # the first, oldest, was deleted


def test_render_never_overwrites_a_file_unless_asked(tmp_path: Path) -> None:
    target = tmp_path / "take.wav"
    target.write_bytes(b"the user's own take")

    async def script(client: Client) -> Any:
        args = {"midi": MIDI, "engine": "basic", "path": str(target)}
        return [await client.call_tool("render_audio", args),
                await client.call_tool("render_audio", {**args, "overwrite": True})]

    refused, replaced = stdio({}, script)
    error = error_of(refused)
    assert error["field"] == "path" and "overwrite: true" in error["message"]
    assert not replaced.is_error
    assert hashlib.sha256(target.read_bytes()).hexdigest() == replaced.structured_content[
        "sha256"]


def test_render_takes_exactly_one_source_and_no_unknown_argument(tmp_path: Path) -> None:
    async def script(client: Client) -> Any:
        return [await client.call_tool("render_audio", {"engine": "basic"}),
                await client.call_tool("render_audio", {"midi": MIDI, "prompt": "a blues"}),
                await client.call_tool("render_audio", {"midi": MIDI, "fromat": "flac"})]

    none, two, misspelt = (error_of(a) for a in stdio({}, script))
    assert none["field"] == "prompt" and "exactly one of 'prompt'" in none["message"]
    assert two["field"] == "midi" and two["message"].endswith("got prompt and midi")
    assert misspelt["field"] == "fromat" and "did you mean 'format'?" in misspelt["message"]


def test_render_reports_progress_when_asked(tmp_path: Path) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def noted(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async def script(client: Client) -> Any:
        return await client.call_tool("render_audio", {"midi": MIDI, "engine": "basic",
                                                       "path": str(tmp_path / "a.wav")},
                                      progress_callback=noted)

    assert not stdio({}, script).is_error
    assert seen[0] == (0, 2, "rendering") and seen[-1] == (2, 2, "done")
    assert (1, 2, "writing the file") in seen
    assert [s[0] for s in seen] == sorted({s[0] for s in seen})  # always rising


def test_play_audio_with_a_player_and_with_none(tmp_path: Path) -> None:
    player, record = recorder(tmp_path)
    wav = tmp_path / "a.wav"

    async def render(client: Client) -> Any:
        return await client.call_tool("render_audio", {"midi": MIDI, "engine": "basic",
                                                       "path": str(wav)})

    stdio({}, render)

    async def play(client: Client) -> Any:
        return await client.call_tool("play_audio", {"path": str(wav), "wait": True})

    played = stdio({"HARMONY_AUDIO_PLAYER": player}, play)
    assert not played.is_error
    assert played.structured_content == {"path": str(wav), "player": played.structured_content[
        "player"], "waited": True}
    assert json.loads(record.read_text()) == [str(wav)]

    home = tmp_path / "home"
    home.mkdir()
    (home / ".asoundrc").write_text("pcm.!default { type hw card 99 }\n")
    nothing = stdio({"HOME": str(home), "PATH": str(home)}, play)
    error = error_of(nothing)
    assert error["code"] == "audio_unavailable" and error["path"] == str(wav)
    assert str(wav) in error["message"]


def test_a_player_that_fails_at_once_is_an_error_not_success(tmp_path: Path) -> None:
    wav = tmp_path / "a.wav"
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nsys.stderr.write('cannot open audio device')\n"
                      "raise SystemExit(1)\n")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".asoundrc").write_text("pcm.!default { type hw card 99 }\n")

    async def render(client: Client) -> Any:
        return await client.call_tool("render_audio", {"midi": MIDI, "engine": "basic",
                                                       "path": str(wav)})

    stdio({}, render)

    async def play(client: Client) -> Any:  # in the background: not waiting for the end
        return await client.call_tool("play_audio", {"path": str(wav)})

    # a generous grace period: the broken player always ends within it, on any machine
    failed = stdio({"HARMONY_AUDIO_PLAYER": f"{sys.executable} {broken}", "HOME": str(home),
                    "PATH": str(home), "HARMONY_PLAYER_GRACE": "60"}, play)
    error = error_of(failed)
    assert error["code"] == "audio_unavailable"
    assert error["tried"][0] == (f"HARMONY_AUDIO_PLAYER ({sys.executable}) (exit status 1: "
                                 "cannot open audio device)")


def test_ping_is_answered_while_a_call_plays(tmp_path: Path) -> None:
    """A player held until the test has its pong: the call's worker thread never holds the
    server's event loop."""
    wav = tmp_path / "a.wav"
    go = tmp_path / "go"
    held = tmp_path / "held.py"
    held.write_text("import os, sys, time\n"
                    f"open({str(tmp_path / 'started')!r}, 'w').close()\n"
                    f"while not os.path.exists({str(go)!r}):\n    time.sleep(0.01)\n")

    async def script(client: Client) -> Any:
        await client.call_tool("render_audio", {"midi": MIDI, "engine": "basic",
                                                "path": str(wav)})
        order: list[str] = []

        async def long_call() -> None:
            await client.call_tool("play_audio", {"path": str(wav), "wait": True})
            order.append("played")

        async with anyio.create_task_group() as group:
            group.start_soon(long_call)
            while not (tmp_path / "started").exists():
                await anyio.sleep(0.01)
            await client.session.send_ping()
            order.append("pong")
            go.touch()
        return order

    order = stdio_session(CONDUCTOR, {"HARMONY_AUDIO_PLAYER": f"{sys.executable} {held}"},
                          script, mode="legacy")
    assert order == ["pong", "played"]


def test_tool_errors_name_the_field(tmp_path: Path) -> None:
    async def script(client: Client) -> Any:
        bad_midi = await client.call_tool("render_audio", {"midi": b64(b"nope")})
        no_file = await client.call_tool("play_audio", {"path": str(tmp_path / "none.wav")})
        bad_dir = await client.call_tool("render_audio", {
            "midi": MIDI, "engine": "basic", "path": str(tmp_path / "no" / "such" / "x.wav")})
        return bad_midi, no_file, bad_dir

    for answer, field in zip(stdio({}, script), ("midi", "path", "path"), strict=True):
        assert error_of(answer)["field"] == field


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with running_server(tmp_path_factory.mktemp("conductor-proxy")) as live:
        yield live


def test_proxy_mode_renders_on_the_service(server: LiveServer, tmp_path: Path) -> None:
    target = tmp_path / "remote.wav"
    env = {"HARMONY_BASE_URL": server.url, "SERVICE_API_KEY": server.key or ""}

    async def script(client: Client) -> Any:
        ok = await client.call_tool("render_audio", {"midi": MIDI, "engine": "basic",
                                                     "path": str(target)})
        bad = await client.call_tool("render_audio", {"midi": MIDI, "format": "ogg"})
        conducted = await client.call_tool("conduct_band", {
            "prompt": "slow blues in G", "durationSec": 20, "midiPath": str(midi)})
        return ok, bad, conducted

    midi = tmp_path / "remote.mid"
    ok, bad, conducted = stdio(env, script)
    assert not ok.is_error, ok.content
    assert hashlib.sha256(target.read_bytes()).hexdigest() == ok.structured_content["sha256"]
    assert error_of(bad)["field"] == "format"
    # the service's full result, summarised here, its MIDI written here
    whole = engine.conduct({"prompt": "slow blues in G", "durationSec": 20})
    assert conducted.structured_content == {
        **{k: v for k, v in orjson.loads(orjson.dumps(whole)).items()
           if k not in ("lanes", "midi")}, "midiPath": str(midi)}
    assert midi.read_bytes() == base64.b64decode(whole["midi"])
