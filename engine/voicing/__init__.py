"""Voicing: the styles (and their register windows) as data, the candidate voicings of a chord
per style, and the search for the smoothest path through a progression, run by private numba
kernels (``kernels``, each with a slow twin in ``tests/naive.py``). Each name is imported when
first used (``engine.faces``): the styles' names do not compile the kernels.
"""

from typing import TYPE_CHECKING

from engine.faces import lazy_face

if TYPE_CHECKING:
    from engine.voicing.operation import voice_progression, voicing, warm_up
    from engine.voicing.styles import STYLE_NAMES

__getattr__ = lazy_face(__name__, {
    "engine.voicing.operation": ("voice_progression", "voicing", "warm_up"),
    "engine.voicing.styles": ("STYLE_NAMES",),
})

__all__ = ["STYLE_NAMES", "voice_progression", "voicing", "warm_up"]
