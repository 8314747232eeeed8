"""``play_audio``'s player (``server.mcp.player``), played for real: into an ALSA null device
(a temporary HOME whose ``.asoundrc`` makes the default PCM a null sink) through PortAudio and
through ``aplay``, and through a fake player command that records its arguments. Each case runs
in a child process: PortAudio reads the ALSA configuration once, when it loads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import wave
from pathlib import Path
from typing import Any

import pytest

from engine.errors import InvalidRequest
from server.mcp.player import play

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json, sys
from server.mcp.player import play
from engine.errors import HarmonyError
try:
    p = play(sys.argv[1], wait=True, env={k: v for k, v in __import__('os').environ.items()})
    print(json.dumps({"player": p.player, "waited": p.waited, "path": p.path}))
except HarmonyError as e:
    print(json.dumps(e.to_dict()))
"""


def _wav(path: Path, seconds: float = 0.2) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(22050)
        w.writeframes(b"\x00\x00" * int(22050 * seconds))
    return path


def _play_in_child(tmp_path: Path, wav: Path, home: Path, **env: str) -> dict[str, Any]:
    child_env = {k: v for k, v in os.environ.items() if k != "HARMONY_AUDIO_PLAYER"}
    child_env.update({"HOME": str(home), **env})
    done = subprocess.run([sys.executable, "-c", PROBE, str(wav)], cwd=ROOT, env=child_env,
                          capture_output=True, text=True, timeout=60, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture
def null_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".asoundrc").write_text("pcm.!default { type null }\n")
    return home


def _portaudio() -> bool:
    try:
        import sounddevice  # noqa: F401
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _portaudio(), reason="PortAudio (Debian libportaudio2) is not "
                                             "installed: .ci/run installs it")
def test_plays_through_portaudio_into_the_null_device(tmp_path: Path, null_home: Path) -> None:
    wav = _wav(tmp_path / "a.wav")
    assert _play_in_child(tmp_path, wav, null_home) == {
        "player": "sounddevice", "waited": True, "path": str(wav)}


@pytest.mark.skipif(shutil.which("aplay") is None,
                    reason="aplay (Debian alsa-utils) is not installed: .ci/run installs it")
def test_plays_through_a_configured_command_aplay(tmp_path: Path, null_home: Path) -> None:
    wav = _wav(tmp_path / "a.wav")
    result = _play_in_child(tmp_path, wav, null_home, HARMONY_AUDIO_PLAYER="aplay -q")
    assert result == {"player": "HARMONY_AUDIO_PLAYER (aplay)", "waited": True,
                      "path": str(wav)}


def test_a_configured_player_gets_the_file(tmp_path: Path) -> None:
    record = tmp_path / "args.json"
    fake = tmp_path / "fake_player.py"
    fake.write_text(f"import json, sys\nopen({str(record)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    wav = _wav(tmp_path / "take one.wav")
    played = play(wav, wait=True, env={
        "HARMONY_AUDIO_PLAYER": f"{sys.executable} {fake} --volume 50 {{path}}"})
    assert played.player == f"HARMONY_AUDIO_PLAYER ({sys.executable})" and played.waited
    assert json.loads(record.read_text()) == ["--volume", "50", str(wav)]


def test_nothing_to_play_with_is_audio_unavailable_naming_the_file(tmp_path: Path) -> None:
    # A player that fails, no sound device (an empty HOME, no card here) and no platform player
    # on PATH: the error says what was tried and where the file is.
    wav = _wav(tmp_path / "a.wav")
    empty = tmp_path / "empty"
    empty.mkdir()
    # ALSA's default device is a card that is not there, even on a machine with sound
    (empty / ".asoundrc").write_text("pcm.!default { type hw card 99 }\n")
    result = _play_in_child(tmp_path, wav, empty, PATH=str(empty),
                            HARMONY_AUDIO_PLAYER=f"{sys.executable} -c 'raise SystemExit(3)'")
    error = result["error"]
    assert error["code"] == "audio_unavailable"
    assert error["path"] == str(wav) and str(wav) in error["message"]
    assert error["tried"][0].endswith("(exit status 3)")
    assert any(t.startswith("sounddevice") for t in error["tried"])
    assert "aplay (not installed)" in error["tried"]


def test_a_missing_file_is_refused_before_any_player_runs(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest) as refused:
        play(tmp_path / "nope.wav", env={"HARMONY_AUDIO_PLAYER": "false"})
    assert refused.value.field == "path"


def test_a_player_failing_at_once_in_the_background_counts_as_tried(tmp_path: Path) -> None:
    from server.mcp.player import _run

    wav = _wav(tmp_path / "a.wav")
    tried: list[str] = []
    broken = [sys.executable, "-c", "import sys; sys.stderr.write('no  such\\ndevice'); "
              "raise SystemExit(2)"]
    # not waiting for the end of playback, yet a failure within the grace period is seen
    # (a generous one here: the broken player always ends within it)
    assert _run(broken, wav, False, tried, "broken", grace=60) is None
    assert tried == ["broken (exit status 2: no such device)"]


def test_a_player_still_playing_after_the_grace_period_plays_on(tmp_path: Path) -> None:
    from server.mcp.player import BACKGROUND, _run

    wav = _wav(tmp_path / "a.wav")
    done = tmp_path / "done"
    held = [sys.executable, "-c", "import os, time\n"
            f"while not os.path.exists({str(done)!r}):\n    time.sleep(0.01)\n"]
    tried: list[str] = []
    try:
        played = _run(held, wav, False, tried, "held", grace=0.05)
        assert played is not None and (played.player, played.waited) == ("held", False)
        assert tried == [] and BACKGROUND[-1].poll() is None  # still playing
    finally:
        done.touch()  # the player ends
    assert BACKGROUND.pop().wait(timeout=60) == 0
