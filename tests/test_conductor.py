"""``harmony-conductor`` as a subprocess, driven by the SDK's stdio client (API.md 8.3, 12):
its tools, ``render_audio`` writing the file and attaching the audio, ``play_audio`` through a
fake player that records its arguments and through nothing (``audio_unavailable``), and the
proxy mode against a running ``harmony serve``."""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.mcp_live import LiveServer, running_server, stdio_session
from tests.test_render import b64, midi_of

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


def test_render_without_a_path_writes_a_temporary_file_and_can_play_it(tmp_path: Path) -> None:
    player, record = recorder(tmp_path)

    async def script(client: Client) -> Any:
        return await client.call_tool("render_audio", {"midi": MIDI, "engine": "basic",
                                                       "format": "flac", "play": True})

    rendered = stdio({"HARMONY_AUDIO_PLAYER": player}, script)
    result = rendered.structured_content
    assert not rendered.is_error and result["format"] == "flac"
    assert Path(result["path"]).is_file() and result["path"].endswith(".flac")
    assert result["played"].startswith("HARMONY_AUDIO_PLAYER")
    for _ in range(200):  # the player runs on in the background
        if record.exists():
            break
        time.sleep(0.05)
    assert json.loads(record.read_text()) == [result["path"]]
    Path(result["path"]).unlink()


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
    assert nothing.is_error
    error = nothing.structured_content["error"]
    assert error["code"] == "audio_unavailable" and error["path"] == str(wav)
    assert str(wav) in error["message"]


def test_tool_errors_name_the_field(tmp_path: Path) -> None:
    async def script(client: Client) -> Any:
        bad_midi = await client.call_tool("render_audio", {"midi": b64(b"nope")})
        no_file = await client.call_tool("play_audio", {"path": str(tmp_path / "none.wav")})
        bad_dir = await client.call_tool("render_audio", {
            "midi": MIDI, "engine": "basic", "path": str(tmp_path / "no" / "such" / "x.wav")})
        return bad_midi, no_file, bad_dir

    for answer, field in zip(stdio({}, script), ("midi", "path", "path"), strict=True):
        assert answer.is_error
        assert answer.structured_content["error"]["field"] == field


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
        return ok, bad

    ok, bad = stdio(env, script)
    assert not ok.is_error, ok.content
    assert hashlib.sha256(target.read_bytes()).hexdigest() == ok.structured_content["sha256"]
    assert bad.is_error and bad.structured_content["error"]["field"] == "format"
