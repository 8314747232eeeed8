"""A progression read against its key, for reharmonize (``engine.reharm``).

Each chord is read once through analyze's rule grid (``role_of`` and the quality classes) into
a ``Slot``: its family, its scale degree and whether it can be tonicised (a target). The whole
progression is then read in context by analyze's own bracket finder (API.md 3.1,
``engine.analysis.context``): which chords are the ii of a ii-V, which are arrivals (the chord
a bracket's dominant meets), and whether the tune is a modal vamp. The helpers below answer
the questions the techniques share: where a dominant resolves, where a chain of dominants
starts, which chord is the ii of a ii-V.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from engine.analysis import CLASSES, find_brackets, heard_as, quality_class, role_of
from engine.chords import NO_CHORD, Chord, Key, PitchClass, Spelled, parse, parse_key
from engine.reharm import rules


@dataclass(frozen=True, slots=True)
class Slot:
    """One input chord read against the key."""

    chord: Chord | None        # None for NC
    symbol: str                # as given
    pc: PitchClass             # of the root; -1 for NC
    family: str                # rules.CLASS_FAMILY of its quality class; "other" if none
    degree: int | None         # 1..7 when the root is a note of the key's scale
    diatonic: bool             # every chord tone is in the key's scale (analyze's flag)
    target: bool               # a chord of the key that can be tonicised

    @property
    def root(self) -> Spelled:
        assert self.chord is not None
        return self.chord.root

    @property
    def bass(self) -> Spelled:
        """The sounding bass: the slash bass if there is one, else the root."""
        assert self.chord is not None
        return self.chord.root if self.chord.bass is None else self.chord.bass

    @property
    def replaceable(self) -> bool:
        return self.chord is not None and self.chord.bass is None


@dataclass(frozen=True, slots=True)
class Context:
    key: Key
    scale_pcs: frozenset[PitchClass]
    slots: tuple[Slot, ...]
    iis: frozenset[int] = frozenset()       # the ii of a ii-V (Fm7 of Fm7 Bb7 Ebmaj7)
    arrivals: frozenset[int] = frozenset()  # the chord a bracket's dominant arrives at
    modal: bool = False                     # a modal vamp (So What): no functional harmony


@lru_cache(maxsize=8192)
def read_slot(symbol: str, key_name: str) -> Slot:
    """A chord read against a key; cached by text, as chords and keys are (parse is too)."""
    if symbol in NO_CHORD:
        return Slot(None, symbol, -1, "other", None, False, False)
    chord, key = parse(symbol), parse_key(key_name)
    role = role_of(chord, key)
    cls = CLASSES[quality_class(chord)]
    family = rules.CLASS_FAMILY.get(cls.name, "other")
    scale_pcs = [sp.pc for sp in key.scale]
    pc = chord.root.pc
    degree = scale_pcs.index(pc) + 1 if pc in scale_pcs else None
    # A target is a chord of the key (the grid's diatonic role); the dominant a minor key
    # takes from harmonic minor (E7 in A minor: the secondary dominant of i); or the key's own
    # triad on its degree coloured by a sixth or seventh from outside the key, as the
    # melodic-minor tonics Dm6 and Dm(maj7) of D minor (the grid calls them variants).
    triad = cls.semitones[:3]
    coloured = cls.name in rules.TONIC_COLOURS \
        and all((pc + step) % 12 in scale_pcs for step in triad)
    own = role.role == "diatonic" or coloured \
        or (role.role == "secondary" and role.target_offset == 0)
    target = own and family in rules.TARGET_FAMILIES
    return Slot(chord, symbol, pc, family, degree, role.diatonic, target)


def analyse(symbols: list[str], key: Key, n_bars: int | None = None) -> Context:
    """The progression read against ``key``; ``n_bars`` (default a chord a bar) tells how
    long the chords last, for the modal test."""
    slots = tuple(read_slot(symbol, key.name) for symbol in symbols)
    played = [i for i, s in enumerate(slots) if s.chord is not None]
    iis: set[int] = set()
    arrivals: set[int] = set()
    for b in find_brackets([heard_as(slots[i].chord) for i in played]):
        if b.start != b.dominant:
            iis.add(played[b.start])
        if b.target is not None and b.arrives != "deceptive":
            arrivals.add(played[b.target])
    return Context(key, frozenset(sp.pc for sp in key.scale), slots, frozenset(iis),
                   frozenset(arrivals), _modal(slots, len(slots) if n_bars is None else n_bars))


def _modal(slots: tuple[Slot, ...], n_bars: int) -> bool:
    """A modal vamp: no dominant seventh chord at all (sus chords are modal colours), and the
    chords are held ``rules.MODAL_BARS_PER_CHORD`` bars or more on average (So What: 32 bars,
    three chords)."""
    if any(s.family == "dominant" for s in slots):
        return False
    held = 1 + sum(1 for a, b in pairwise(slots) if a.symbol != b.symbol)
    return n_bars >= rules.MODAL_BARS_PER_CHORD * held


def fifth_above(upper: Slot, lower: Slot) -> bool:
    return upper.pc >= 0 and lower.pc >= 0 and (upper.pc - lower.pc) % 12 == 7


def resolution(ctx: Context, i: int) -> int | None:
    """Index of the chord that the dominant at ``i`` resolves to (down a fifth), if any."""
    slots = ctx.slots
    if slots[i].family != "dominant":
        return None
    j = i + 1 if i + 1 < len(slots) else 0
    return j if j != i and fifth_above(slots[i], slots[j]) else None


def tonicised(ctx: Context, i: int) -> bool:
    """Whether the chord at ``i`` is the resolution of the dominant before it (cyclically,
    as ``resolution`` reads a final turnaround)."""
    return resolution(ctx, i - 1 if i > 0 else len(ctx.slots) - 1) == i


def chain_start(ctx: Context, d: int) -> int:
    """Index of the first of the dominants that fall by fifths, one into the next, into the
    dominant at ``d`` (``d`` itself when the chord before it is no such dominant)."""
    k = d
    while k > 0 and ctx.slots[k - 1].family == "dominant" \
            and fifth_above(ctx.slots[k - 1], ctx.slots[k]):
        k -= 1
    return k


def ii_of(ctx: Context, d: int) -> int | None:
    """Index of the ii before the dominant at ``d`` (a minor-type chord a fifth above it)."""
    s = d - 1
    if s >= 0 and ctx.slots[s].family in ("minor", "half-diminished") \
            and fifth_above(ctx.slots[s], ctx.slots[d]):
        return s
    return None
