"""``warm()`` and ``preload_soundfont(soundfont)``: load, once, what every render uses, so that
processes forked afterwards (the server's render processes) share it copy-on-write instead of
each loading its own: the SoundFont's samples (~290 MB for FluidR3_GM.sf2), the conductor, the
basic synthesiser's tables and drum sounds at every rate and its compiled kernels, the
encoders. Each forked process then adds only what its own renders write (docs/reliability.md,
"Render processes").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.render.basic import drum_sounds, tables
from engine.render.encode import FORMATS, encode
from engine.render.operation import RATES, render_bytes
from engine.render.soundfont import find_soundfont, preload

# Conducts a few bars and plays them on the basic synthesiser: every kernel on the path runs.
WARM_REQUEST = {"prompt": "medium swing in F", "durationSec": 5, "engine": "basic"}


def warm() -> None:
    """Run each step of a render once: the conductor, the synthesiser's tables and kernels,
    the encoders."""
    render_bytes(WARM_REQUEST)
    for rate in RATES:
        tables(rate)
        drum_sounds(rate)
    quiet = np.zeros((1024, 2), dtype=np.int16)
    for fmt in FORMATS:
        encode(quiet, 44100, fmt)


def preload_soundfont(soundfont: str | None = None) -> Path | None:
    """Load the SoundFont a render with ``soundfont`` configured would use (that path, else
    ``HARMONY_SOUNDFONT``, else the system's), as that render would; None when there is none.
    Its errors are the render's (``invalid_request`` on ``engine``)."""
    font = find_soundfont(soundfont)
    if font is not None:
        preload(font)
    return font
