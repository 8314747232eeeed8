"""How a written chord is heard before the grid reads it (docs/analysis.md, "Slash chords
heard as sus dominants").

A major triad or major seventh over the note a whole step above its root, and a minor
seventh over the note a fourth above its root, are the jazz "slash" spellings of a dominant
sus chord on the bass: ``F/G`` is G9sus4 (G, F, A, C: 1, b7, 9, 11), ``Fmaj7/G`` G13sus4,
``Dm7/G`` G9sus4 (Herbie Hancock's Maiden Voyage, the sus V of countless ballads). A teacher
reads ``F/G`` in C as ``V9sus4``, a dominant, not as ``IV`` over a bass. Every other chord is
heard as written.
"""

from __future__ import annotations

from functools import lru_cache

from engine.chords import Chord, parse

# (the written chord's core, the bass's semitones above its root) -> the sus chord's suffix
# on the bass
SLASH_SUS: dict[tuple[tuple[int, ...], int], str] = {
    ((0, 4, 7), 2): "9sus4",
    ((0, 4, 7, 11), 2): "13sus4",
    ((0, 3, 7, 10), 5): "9sus4",
}


@lru_cache(maxsize=4096)
def heard_as(chord: Chord) -> Chord:
    """The chord the harmony hears: a slash-sus spelling as its dominant sus chord on the
    bass, anything else as written."""
    if chord.bass is None:
        return chord
    suffix = SLASH_SUS.get((chord.semitones, (chord.bass.pc - chord.root.pc) % 12))
    if suffix is None:
        return chord
    return parse(chord.bass.name + suffix)
