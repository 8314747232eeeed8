"""Voicing notes spelled as a pianist reads them (API.md 5; docs/voicing.md "Spelling").

A chord's tones come spelled by their intervals (``E7#9``'s #9 is F##, ``G7alt``'s #9 A# beside
its b13 Eb). On a page of voicings a player reads faster what he would write himself:

- the alterations of one chord are spelled alike: where a chord sounds both raised (#9, #11,
  #5) and lowered (b9, b5, b13) alterations, the raised ones take the flat name on the letter
  above (``G7alt`` Ab Bb Db Eb, not Ab A# C# Eb), the way the altered scale is written;
- no double sharp or double flat: such a note takes the letter next to it (F## -> G,
  Ebb -> D).

Only the names change: the MIDI numbers (and so the ``midi`` field) are the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.chords import Spelled, on_letter

# the degree labels of the alterations, by direction
RAISED = frozenset({"#9", "#11", "#5"})
LOWERED = frozenset({"b9", "b5", "b13"})


def read_as_pianist(spelled: Sequence[Spelled], labels: Sequence[str]) -> list[Spelled]:
    """The names of one voicing's notes (``spelled``, with each note's degree ``labels``)."""
    mixed = any(lab in RAISED for lab in labels) and any(lab in LOWERED for lab in labels)
    out = []
    for sp, label in zip(spelled, labels, strict=True):
        if mixed and label in RAISED and sp.alter > 0:
            sp = on_letter(sp.pc, (sp.letter + 1) % 7)
        out.append(plain(sp))
    return out


def plain(sp: Spelled) -> Spelled:
    """``sp`` without a double accidental: on the neighbouring letter (F## -> G, Cbb -> Bb)."""
    while abs(sp.alter) > 1:
        sp = on_letter(sp.pc, (sp.letter + (1 if sp.alter > 0 else -1)) % 7)
    return sp
