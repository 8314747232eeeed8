"""Playing an audio file on this machine (``play_audio``, API.md 12), trying in order:

1. the configured player command, ``HARMONY_AUDIO_PLAYER`` (e.g. ``mpv --no-video``; ``{path}``
   in it is replaced by the file, else the file is appended);
2. ``sounddevice`` (PortAudio), when its system library loads and it lists an output device;
3. the platform's player found on ``PATH`` (``afplay`` on macOS; ``pw-play``, ``paplay``,
   ``aplay`` (WAV only), ``ffplay`` on Linux).

A player that fails (it cannot be started, or it ends with a non-zero exit status: at once, within
the grace period ``HARMONY_PLAYER_GRACE`` seconds (default 0.5) when not waiting, or at the end
when waiting) counts as tried, with its status and the end of its stderr, and the next one is
tried. With none, ``AudioUnavailable`` says what was tried and names the file, so nothing is lost.
A player never writes to our stdout (the stdio servers speak JSON-RPC there): its output goes
to /dev/null, its stderr to a temporary file read when it fails.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import AudioUnavailable, InvalidRequest

GRACE = 0.5      # seconds a player started in the background has to fail at once
STDERR_TAIL = 300  # characters of a failed player's stderr in what was tried
# Players playing on in the background, kept until they end (then reaped: no zombies).
BACKGROUND: list[subprocess.Popen[bytes]] = []

# Platform players: (command, the suffixes it plays; empty: any).
PLATFORM_PLAYERS: dict[str, tuple[tuple[tuple[str, ...], frozenset[str]], ...]] = {
    "darwin": ((("afplay",), frozenset()),),
    "linux": ((("pw-play",), frozenset()), (("paplay",), frozenset({".wav", ".flac"})),
              (("aplay", "-q"), frozenset({".wav"})),
              (("ffplay", "-nodisp", "-autoexit", "-loglevel", "quiet"), frozenset())),
    "win32": ((("powershell", "-NoProfile", "-Command",
                "(New-Object Media.SoundPlayer $args[0]).PlaySync()"), frozenset({".wav"})),),
}


@dataclass(frozen=True)
class Played:
    path: str
    player: str          # what played it: the command's name, or "sounddevice"
    waited: bool         # True: playback has finished; False: it plays on in the background


def play(path: str | Path, *, wait: bool = False, env: Mapping[str, str] | None = None,
         platform: str | None = None) -> Played:
    """Play ``path``; raise ``AudioUnavailable`` when nothing here can."""
    file = Path(path)
    if not file.is_file():
        raise InvalidRequest(f"no audio file at {str(file)!r}", field="path")
    env = {} if env is None else env
    grace = _grace(env)
    tried: list[str] = []
    configured = (env.get("HARMONY_AUDIO_PLAYER") or "").strip()
    if configured:
        words = shlex.split(configured)
        command = [w.replace("{path}", str(file)) for w in words]
        if not any("{path}" in w for w in words):
            command.append(str(file))
        played = _run(command, file, wait, tried, f"HARMONY_AUDIO_PLAYER ({words[0]})",
                      grace)
        if played:
            return played
    played = _sounddevice(file, wait, tried)
    if played:
        return played
    for player, suffixes in PLATFORM_PLAYERS.get(platform or sys.platform, ()):
        if suffixes and file.suffix.lower() not in suffixes:
            continue
        if shutil.which(player[0]) is None:
            tried.append(f"{player[0]} (not installed)")
            continue
        played = _run([*player, str(file)], file, wait, tried, player[0], grace)
        if played:
            return played
    raise AudioUnavailable(
        f"no way to play audio here (tried: {'; '.join(tried) or 'nothing'}); "
        f"the file is {file}", path=str(file), tried=tried)


def _grace(env: Mapping[str, str]) -> float:
    try:
        return max(0.0, float(env.get("HARMONY_PLAYER_GRACE") or GRACE))
    except ValueError:
        return GRACE


def _run(command: list[str], file: Path, wait: bool, tried: list[str], name: str,
         grace: float = GRACE) -> Played | None:
    """Run a player; ``None`` (and a line in ``tried``) when it cannot start or fails: a
    non-zero exit status at the end (``wait``) or within ``grace`` seconds (not waiting)."""
    with tempfile.TemporaryFile() as stderr:
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=stderr,
                                       start_new_session=not wait)
        except OSError as e:
            tried.append(f"{name} ({e.strerror or type(e).__name__})")
            return None
        BACKGROUND[:] = [p for p in BACKGROUND if p.poll() is None]
        try:
            code = process.wait(timeout=None if wait else grace)
        except subprocess.TimeoutExpired:
            BACKGROUND.append(process)
            return Played(str(file), name, False)  # plays on in the background
        if code != 0:
            stderr.seek(0)
            said = " ".join(stderr.read().decode(errors="replace").split())[-STDERR_TAIL:]
            tried.append(f"{name} (exit status {code}" + (f": {said})" if said else ")"))
            return None
    return Played(str(file), name, wait)


def _sounddevice(file: Path, wait: bool, tried: list[str]) -> Played | None:
    try:
        import sounddevice  # PortAudio is loaded here: OSError when it is not installed
        import soundfile
    except (ImportError, OSError) as e:
        tried.append(f"sounddevice ({type(e).__name__}: {e})")
        return None
    try:
        devices: Any = sounddevice.query_devices()
        if not any(d.get("max_output_channels", 0) > 0 for d in devices):
            tried.append("sounddevice (no output device)")
            return None
        data, rate = soundfile.read(str(file), dtype="float32")
        sounddevice.play(data, rate)
        if wait:
            sounddevice.wait()
    except Exception as e:  # PortAudio errors: no device, busy, unsupported rate
        tried.append(f"sounddevice ({type(e).__name__}: {e})")
        return None
    return Played(str(file), "sounddevice", wait)
