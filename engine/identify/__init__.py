"""identify (API.md 17), the inverse of resolve: notes -> the chord symbols that name them.

The vocabulary with its costs (``vocabulary``), the readings of every pitch-class set built
once (``table``), the bass, key and spelling rules over them (``ranking``), the spelling of a
reading (``naming``), the request's notes (``notes``) and the operation (``operation``).
"""

from engine.identify.operation import identify, identify_notes

__all__ = ["identify", "identify_notes"]
