"""Reharmonisation: the rules as tables (``rules``), the progression read against its key
(``context``) and the eight techniques that rewrite it (``techniques``)."""

from engine.reharm.techniques import reharmonize

__all__ = ["reharmonize"]
