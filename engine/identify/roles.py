"""A reading's numeral and function in a key, as analyze gives them, kept per key and chord.

``role_of(parse(symbol), key)`` costs ~15 µs a reading not seen before (the symbol parsed, the
chord heard, the grid read); the role of a reading depends on its root as spelled, its quality
and, for a slash chord heard as a sus dominant (``F/G``: G9sus4, ``readings.SLASH_SUS``), its
bass; over any other bass it is the chord's own (a slash bass is not a chord tone). So each
key keeps, under the chord's symbol (the written one, bass and all, for the sus spellings),
the reading's head (``naming.reading_head``) with its numeral and function, read from the
chord's parts (``role_in_key``, ~2 µs) the first time.
"""

from __future__ import annotations

from typing import Any

from engine.analysis import SLASH_SUS, role_in_key, role_of
from engine.chords import Key, parse
from engine.identify.naming import Spelt
from engine.identify.vocabulary import VOCABULARY

MAX_KEPT = 16384                # heads kept a key: every quality on 21 spelled roots is ~6,000

# quality index -> the bass's semitones above the root over which it is heard as a sus chord
SUS_BASS: tuple[frozenset[int], ...] = tuple(
    frozenset(bass for semitones, bass in SLASH_SUS if semitones == e.semitones)
    for e in VOCABULARY)
_KEPT: dict[Key, dict[str, dict[str, Any]]] = {}


def kept_heads(key: Key) -> dict[str, dict[str, Any]]:
    """The heads kept for ``key``, by the symbol ``keyed_head`` keeps them under (read them
    with ``.get``, fill them with ``keyed_head``). Never handed out: copy a head."""
    kept = _KEPT.get(key)
    if kept is None:
        kept = _KEPT[key] = {}
    return kept


def keyed_head(chord: Spelt, symbol: str, sus: bool, key: Key,
               kept: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``chord``'s head with its numeral and function in ``key``, kept in ``kept``
    (``kept_heads(key)``) under ``symbol``: the chord's own, or when ``sus`` the slash chord
    written over the bass that makes it a sus dominant."""
    if sus:
        found = role_of(parse(symbol), key)
    else:
        found = role_in_key(chord.spelled, chord.mask, VOCABULARY[chord.entry].labels,
                            chord.quality, key)
    if len(kept) >= MAX_KEPT:
        kept.clear()
    out = kept[symbol] = {**chord.head, "numeral": found.numeral, "function": found.function}
    return out
