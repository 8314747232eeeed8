"""Reharmonisation: the rules as tables (``rules``), the progression read against its key and
in context (``context``), its bars (``bars``) and the nine techniques that rewrite it
(``techniques``), and the operation that reads a request through them (``operation``)."""

from engine.reharm.operation import reharmonize

__all__ = ["reharmonize"]
