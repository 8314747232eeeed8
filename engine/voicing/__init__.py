"""Voicing: the styles (and their register windows) as data, the candidate voicings of a chord
per style, and the search for the smoothest path through a progression, run by private numba
kernels (``kernels``, each with a slow twin in ``tests/naive.py``).
"""

from engine.voicing.operation import voice_progression, voicing, warm_up
from engine.voicing.styles import STYLES

STYLE_NAMES: tuple[str, ...] = tuple(STYLES)
"""The voicing styles, in the table's order (rootless first: the default)."""

__all__ = ["STYLE_NAMES", "voice_progression", "voicing", "warm_up"]
