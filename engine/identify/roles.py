"""A reading's numeral and function in a key, as analyze gives them, by index.

A chord's numeral in a key depends on the key's mode, the root's interval above the tonic as
spelled (letters counted and semitones: ``bVI`` against ``#V``) and the quality, never on
the tonic itself: the same in every key of a mode. Its function depends on the same and,
through its text, on the tonic's name ("borrowed from C dorian"), and there are few of them in
a key. So ``ROLES`` keeps, by mode, interval and quality (``KeyRoles.base`` + quality index),
the numeral and the number of its function (``FUNCTION_PARTS``), shared by every key of the
mode, and each key keeps the text of each function number. What ``role_parts`` reads but the
root's letters (the interpretation, diatonic, the tension source: so the function) is
analyze's ``role_parts_table`` for the whole vocabulary, read at import (~1 ms); a slot's
numeral is made the first time it is read, from the interpretation's frame (``numeral_frame``,
kept) around the quality's mark, and the function's text by ``role_function`` the first time a
key reads it; then by index, a chord seen in one key is known in all. Each key keeps,
by spelt chord, the head of its readings in that key (``role_head``: the chord's head with its
numeral and function), so that a reading in a key is one copy, as without one.

A slash chord heard as a sus dominant (``F/G``: G9sus4, ``readings.SLASH_SUS``) takes the role
of that chord (``role_of``), kept per key under its written symbol; over any other bass a
chord's role is its own (a slash bass is not a chord tone).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from engine.analysis import (
    CLASSES,
    INTERPRETATIONS,
    accidental_of,
    class_of_labels,
    numeral_frame,
    numeral_mark,
    role_function,
    role_of,
    role_parts_table,
)
from engine.chords import LETTER_PC, Key, parse, parse_key
from engine.identify.naming import QUALITIES, SPELT, Spelt, key_spelling
from engine.identify.vocabulary import VOCABULARY

MAX_KEYS = 256          # keys kept: every spelled tonic in both modes is 70
MAX_SUS = 4096          # sus slash chords kept a key
MAX_HEADS = 65536       # readings' heads kept over every key (~460 bytes each: ~30 MB)
_heads_kept = 0         # ... kept now (``role_head``)

_INTERVALS = 7 * 12     # letters counted (0..6) x semitones (0..11) above the tonic
ROLES: list[tuple[str, int] | None] = [None] * (2 * _INTERVALS * QUALITIES)
"""(mode * 84 + letters * 12 + semitones above the tonic) * ``QUALITIES`` + quality index ->
(numeral, function id), once read (``role_head``)."""
_CLASS = tuple(class_of_labels(e.labels) for e in VOCABULARY)   # quality index -> its class
_MARK = tuple(numeral_mark(e.quality.canonical) for e in VOCABULARY)   # ... its numeral's mark


def _role_table() -> tuple[tuple[int, ...], tuple[int, ...], list[tuple[int, int, bool, int]]]:
    """(mode * 12 + semitones above the tonic) * ``QUALITIES`` + quality index -> the
    interpretation's index, and the function's id; and function id -> (mode, interpretation's
    index, diatonic, tension source): analyze's ``role_parts_table`` of the vocabulary."""
    index, diatonic, tension = role_parts_table(_CLASS, [e.mask for e in VOCABULARY])
    # the four parts packed in one integer, so that ``np.unique`` numbers them over a flat
    # array (~0.7 ms; over rows of four, ``axis=0``, ~5 ms at import)
    sources = int(tension.max()) + 1
    mode = np.arange(index.shape[0], dtype=np.int64)[:, None, None]
    packed = ((mode * len(INTERPRETATIONS) + index) * 2 + diatonic) * sources + tension
    found, ids = np.unique(packed.ravel(), return_inverse=True)
    parts = [(int(p // sources // 2 // len(INTERPRETATIONS)),
              int(p // sources // 2 % len(INTERPRETATIONS)), bool(p // sources % 2),
              int(p % sources)) for p in found.tolist()]
    return tuple(index.ravel().tolist()), tuple(ids.tolist()), parts


_INDEX, _FUNCTION_ID, FUNCTION_PARTS = _role_table()
"""``FUNCTION_PARTS``: function id -> (mode, interpretation's index, diatonic, tension
source)."""
_FRAMES: dict[int, tuple[str, str]] = {}   # (index, class, interval) -> ``numeral_frame``


class KeyRoles(NamedTuple):
    """What a key reads its readings' roles by."""

    key: Key
    roots: tuple[int, ...]           # pitch class -> its spelling in the key (``key_spelling``)
    other: tuple[str, ...]           # ... and its name
    base: tuple[int, ...]            # spelled root (``Spelt.at``) -> its slot in ``ROLES`` less the quality
    functions: list[str | None]      # function id -> its text in this key
    heads: list[dict[str, Any] | None]   # ``Spelt.place`` -> its reading's head here, once read
    sus: dict[str, tuple[str, str]]  # a sus slash chord's symbol -> (numeral, function)


_KEPT: dict[Key, KeyRoles] = {}


def key_roles(key: Key) -> KeyRoles:
    """The roles of ``key`` (kept)."""
    kept = _KEPT.get(key)
    if kept is None:
        if len(_KEPT) >= MAX_KEYS:
            _KEPT.clear()
        tonic_letter, tonic_pc = key.tonic.letter, key.tonic.pc
        mode = key.mode_index * _INTERVALS
        base = tuple(
            (mode + (at // 5 - tonic_letter) % 7 * 12
             + (LETTER_PC[at // 5] + at % 5 - 2 - tonic_pc) % 12) * QUALITIES
            for at in range(35))
        kept = _KEPT[key] = KeyRoles(key, *key_spelling(key), base,
                                     [None] * len(FUNCTION_PARTS), [None] * len(SPELT), {})
    return kept


def text_roles(text: str) -> KeyRoles:
    """``key_roles`` of the key written ``text`` (raises ``InvalidKey`` as ``parse_key``),
    kept by the text as written: a request's key costs one lookup."""
    found = _BY_TEXT.get(text)
    if found is None:
        found = key_roles(parse_key(text))
        if len(_BY_TEXT) >= MAX_KEYS:
            _BY_TEXT.clear()
        _BY_TEXT[text] = found
    return found


_BY_TEXT: dict[str, KeyRoles] = {}


def role_head(chord: Spelt, roles: KeyRoles) -> dict[str, Any]:
    """The head of ``chord``'s readings in ``roles.key`` (``chord.head`` with its numeral and
    function: copy it, do not change it), kept in ``roles.heads``: its slot of ``ROLES`` read
    (``_parts``) the first time any key of the mode reads it, its function's text the first
    time this key reads that function."""
    slot = roles.base[chord.at] + chord.entry
    found = ROLES[slot]
    if found is None:
        found = ROLES[slot] = _parts(slot)
    numeral, function_id = found
    functions = roles.functions
    function = functions[function_id]
    if function is None:
        _, index, diatonic, tension = FUNCTION_PARTS[function_id]
        function = functions[function_id] = role_function(index, roles.key, diatonic, tension)
    global _heads_kept
    if _heads_kept >= MAX_HEADS:   # every key reads its heads again: the memory stays bounded
        for kept in (*_KEPT.values(), *_BY_TEXT.values()):
            kept.heads[:] = [None] * len(kept.heads)
        _heads_kept = 0
    _heads_kept += 1
    head = roles.heads[chord.place] = {**chord.head, "numeral": numeral, "function": function}
    return head


def _parts(slot: int) -> tuple[str, int]:
    """(numeral, function id) of the ``ROLES`` slot: what ``role_parts`` gives, the
    interpretation and the function from the table read at import, the numeral from its
    frame (kept by interpretation, class and interval: few) and the quality's mark."""
    entry = slot % QUALITIES
    interval = slot // QUALITIES
    semis = interval % 12
    at = (interval // _INTERVALS * 12 + semis) * QUALITIES + entry
    index, cls = _INDEX[at], _CLASS[entry]
    kept = (index * len(CLASSES) + cls) * _INTERVALS + interval % _INTERVALS
    frame = _FRAMES.get(kept)
    if frame is None:
        degree = interval % _INTERVALS // 12
        frame = _FRAMES[kept] = numeral_frame(INTERPRETATIONS[index], cls, degree,
                                              accidental_of(degree, semis))
    return frame[0] + _MARK[entry] + frame[1], _FUNCTION_ID[at]


def sus_role(symbol: str, roles: KeyRoles) -> tuple[str, str]:
    """(numeral, function) of the slash chord ``symbol`` heard as a sus dominant, kept."""
    found = roles.sus.get(symbol)
    if found is None:
        read = role_of(parse(symbol), roles.key)
        if len(roles.sus) >= MAX_SUS:
            roles.sus.clear()
        found = roles.sus[symbol] = (read.numeral, read.function)
    return found
