"""Render (API.md section 12): a conduct request, a conduct result or any Standard MIDI File to
audio. ``events`` reads the MIDI into notes; two synthesisers play them: ``soundfont`` (a General
MIDI SoundFont through TinySoundFont) and ``basic`` (built in, integer arithmetic, the same bytes
on every CPU); ``encode`` writes WAV, FLAC or MP3; ``operation`` is the request and its answer;
``warmup`` loads what renders share before a server forks its render processes.
"""

from engine.render.operation import check_render, prepare, render, render_bytes
from engine.render.soundfont import find_soundfont
from engine.render.warmup import preload_soundfont, warm

__all__ = ["check_render", "find_soundfont", "preload_soundfont", "prepare", "render",
           "render_bytes", "warm"]
