"""A search pattern read into slots (API.md 14): chord symbols (``"Dm7 G7 Cmaj7"``, a slot's
root its pitch class) or roman numerals (``"ii7 V7 Imaj7"``, its root the semitones above the
tonic); ``?`` is any one chord (no slot). ``_plan`` compiles the slots into the ``Plan`` the
scan follows over an index (``engine.corpus.scan``); ``similarTo`` reads a progression through
the same ``read_pattern``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.chords import parse
from engine.corpus.index import Index
from engine.corpus.scan import _bounds
from engine.corpus.tokens import family_of, token
from engine.errors import InvalidChord, InvalidRequest
from engine.requests import MAX_PROGRESSION

NAMES = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
_ROMAN = re.compile(r"^([b#]?)(VII|VI|IV|V|III|II|I|vii|vi|iv|v|iii|ii|i)(.*)$")
DEGREES = {"I": 0, "II": 2, "III": 4, "IV": 5, "V": 7, "VI": 9, "VII": 11}
# A numeral's suffix -> the chord quality written after a root (lower-case numerals: minor).
MINOR_SUFFIX = {"": "m", "7": "m7", "6": "m6", "9": "m9", "11": "m11", "maj7": "m(maj7)"}
SPECIAL_SUFFIX = {"ø": "m7b5", "ø7": "m7b5", "h": "m7b5", "h7": "m7b5", "m7b5": "m7b5",
                  "o": "dim", "°": "dim", "o7": "dim7", "°7": "dim7", "dim": "dim",
                  "dim7": "dim7", "+": "aug"}


@dataclass(frozen=True)
class Slot:
    pc: int          # root: pitch class (symbols) or semitones above the tonic (numerals)
    family: int
    quality: str
    symbol: str


def read_pattern(text: str) -> tuple[list[Slot | None], bool]:
    """The slots of a pattern (None for ``?``) and whether it is written in numerals."""
    items = text.replace("|", " ").split()
    if not items:
        raise InvalidRequest("field 'pattern' has no chords", field="pattern")
    if len(items) > MAX_PROGRESSION:
        raise InvalidRequest(f"field 'pattern' has more than {MAX_PROGRESSION} chords",
                             field="pattern")
    roman = any(_ROMAN.match(i) for i in items if i != "?")
    slots: list[Slot | None] = []
    for n, item in enumerate(items):
        if item == "?":
            slots.append(None)
            continue
        symbol, offset = (_numeral(item, n) if roman else (item, 0))
        try:
            chord = parse(symbol)
        except InvalidChord as e:
            raise (e.at_index(n) if not roman else InvalidChord(item, e.reason, index=n)) \
                from None
        pc = (chord.root_pc + offset) % 12 if roman else chord.root_pc
        slots.append(Slot(pc, family_of(chord), chord.quality, item))
    if all(s is None for s in slots):
        raise InvalidRequest("field 'pattern' needs at least one chord besides '?'",
                             field="pattern")
    return slots, roman


def _numeral(item: str, index: int) -> tuple[str, int]:
    """A roman numeral as a chord symbol on C (``ii7`` -> ``Dm7``), and 0."""
    m = _ROMAN.match(item)
    if m is None:
        raise InvalidChord(item, "not a roman numeral (pattern written in numerals)",
                           index=index)
    accidental, numeral, suffix = m.groups()
    pc = (DEGREES[numeral.upper()] + {"b": -1, "#": 1, "": 0}[accidental]) % 12
    if suffix in SPECIAL_SUFFIX:
        quality = SPECIAL_SUFFIX[suffix]
    elif numeral.islower():
        quality = MINOR_SUFFIX.get(suffix, "m" + suffix)
    else:
        quality = suffix
    return NAMES[pc] + quality, 0


# Places from the suffix array are read in the stream's order once sorted; past this share of
# the stream, a pass over a column of it (the rarest token of the run, or the family) reads the
# same places in order without sorting them (measured: 70,000 places checked at random cost
# 14 ms of CPU, sorted 4.6 ms).
SCAN_SHARE = 32


@dataclass(frozen=True)
class Plan:
    """A pattern compiled for the scan (``engine.corpus.scan``)."""

    n: int                                  # chords, '?' included
    roman: bool
    exact: bool
    named: tuple[npt.NDArray[np.int64], ...]   # offsets, families, pitch classes, qualities
    places: npt.NDArray[np.int32]           # sorted suffix-array places (empty when scanning)
    column: str                             # the stream's column scanned ("" for places)
    value: int                              # the value whose places are scanned
    offset: int                             # a place's offset in the pattern
    count: int                              # how many places

    def arrays(self, idx: Index) -> tuple[Any, ...]:
        st = idx.stream
        return (*self.named, self.roman, self.exact, np.asarray(st.tokens),
                np.asarray(st.song), idx.starts, np.asarray(st.family), np.asarray(st.root),
                np.asarray(st.degree), np.asarray(st.quality))

    def scan(self, idx: Index) -> tuple[Any, ...]:
        column = np.asarray(getattr(idx.stream, self.column)) if self.column else _NONE
        return self.places, column, self.value, self.offset, self.n


_NONE = np.zeros(0, dtype=np.uint8)


def _plan(idx: Index, text: str, exact: bool) -> Plan:
    slots, roman = read_pattern(text)
    quality_ids = {q: i for i, q in enumerate(idx.stream.qualities)}
    known = [(p, s) for p, s in enumerate(slots) if s is not None]
    named = (np.array([p for p, _ in known], dtype=np.int64),
             np.array([s.family for _, s in known], dtype=np.int64),
             np.array([s.pc for _, s in known], dtype=np.int64),
             np.array([quality_ids.get(s.quality, -2) for _, s in known], dtype=np.int64))
    plan = partial(Plan, len(slots), roman, exact, named)
    best: tuple[int, int] = (0, 0)  # (length, end) of the longest run of tokens
    run = 0
    for p in range(1, len(slots)):
        run = run + 1 if slots[p] is not None and slots[p - 1] is not None else 0
        if run > best[0]:
            best = (run, p)
    tokens_, families = _counts(idx)
    if best[0] > 0:
        length, end = best
        tokens = {}
        for p in range(end - length + 1, end + 1):
            a, b = slots[p - 1], slots[p]
            assert a is not None and b is not None
            tokens[p] = token((b.pc - a.pc) % 12, b.family)
        lo, hi = _bounds(np.asarray(idx.stream.tokens), np.asarray(idx.suffixes),
                         np.array(list(tokens.values()), dtype=np.uint8))
        if (hi - lo) * SCAN_SHARE <= len(idx.stream.tokens):
            return plan(np.sort(np.asarray(idx.suffixes[lo:hi])), "", 0, end - length + 1,
                        int(hi - lo))
        rarest = min(tokens, key=lambda p: (int(tokens_[tokens[p]]), p))
        return plan(_NO_PLACES, "tokens", tokens[rarest], rarest,
                    int(tokens_[tokens[rarest]]))
    family_at = {p: s.family for p, s in known}
    first = min(family_at, key=lambda p: (int(families[family_at[p]]), p))
    return plan(_NO_PLACES, "family", family_at[first], first,
                int(families[family_at[first]]))


_NO_PLACES = np.zeros(0, dtype=np.int32)


# id of an index's token array -> (the array, kept so that its id is not reused, the counts
# of its tokens, of its families)
_COUNTS: dict[int, tuple[Any, npt.NDArray[np.int64], npt.NDArray[np.int64]]] = {}


def _counts(idx: Index) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """How many chords of each token and of each family the index holds (counted once per
    index; the last 8 indexes kept)."""
    tokens = idx.stream.tokens
    kept = _COUNTS.get(id(tokens))
    if kept is None:
        if len(_COUNTS) >= 8:
            _COUNTS.clear()
        family = np.asarray(idx.stream.family)
        kept = _COUNTS[id(tokens)] = (
            tokens, np.bincount(np.asarray(tokens), minlength=256).astype(np.int64),
            np.bincount(family[family >= 0].astype(np.int64), minlength=256))
    return kept[1], kept[2]
