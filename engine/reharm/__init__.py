"""Reharmonisation: the rules as tables (``rules``), the progression read against its key and
in context (``context``), its bars (``bars``) and the nine techniques that rewrite it
(``techniques``)."""

from engine.reharm.techniques import reharmonize

__all__ = ["reharmonize"]
