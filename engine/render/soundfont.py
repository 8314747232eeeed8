"""The General MIDI SoundFont synthesiser: TinySoundFont (``tinysoundfont``), sf2 and sf3.

A SoundFont is loaded once per process and kept (FluidR3_GM.sf2 takes ~3 s and ~290 MB of
float samples to load); ``preload`` loads it before a server forks its render processes, which
then share the samples (TinySoundFont only reads them while it plays). Each render resets it
and sets its output rate, so renders do not depend on each other and the same request gives
the same bytes. The module's own ``Synth`` wrapper reloads the file to change
the sample rate and has no reset, so the loaded ``SoundFont`` object is driven directly (the
version is pinned in the lock).

Where the SoundFont comes from is configuration, never a request: an explicit path (the
server's ``HARMONY_SOUNDFONT``), else that variable, else the system's default GM font.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidRequest
from engine.render.events import DRUM_CHANNEL, Notes

# Debian's fluid-soundfont-gm and musescore-general-soundfont(-small) install these.
SYSTEM_FONTS = ("/usr/share/sounds/sf2/default-GM.sf2", "/usr/share/sounds/sf3/default-GM.sf3",
                "/usr/share/sounds/sf2/FluidR3_GM.sf2", "/usr/share/sounds/sf3/MuseScore_General.sf3")
TAIL = 1.5          # s after the MIDI's end, as the basic synthesiser
PEAK = 29_491 / 32_768
# The one gain of every render: the loudest arrangement conduct writes
# (an intense samba, -8.6 dBFS at -9 dB) peaks near -2.6 dBFS through Debian's GM font with it
# (bench/run_loudness.py).
GAIN_DB = -3.0
MAX_VOICES = 256
# (path, process id) of each SoundFont this process (or the one it was forked from) loaded.
LOADS: list[tuple[str, int]] = []


def find_soundfont(path: str | None = None, env: Mapping[str, str] | None = None) -> Path | None:
    """The SoundFont to use: ``path``, else ``HARMONY_SOUNDFONT``, else a system GM font; None
    when there is none. A configured file that does not exist is an error, not a fallback."""
    configured = path or (os.environ if env is None else env).get("HARMONY_SOUNDFONT", "")
    if configured.strip():
        file = Path(configured).expanduser()
        if not file.is_file():
            raise InvalidRequest(f"the configured SoundFont {str(file)!r} does not exist",
                                 field="engine")
        return file
    for candidate in SYSTEM_FONTS:
        if Path(candidate).is_file():
            return Path(candidate)
    return None


@lru_cache(maxsize=2)
def _load(path: str, mtime_ns: int) -> Any:
    from tinysoundfont import _tinysoundfont  # the loaded object, see the module docstring

    try:
        font = _tinysoundfont.SoundFont(path)
    except Exception as e:
        raise InvalidRequest(f"cannot load the SoundFont {path!r}: {e}", field="engine") from None
    font.set_max_voices(MAX_VOICES)
    LOADS.append((path, os.getpid()))
    return font


def preload(font_path: Path) -> None:
    """Load the SoundFont now, as a render would (the same key: a render finds it loaded)."""
    _load(str(font_path), font_path.stat().st_mtime_ns)


def render_soundfont(notes: Notes, font_path: Path, rate: int,
                     channels: int) -> npt.NDArray[np.int16]:
    """The notes through the SoundFont, 16-bit, shape (frames, channels)."""
    from tinysoundfont import _tinysoundfont

    font = _load(str(font_path), font_path.stat().st_mtime_ns)
    font.set_output(_tinysoundfont.OutputMode.StereoInterleaved, rate, GAIN_DB)
    _silence(font, rate)
    for c in range(16):
        font.channel_set_preset_number(c, 0, c == DRUM_CHANNEL)
        font.channel_set_pan(c, float(notes.pan[c]) / 127.0)
        # CC7 with General MIDI's curve (40 log10 of the value): a gain on the channel
        font.channel_set_volume(c, (float(notes.volume[c]) / 127.0) ** 2)
    frames = math.ceil((notes.length + TAIL) * rate)
    out = np.zeros((frames, 2), dtype=np.float32)
    # Events in time order: (frame, order, kind, note index); offs before ons on one frame.
    events: list[tuple[int, int, int]] = []
    for n in range(len(notes)):
        events.append((min(frames, round(notes.start[n] * rate)), 1, n))
        events.append((min(frames, round(notes.end[n] * rate)), 0, n))
    events.sort()
    programs = [-1] * 16
    done = 0
    for frame, kind, n in events:
        if frame > done:
            _generate(font, out, done, frame)
            done = frame
        channel, pitch = int(notes.channel[n]), int(notes.pitch[n])
        if kind == 1:
            program = int(notes.program[n])
            if programs[channel] != program:
                # on channel 10 the program chooses the kit (0 standard, 40 brushes); a font
                # without that kit plays its standard one (TinySoundFont falls back to 0)
                font.channel_set_preset_number(channel, program, channel == DRUM_CHANNEL)
                programs[channel] = program
            font.channel_note_on(channel, pitch, float(notes.velocity[n]) / 127.0)
        else:
            font.channel_note_off(channel, pitch)
    if frames > done:
        _generate(font, out, done, frames)
    mix = out if channels == 2 else out.mean(axis=1, keepdims=True, dtype=np.float32)
    # one fixed gain (GAIN_DB, set_output): loudness follows the music; only a mix that
    # would pass PEAK even so is scaled down to it
    peak = float(np.abs(mix).max()) if mix.size else 0.0
    if peak > PEAK:
        mix = mix * np.float32(PEAK / peak)
    return np.round(mix * 32767).astype(np.int16)


def _silence(font: Any, rate: int) -> None:
    """Reset the font and let every voice die. ``reset`` only starts a quick release of the
    voices still sounding (and frees the channels), so without rendering past it a render
    would begin with the last one's tail, and depend on it."""
    font.reset()
    scratch = np.zeros((rate // 4, 2), dtype=np.float32)  # 250 ms, far past the quick release
    _generate(font, scratch, 0, len(scratch))


def _generate(font: Any, out: npt.NDArray[np.float32], start: int, end: int) -> None:
    view: Any = out[start:end]  # C-contiguous rows: a buffer of (end - start) stereo frames
    font.render(memoryview(view).cast("B"), False)
