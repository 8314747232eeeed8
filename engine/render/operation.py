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
from typing import Any

from engine.conduct import conduct
from engine.errors import InvalidRequest
from engine.render.basic import render_basic
from engine.render.encode import FORMATS, encode
from engine.render.events import read_midi
from engine.render.soundfont import find_soundfont, render_soundfont
from engine.requests import as_int, get_str, require_object

RATES = (22050, 44100, 48000)
ENGINES = ("auto", "soundfont", "basic")
MAX_SECONDS, HARD_MAX_SECONDS = 300, 900
SOURCES = ("prompt", "arrangement", "midi")
CONDUCT_FIELDS = ("prompt", "durationSec", "progression", "seed")
RENDER_FIELDS = (*CONDUCT_FIELDS, "arrangement", "midi", "format", "sampleRate", "channels",
                 "engine")


def render(request: Any) -> dict[str, Any]:
    audio, facts = render_bytes(request)
    return {**facts, "audio": base64.b64encode(audio).decode("ascii")}


def render_bytes(request: Any, *, soundfont: str | None = None,
                 max_seconds: float = MAX_SECONDS) -> tuple[bytes, dict[str, Any]]:
    req = require_object(request, RENDER_FIELDS)
    if not 1 <= max_seconds <= HARD_MAX_SECONDS:
        raise ValueError(f"max_seconds must be within 1..{HARD_MAX_SECONDS}")
    fmt = _choice(req, "format", FORMATS, "wav")
    rate = _int_choice(req, "sampleRate", RATES, 44100)
    channels = _int_choice(req, "channels", (1, 2), 2)
    engine = _choice(req, "engine", ENGINES, "auto")
    midi, field = _midi(req, max_seconds)
    notes = read_midi(midi, field)
    if notes.length > max_seconds:
        raise InvalidRequest(f"the MIDI lasts {notes.length:.1f} s; a render makes at most "
                             f"{max_seconds:g} s of audio", field=field)
    font = None if engine == "basic" else find_soundfont(soundfont)
    if engine == "soundfont" and font is None:
        raise InvalidRequest("no SoundFont is installed here (set HARMONY_SOUNDFONT, or install "
                             "Debian's fluid-soundfont-gm); engine 'basic' needs none",
                             field="engine")
    if font is not None:
        samples = render_soundfont(notes, font, rate, channels)
    else:
        samples = render_basic(notes, rate, channels)
    audio = encode(samples, rate, fmt)
    return audio, {
        "format": fmt, "sampleRate": rate, "channels": channels,
        "durationSec": round(samples.shape[0] / rate, 3),
        "engine": "basic" if font is None else "soundfont",
        "soundfont": None if font is None else font.name,
        "sha256": hashlib.sha256(audio).hexdigest(),
    }


def _midi(req: dict[str, Any], max_seconds: float) -> tuple[bytes, str]:
    """The MIDI to render and the field it came from (named in errors about it)."""
    given = [s for s in SOURCES if req.get(s) is not None]
    if len(given) != 1:
        raise InvalidRequest("give exactly one of 'prompt' (a conduct request), 'arrangement' "
                             "(a conduct result) or 'midi' (a base64 Standard MIDI File)",
                             field=given[1] if len(given) > 1 else "prompt")
    source = given[0]
    if source == "prompt":
        duration = req.get("durationSec")
        if isinstance(duration, int | float) and not isinstance(duration, bool) \
                and duration > max_seconds:
            raise InvalidRequest(f"field 'durationSec' is over the {max_seconds:g} s a render "
                                 "may make", field="durationSec")
        result = conduct({k: req[k] for k in CONDUCT_FIELDS if k in req})
        return base64.b64decode(result["midi"]), "durationSec"
    if source == "arrangement":
        arrangement = req["arrangement"]
        if not isinstance(arrangement, dict) or not isinstance(arrangement.get("midi"), str):
            raise InvalidRequest("field 'arrangement' must be a conduct result with its 'midi'",
                                 field="arrangement")
        return _base64(arrangement["midi"], "arrangement"), "arrangement"
    text = req["midi"]
    if not isinstance(text, str):
        raise InvalidRequest("field 'midi' must be a base64 string", field="midi")
    return _base64(text, "midi"), "midi"


def _base64(text: str, field: str) -> bytes:
    try:
        data = base64.b64decode(text, validate=True)
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
