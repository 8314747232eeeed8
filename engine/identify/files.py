"""A MIDI or MusicXML file to an analysed chord chart (API.md 17): ``{"midi": base64}`` or
``{"musicxml": text}`` -> the chart (bars of ``{"symbol", "beat", "beats"}``), the analysis of
the chart in context (the key found as analyze finds it, section 3.1) and the lead sheet text.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from engine.analysis import analyze
from engine.errors import InvalidRequest
from engine.identify.chart import chart_bars, lead_sheet
from engine.identify.music import Music, read_midi, read_musicxml
from engine.identify.music_files import MAX_FILE_BYTES
from engine.requests import MAX_PROGRESSION


def music_of(request: dict[str, Any]) -> Music | None:
    """The music of a request's ``midi`` or ``musicxml``, None when it has neither."""
    midi, xml = request.get("midi"), request.get("musicxml")
    if midi is not None and xml is not None:
        raise InvalidRequest("give either 'midi' or 'musicxml', not both", field="musicxml")
    if midi is not None:
        if not isinstance(midi, str):
            raise InvalidRequest("field 'midi' must be a base64 string", field="midi")
        if len(midi) > MAX_FILE_BYTES * 4 // 3 + 4:
            raise InvalidRequest("field 'midi' is larger than 1 MiB", field="midi")
        try:
            data = base64.b64decode(midi, validate=True)
        except (binascii.Error, ValueError):
            raise InvalidRequest("field 'midi' is not base64", field="midi") from None
        return read_midi(data)
    if xml is not None:
        if not isinstance(xml, str) or not xml.strip():
            raise InvalidRequest("field 'musicxml' must be the text of a MusicXML file",
                                 field="musicxml")
        if len(xml) > MAX_FILE_BYTES:
            raise InvalidRequest("field 'musicxml' is larger than 1 MiB", field="musicxml")
        return read_musicxml(xml)
    return None


def analyze_music(music: Music, key: str | None = None) -> dict[str, Any]:
    """The chart, its analysis in context and its lead sheet."""
    bars = chart_bars(music)
    if not any(bars):
        raise InvalidRequest("the file has no pitched notes (or harmony symbols) to read",
                             field="midi" if not music.symbols else "musicxml")
    # the analysis reads at most MAX_PROGRESSION chords: a longer file is analysed by its start
    kept, count = [], 0
    for bar in bars:
        count += len(bar)
        if count > MAX_PROGRESSION:
            break
        kept.append(bar)
    chart = " | ".join(" ".join(c["symbol"] for c in bar) or "%" for bar in kept)
    analysis = analyze({"progression": _held(chart), "key": key, "detail": "summary"})
    return {"notes": [], "bass": None, "readings": [], "chart": bars, "analysis": analysis,
            "leadSheet": lead_sheet(bars)}


def _held(chart: str) -> str:
    """Empty bars hold the chord before them (analyze reads a chord a bar)."""
    out, last = [], ""
    for bar in chart.split(" | "):
        bar = last if bar == "%" else bar
        out.append(bar)
        last = bar.split()[-1] if bar else last
    return " | ".join(b for b in out if b)
