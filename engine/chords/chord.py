"""The parsed chord: a frozen record with every derived field filled in once.

``engine.chords.symbols.parse(symbol)`` builds these (cached); everything else reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any

from engine.chords.notes import PitchClass, Spelled


@dataclass(frozen=True, slots=True)
class Chord:
    """A chord symbol read against the quality tables.

    ``intervals``/``semitones``/``notes``/``pcs`` describe the chord above its root, in
    interval order (root first); ``semitones`` of ninths and beyond are above 12.
    ``bass`` is the slash bass (None without a slash); ``inversion`` is 0 without a slash
    (or a bass on the root), 1..3 for a bass on the 3rd/5th/7th (any third/fifth/seventh
    label), 4..6 for a bass on the 9th/11th/13th (a 2nd, 4th or 6th counts as those), None for
    a bass that is not a chord tone.
    """

    symbol: str                      # as given by the user
    root: Spelled
    quality: str                     # canonical suffix, "" for the major triad
    intervals: tuple[str, ...]       # degree labels: "1", "b3", "5", "b7", "9", ...
    semitones: tuple[int, ...]       # above the root, matching intervals
    notes: tuple[str, ...]           # spelled note names, root first
    pcs: tuple[PitchClass, ...]      # pitch classes of notes
    mask: int                        # 12-bit pitch-class set of the chord tones (bass excluded)
    name: str                        # plain English, with the root: "C dominant seventh flat nine"
    bass: Spelled | None = None
    inversion: int | None = 0
    # The hash, computed once: parsed chords key the engine's caches (``lru_cache`` on a
    # (chord, key) pair), and hashing eleven fields again at every lookup cost 0.26 µs
    # (in-process ``analyze`` warm 2.68 -> 2.2 µs with ``Key``'s the same). At construction,
    # not at the first hash: a lazy check cost every analyze 0.1 µs. Of four plain fields,
    # not all eleven: chords equal in every field are equal in those, and a string keeps its
    # own hash where the tuples are hashed item by item (all eleven cost a cold parse 0.6 µs
    # a symbol). Written out here and in ``Key``, not shared through a
    # decorator: one ``__hash__`` serving both classes cost 360 instructions more a cache
    # lookup (the interpreter's attribute cache at its line flips between them).
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash",
                           hash((self.symbol, self.quality, self.mask, self.inversion)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by its values, never its hash: a string's hash differs between processes.
        return (Chord, _values(self))

    @property
    def root_pc(self) -> PitchClass:
        return self.root.pc

    @property
    def root_name(self) -> str:
        return self.root.name

    @property
    def bass_name(self) -> str | None:
        return None if self.bass is None else self.bass.name

    @property
    def bass_pc(self) -> PitchClass | None:
        return None if self.bass is None else self.bass.pc

    @property
    def canonical(self) -> str:
        """The symbol in canonical spelling: root, canonical quality, ``/bass``
        (``"C♯ø"`` -> ``"C#m7b5"``, ``"Fmi7"`` -> ``"Fm7"``)."""
        return self.root.name + self.quality + ("" if self.bass is None else "/" + self.bass.name)

    def tone(self, label: str) -> str | None:
        """The spelled note of degree label ``label`` ("3", "b7"), or None if absent."""
        try:
            return self.notes[self.intervals.index(label)]
        except ValueError:
            return None


# The fields given to ``__init__``, in order: what a pickle is made of.
_values = attrgetter(*(f.name for f in fields(Chord) if f.init))
