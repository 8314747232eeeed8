"""The band (API.md section 7): the direction read (``prompt``), the forms and endings
(``forms``, ``endings``), the grooves as data (``styles``), the lines and lanes (``lines``,
``arrange``), the MIDI file (``midi``) and ``conduct``, which takes a request through them
(``operation``).
"""

from engine.conduct.operation import MAX_FIT_BARS, conduct

__all__ = ["MAX_FIT_BARS", "conduct"]
