"""Composition (API.md section 13): the composition IR (``ir``), its ten operations
(``chords_ops``: create, add_section, set_chords, set_form, reharmonize, transpose, whose roots
``spelling`` names by function; ``music_ops``: voice, arrange, add_notes; ``export``), the
exporters (``export``: MIDI, ChordPro, lead sheet, analysis; ``ireal``; ``musicxml``) and
``compose``, which applies a request's operations in order (``operation``, with the table
``OPERATIONS`` the MCP tools come from).
"""

from engine.compose.ir import MAX_SECTIONS
from engine.compose.operation import OPERATIONS, Op, apply, compose

__all__ = ["MAX_SECTIONS", "OPERATIONS", "Op", "apply", "compose"]
