"""The harmony engine: pure functions, plain dict in, plain dict out, no I/O.

Operations are added here as they land: analyze, resolve, voicing, reharmonize, conduct,
render, search, compose.
"""

from engine.analysis import analyze, resolve
from engine.compose import compose
from engine.conduct import conduct
from engine.corpus import search
from engine.errors import HarmonyError
from engine.identify import identify
from engine.reharm import reharmonize
from engine.render import render
from engine.voicing import voicing

__all__ = ["HarmonyError", "analyze", "compose", "conduct", "identify", "reharmonize", "render", "resolve", "search",
           "voicing"]
