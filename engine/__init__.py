"""The harmony engine: pure functions, plain dict in, plain dict out, no I/O.

Operations are added here as they land: analyze, resolve, voicing, reharmonize, conduct,
render, search, compose. Each is imported when first used (``engine.faces``): ``import engine``
alone loads none of them.
"""

from typing import TYPE_CHECKING

from engine.faces import lazy_face

if TYPE_CHECKING:
    from engine.analysis import analyze, resolve
    from engine.compose import compose
    from engine.conduct import conduct
    from engine.corpus import search
    from engine.errors import HarmonyError
    from engine.identify import identify
    from engine.reharm import reharmonize
    from engine.render import render
    from engine.voicing import voicing

__getattr__ = lazy_face(__name__, {
    "engine.analysis": ("analyze", "resolve"),
    "engine.compose": ("compose",),
    "engine.conduct": ("conduct",),
    "engine.corpus": ("search",),
    "engine.errors": ("HarmonyError",),
    "engine.identify": ("identify",),
    "engine.reharm": ("reharmonize",),
    "engine.render": ("render",),
    "engine.voicing": ("voicing",),
})

__all__ = ["HarmonyError", "analyze", "compose", "conduct", "identify", "reharmonize", "render", "resolve", "search",
           "voicing"]
