"""Imported by the render processes' fork server (``server.http.jobs``), and by nothing else:
importing it loads what renders share (``engine.render.warm``) and the service's SoundFont,
named in ``SOUNDFONT_VARIABLE`` by the pool that started the fork server, then freezes the
objects made so far out of the garbage collector's reach, so that no collection in a render
process writes to the pages it shares. Each render process forked after finds it all loaded.

What fails here is left to the renders, which report it as they always did (a SoundFont that
does not load: ``invalid_request`` on ``engine``); the fork server must start whatever happens.
"""

from __future__ import annotations

import contextlib
import gc
import os

from engine.render import preload_soundfont, warm
from server.http.render import SOUNDFONT_VARIABLE

with contextlib.suppress(Exception):
    warm()
with contextlib.suppress(Exception):
    preload_soundfont(os.environ.get(SOUNDFONT_VARIABLE) or None)
gc.collect()
gc.freeze()
