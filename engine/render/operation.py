"""``render`` (API.md 12): a conduct request, a conduct result or a MIDI file -> audio.

    render(request) -> {"format", "sampleRate", "channels", "durationSec", "engine",
                        "soundfont", "sha256", "audio" (base64)}
    render_bytes(request, soundfont=None, max_seconds=300) -> (audio bytes, the same facts)

The SoundFont and the longest audio allowed come from the caller's configuration (the server's
``HARMONY_SOUNDFONT`` and ``HARMONY_RENDER_MAX_SECONDS``), never from the request.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.conduct import conduct
from engine.errors import InvalidRequest
from engine.render.basic import MAX_VOICES, playable, render_basic, voices
from engine.render.encode import FORMATS, encode
from engine.render.events import Notes, check_smf, read_midi
from engine.render.soundfont import find_soundfont, render_soundfont
from engine.requests import as_int, get_str, require_object

RATES = (22050, 44100, 48000)
ENGINES = ("auto", "soundfont", "basic")
MAX_SECONDS, HARD_MAX_SECONDS = 300, 900
# The work a render may do, in voice-samples (notes x seconds x rate, ``basic.voices``): ~1.6 s
# of a core at the ~1.3 ns each of notes that never repeat a sound (~2.9 s at the 2.3 ns before
# issue 40's rework; a conducted arrangement ~0.3 ns); the densest conducted arrangement (a
# fast samba, 300 s at 48 kHz) needs 0.78 billion. With a configured limit over 300 s it grows
# in proportion.
MAX_VOICE_SAMPLES = 1_250_000_000
# A conducted arrangement may end a hair past its durationSec (tempos in whole microseconds).
LENGTH_SLACK = 0.01
SOURCES = ("prompt", "arrangement", "midi")
CONDUCT_FIELDS = ("prompt", "durationSec", "progression", "seed")
RENDER_FIELDS = (*CONDUCT_FIELDS, "arrangement", "midi", "format", "sampleRate", "channels",
                 "engine")


def render(request: Any) -> dict[str, Any]:
    audio, facts = render_bytes(request)
    return {**facts, "audio": base64.b64encode(audio).decode("ascii")}


def check_render(request: Any, max_seconds: float = MAX_SECONDS) -> None:
    """What can be refused of a render request in microseconds, before it takes a slot: its
    options, its source, a MIDI file's base64 and chunk structure (``events.check_smf``), a
    ``durationSec`` over the limit. The rest (the events, the work) is checked by
    ``render_bytes`` before it makes a sample."""
    req = require_object(request)
    _options(req)
    _source(req, max_seconds)
    if req.get("midi") is not None:
        check_smf(_midi_bytes(req, "midi"), "midi")
    elif req.get("arrangement") is not None:
        check_smf(_midi_bytes(req, "arrangement"), "arrangement")


def render_bytes(request: Any, *, soundfont: str | None = None,
                 max_seconds: float = MAX_SECONDS) -> tuple[bytes, dict[str, Any]]:
    fmt, rate, channels, notes, keep, font = prepare(request, soundfont=soundfont,
                                                     max_seconds=max_seconds)
    if font is not None:
        samples = render_soundfont(playable(notes, keep), font, rate, channels)
    else:
        samples = render_basic(notes, rate, channels, keep)
    audio = encode(samples, rate, fmt)
    return audio, {
        "format": fmt, "sampleRate": rate, "channels": channels,
        "durationSec": round(samples.shape[0] / rate, 3),
        "engine": "basic" if font is None else "soundfont",
        "soundfont": None if font is None else font.name,
        "sha256": hashlib.sha256(audio).hexdigest(),
    }


Prepared = tuple[str, int, int, Notes, npt.NDArray[np.bool_], Path | None]


def prepare(request: Any, *, soundfont: str | None = None,
            max_seconds: float = MAX_SECONDS) -> Prepared:
    """Everything a render checks before it makes a sample: the options, the notes (a prompt
    conducted, a MIDI file read), the length and the work (``basic.voices``), the SoundFont.
    (format, sampleRate, channels, notes, the notes kept under the polyphony cap, font)."""
    req = require_object(request, RENDER_FIELDS)
    if not 1 <= max_seconds <= HARD_MAX_SECONDS:
        raise ValueError(f"max_seconds must be within 1..{HARD_MAX_SECONDS}")
    fmt, rate, channels, engine = _options(req)
    midi, field = _midi(req, max_seconds)
    notes = read_midi(midi, field)
    if notes.length > max_seconds + LENGTH_SLACK:
        raise InvalidRequest(f"the MIDI lasts {notes.length:.1f} s; a render makes at most "
                             f"{max_seconds:g} s of audio", field=field)
    keep, work = voices(notes, rate)
    budget = MAX_VOICE_SAMPLES * max(1.0, max_seconds / MAX_SECONDS)
    if work > budget:
        raise InvalidRequest(
            f"the MIDI needs {work:,} voice-samples of synthesis (notes x seconds x "
            f"sampleRate, at most {MAX_VOICES} notes at once); a render does at most "
            f"{budget:,.0f}: fewer or shorter notes, or a lower sampleRate", field=field)
    font = None if engine == "basic" else find_soundfont(soundfont)
    if engine == "soundfont" and font is None:
        raise InvalidRequest("no SoundFont is installed here (set HARMONY_SOUNDFONT, or install "
                             "Debian's fluid-soundfont-gm); engine 'basic' needs none",
                             field="engine")
    return fmt, rate, channels, notes, keep, font


def _options(req: dict[str, Any]) -> tuple[str, int, int, str]:
    """format, sampleRate, channels, engine."""
    return (_choice(req, "format", FORMATS, "wav"), _int_choice(req, "sampleRate", RATES, 44100),
            _int_choice(req, "channels", (1, 2), 2), _choice(req, "engine", ENGINES, "auto"))


def _source(req: dict[str, Any], max_seconds: float) -> str:
    """The one source field of the request (a prompt's ``durationSec`` within the limit)."""
    given = [s for s in SOURCES if req.get(s) is not None]
    if len(given) != 1:
        raise InvalidRequest("give exactly one of 'prompt' (a conduct request), 'arrangement' "
                             "(a conduct result) or 'midi' (a base64 Standard MIDI File)",
                             field=given[1] if len(given) > 1 else "prompt")
    if given[0] == "prompt":
        duration = req.get("durationSec")
        if isinstance(duration, int | float) and not isinstance(duration, bool) \
                and duration > max_seconds:
            raise InvalidRequest(f"field 'durationSec' is over the {max_seconds:g} s a render "
                                 "may make", field="durationSec")
    return given[0]


def _midi(req: dict[str, Any], max_seconds: float) -> tuple[bytes, str]:
    """The MIDI to render and the field it came from (named in errors about it)."""
    source = _source(req, max_seconds)
    if source == "prompt":
        result = conduct({k: req[k] for k in CONDUCT_FIELDS if k in req})
        return base64.b64decode(result["midi"]), "durationSec"
    return _midi_bytes(req, source), source


def _midi_bytes(req: dict[str, Any], source: str) -> bytes:
    if source == "arrangement":
        arrangement = req["arrangement"]
        if not isinstance(arrangement, dict) or not isinstance(arrangement.get("midi"), str):
            raise InvalidRequest("field 'arrangement' must be a conduct result with its 'midi'",
                                 field="arrangement")
        return _base64(arrangement["midi"], "arrangement")
    text = req["midi"]
    if not isinstance(text, str):
        raise InvalidRequest("field 'midi' must be a base64 string", field="midi")
    return _base64(text, "midi")


_WHITESPACE = str.maketrans("", "", " \t\r\n")


def _base64(text: str, field: str) -> bytes:
    """Base64 as MIME and PEM write it too: line breaks (and spaces) are left out."""
    try:
        data = base64.b64decode(text.translate(_WHITESPACE), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidRequest(f"field '{field}' is not valid base64", field=field) from None
    if not data:
        raise InvalidRequest(f"field '{field}' is empty", field=field)
    return data


def _choice(req: dict[str, Any], field: str, allowed: tuple[str, ...], default: str) -> str:
    value = get_str(req, field, default=default)
    assert value is not None
    if value not in allowed:
        raise InvalidRequest(f"field '{field}' must be one of {', '.join(allowed)}", field=field)
    return value


def _int_choice(req: dict[str, Any], field: str, allowed: tuple[int, ...], default: int) -> int:
    value = req.get(field)
    if value is None:
        return default
    whole = as_int(value)
    if whole not in allowed:
        raise InvalidRequest(f"field '{field}' must be one of "
                             f"{', '.join(map(str, allowed))}", field=field)
    return whole
