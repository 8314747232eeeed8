"""identify (API.md 17), the inverse of resolve: notes -> the chord symbols that name them.

The vocabulary with its costs (``vocabulary``), the readings of every pitch-class set built
once (``table``), the bass, key and spelling rules over them (``ranking``), the spelling of a
reading (``naming``), the request's notes (``notes``), one answer (``answer``), the numerals and
functions kept per key (``roles``) and the operation (``operation``);
files: ``music`` (MIDI, MusicXML), ``chart`` (segments), ``files``, and ``music_files`` (a
file's bytes to a request).
"""

from engine.identify.music_files import MIDI_SUFFIXES, MUSICXML_SUFFIXES, music_request
from engine.identify.notes import MAX_NOTES
from engine.identify.operation import identify, identify_notes

__all__ = ["MAX_NOTES", "MIDI_SUFFIXES", "MUSICXML_SUFFIXES", "identify", "identify_notes",
           "music_request"]
