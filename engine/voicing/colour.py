"""The colour tones a chord takes from where it goes (API.md 5; docs/analysis.md, "Voicing in
context"): the voicing plays a plain chord with the tensions a jazz pianist adds there, and
the result keeps the chord as written.

- a plain dominant seventh into a minor chord a fifth below (``G7`` -> ``Cm7``, ``A7`` ->
  ``Dm7``, ``E7`` -> ``Am``) takes b9 and b13, the tones of the target's key (phrygian
  dominant, the scale analyze gives it), not the natural 9 and 13 that clash with a minor
  target (Dm7b5 G7 Cm7 voiced G7 as B E F A);
- a half-diminished seventh takes 11, never the natural 9 (a iiø7's 9 lies outside the minor
  key it belongs to; locrian's b9 is an avoid note).

A chord written with tensions of its own (``G9``, ``G13``, ``Dm9b5``) is played as written,
and so is every chord in the styles that add no colour tones of their own (shell, triad, pad,
guide tones, drop 2 and drop 3 voice the chord's own tones): ``COLOUR_STYLES``.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.chords import Chord, parse

# written quality -> the quality played when it leads a fifth down into a minor chord
INTO_MINOR: dict[str, str] = {"7": "7b9b13"}
# written quality -> the quality always played
ALWAYS: dict[str, str] = {"m7b5": "m7b5add11"}
# the styles whose shapes take colour tones (9ths, 13ths) beyond the chord's own
COLOUR_STYLES = frozenset({"rootless", "bill_evans"})


def coloured(chords: Sequence[Chord], style: str) -> list[Chord]:
    """Each chord with the colour tones of its place in ``chords``, in a colour style."""
    if style not in COLOUR_STYLES:
        return list(chords)
    out = []
    for i, chord in enumerate(chords):
        quality = ALWAYS.get(chord.quality)
        following = chords[i + 1] if i + 1 < len(chords) else None
        if quality is None and following is not None and chord.quality in INTO_MINOR and \
                (chord.root.pc - following.root.pc) % 12 == 7 and "b3" in following.intervals:
            quality = INTO_MINOR[chord.quality]
        out.append(chord if quality is None else _with(chord, quality))
    return out


def _with(chord: Chord, quality: str) -> Chord:
    bass = f"/{chord.bass.name}" if chord.bass is not None else ""
    return parse(f"{chord.root.name}{quality}{bass}")
