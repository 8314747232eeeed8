"""A reading's numeral and function in a key, as analyze gives them, by index.

A chord's numeral in a key depends on the key's mode, the root's interval above the tonic as
spelled (letters counted and semitones: ``bVI`` against ``#V``) and the quality, never on
the tonic itself: the same in every key of a mode. Its function depends on the same and,
through its text, on the tonic's name ("borrowed from C dorian"), and there are few of them in
a key. So ``ROLES`` keeps, by mode, interval and quality (``KeyRoles.base`` + quality index),
the numeral and the number of its function (``FUNCTION_IDS``), shared by every key of the
mode, and each key keeps the text of each function number. Both are read from analyze's own
rule (``role_in_key``, ~3-6 µs) the first time a slot is read, then by index: every key of
the bench's cold pass reads a numeral in ~0.2 µs, a chord seen in one key is known in all.

A slash chord heard as a sus dominant (``F/G``: G9sus4, ``readings.SLASH_SUS``) takes the role
of that chord (``role_of``), kept per key under its written symbol; over any other bass a
chord's role is its own (a slash bass is not a chord tone).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.analysis import SLASH_SUS, role_in_key, role_of
from engine.chords import LETTER_PC, Key, parse
from engine.identify.naming import QUALITIES, SPELT, Spelt, key_spelling
from engine.identify.vocabulary import VOCABULARY

MAX_KEYS = 256          # keys kept: every spelled tonic in both modes is 70
MAX_SUS = 4096          # sus slash chords kept a key

# quality index -> the bass's semitones above the root over which it is heard as a sus chord
SUS_BASS: tuple[frozenset[int], ...] = tuple(
    frozenset(bass for semitones, bass in SLASH_SUS if semitones == e.semitones)
    for e in VOCABULARY)

_INTERVALS = 7 * 12     # letters counted (0..6) x semitones (0..11) above the tonic
ROLES: list[tuple[str, int] | None] = [None] * (2 * _INTERVALS * QUALITIES)
"""(mode * 84 + letters * 12 + semitones above the tonic) * ``QUALITIES`` + quality index ->
(numeral, function id), once read (``role``)."""
FUNCTION_IDS: dict[tuple[Any, ...], int] = {}
"""(mode, interpretation, diatonic, tension source) -> the number of the function it reads as."""


class KeyRoles(NamedTuple):
    """What a key reads its readings' roles by."""

    key: Key
    roots: tuple[int, ...]           # pitch class -> its spelling in the key (``key_spelling``)
    other: tuple[str, ...]           # ... and its name
    base: tuple[int, ...]            # spelled root (``Spelt.at``) -> its slot in ``ROLES`` less the quality
    functions: list[str | None]      # function id -> its text in this key
    chords: list[tuple[str, str] | None]   # ``Spelt.place`` -> (numeral, function), once read
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
        kept = _KEPT[key] = KeyRoles(key, *key_spelling(key), base, [], [None] * len(SPELT),
                                     {})
    return kept


def role(chord: Spelt, roles: KeyRoles) -> tuple[str, str]:
    """(numeral, function) of ``chord`` in ``roles.key``, kept in ``roles.chords``: read from
    ``role_in_key`` the first time its slot is read in any key of the mode, and the first time
    its function is read in this key."""
    out = roles.chords[chord.place] = _role(chord, roles)
    return out


def _role(chord: Spelt, roles: KeyRoles) -> tuple[str, str]:
    slot = roles.base[chord.at] + chord.entry
    found = ROLES[slot]
    if found is not None:
        numeral, function_id = found
        functions = roles.functions
        if function_id < len(functions):
            function = functions[function_id]
            if function is not None:
                return numeral, function
    key = roles.key
    read = role_in_key(chord.spelled, chord.mask, VOCABULARY[chord.entry].labels,
                       chord.quality, key)
    function_id = FUNCTION_IDS.setdefault(
        (key.mode_index, read.interpretation, read.diatonic, read.tension_source),
        len(FUNCTION_IDS))
    ROLES[slot] = (read.numeral, function_id)
    functions = roles.functions
    if function_id >= len(functions):
        functions.extend([None] * (function_id + 1 - len(functions)))
    functions[function_id] = read.function
    return read.numeral, read.function


def sus_role(symbol: str, roles: KeyRoles) -> tuple[str, str]:
    """(numeral, function) of the slash chord ``symbol`` heard as a sus dominant, kept."""
    found = roles.sus.get(symbol)
    if found is None:
        read = role_of(parse(symbol), roles.key)
        if len(roles.sus) >= MAX_SUS:
            roles.sus.clear()
        found = roles.sus[symbol] = (read.numeral, read.function)
    return found
