"""The shapes a voicing style stacks a chord's selected tones in (``shapes``), within an
octave of pitch 0: close stacks, drops, the forms' chains, quartal stacks, pads spread from the
bass, a line's single voices; the clashes a style avoids choose among them.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import pairwise, permutations

import numpy as np

from engine.chords import Chord
from engine.voicing.selection import BASS_SLOT, Selection, Tone, select, slots_of
from engine.voicing.styles import (
    CLASH_INTERVALS,
    FOURTH,
    FOURTHS_GAPS,
    GIVES_WAY,
    REGISTERS,
    SO_WHAT_SPAN,
    SPREAD_TIERS,
    THIN_FROM,
    THIN_LEAVES,
    Style,
)


@lru_cache(maxsize=4096)
def shapes(chord: Chord, style: Style, thin: bool = False
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every shape of ``style`` for ``chord``: ``pitch`` int64[S, V] ascending with the lowest
    voice in 0..11, ``tone`` int64[S, V] (index into the selection's tones per voice),
    ``extra`` int64[S], the register cost a shape adds: 0, except the close stacks a forms
    style may also play at its ``Register.off_form`` cost (bill_evans on an arrival no A or B
    form reaches by step) and, with ``thin`` (an arrival), its three-voice stacks at
    ``Register.thin``; and ``count``
    int64[S], the voices each shape sounds (a shape of fewer than V voices repeats its top
    voice in the columns after them)."""
    sel = select(chord, style)
    pcs = [t.pc for t in sel.tones]
    if style.layout == "forms":
        # a close stack only where every form clashes (see _preferred); over a slash bass
        # the style's inversions too
        orders = style.orders + (style.inversions if BASS_SLOT in sel.slots else ())
        tiers = [[_chain([i for k in (BASS_SLOT, *order) for i, s in enumerate(sel.slots)
                          if s == k], pcs) for order in orders], _close(pcs)]
    elif style.layout == "spread":
        tiers = _spread(pcs)
    elif style.layout == "fourths":
        tiers = [_fourths(pcs)]
        if slots_of(chord, style) is style.minor:
            # So What: the minor slots bottom-up as they stand (1 4 b7 b3 5), within two
            # octaves (a sixth chord's added 9 may not fit: then fourths as elsewhere)
            so_what = _chain(sorted(range(len(pcs)), key=lambda i: sel.slots[i]), pcs)
            if so_what[-1][0] - so_what[0][0] <= SO_WHAT_SPAN:
                tiers = [[so_what]]
    elif style.layout == "line":
        tiers = [[[(pc, i)] for i, pc in enumerate(pcs)]]
    else:
        tiers = [_close(pcs)]
        if style.layout in ("drop2", "drop3"):
            depth = 2 if style.layout == "drop2" else 3
            tiers = [[_drop(s, depth) for s in tiers[0]]]
    found = _preferred(tiers, sel.tones, style)
    register = REGISTERS[style.name]
    extra_shapes = _preferred([_close(pcs)], sel.tones, style) \
        if style.layout == "forms" and register.off_form else []
    thin_shapes = _thin(sel, style) if thin and style.layout == "forms" and register.thin \
        else []
    width = len(found[0])
    unique: dict[tuple[int, ...], tuple[list[int], int, int]] = {}
    for cost, group in ((0, found), (register.off_form, extra_shapes),
                        (register.thin, thin_shapes)):
        for voices in group:
            low = min(p for p, _ in voices) // 12 * 12
            ordered = sorted(voices)
            ordered += [ordered[-1]] * (width - len(ordered))   # the top voice repeated
            unique.setdefault(tuple(p - low for p, _ in ordered),
                              ([i for _, i in ordered], cost, len(voices)))
    pitch = np.array(list(unique), dtype=np.int64).reshape(len(unique), width)
    tone = np.array([t for t, _, _ in unique.values()], dtype=np.int64).reshape(pitch.shape)
    extra = np.array([c for _, c, _ in unique.values()], dtype=np.int64)
    count = np.array([n for _, _, n in unique.values()], dtype=np.int64)
    for array in (pitch, tone, extra, count):
        array.setflags(write=False)
    return pitch, tone, extra, count


def _thin(sel: Selection, style: Style) -> list[Voices]:
    """The close stacks of a four-voice selection without the first tone ``THIN_LEAVES``
    names (its natural 5, else an added colour tone, never a written tension or a guide
    tone); none when it has no such tone."""
    if len(sel.tones) != THIN_FROM:
        return []
    left = next((i for label in THIN_LEAVES for i, t in enumerate(sel.tones)
                 if t.label == label and (t.index == -1) == (label != "5") and not t.guide),
                None)
    if left is None:
        return []
    kept = [i for i in range(len(sel.tones)) if i != left]
    pcs = [sel.tones[i].pc for i in kept]
    return [[(p, kept[i]) for p, i in stack]
            for stack in _preferred([_close(pcs)], tuple(sel.tones[i] for i in kept), style)]


Voices = list[tuple[int, int]]   # (pitch, tone index) per voice


def _chain(order: list[int], pcs: list[int], first_gap: int = 1, gap: int = 1) -> Voices:
    """Tones in ``order`` bottom-up, each the nearest pitch at least ``gap`` above the last."""
    voices: Voices = []
    for n, i in enumerate(order):
        if not voices:
            voices.append((pcs[i], i))
            continue
        floor = voices[-1][0] + (first_gap if n == 1 else gap)
        voices.append((floor + (pcs[i] - floor) % 12, i))
    return voices


def _preferred(tiers: list[list[Voices]], tones: tuple[Tone, ...], style: Style) -> list[Voices]:
    """The shapes of the first tier that has any without a clash (else of the first tier that
    has any); for an ``open`` style only those with the fewest seconds among them."""
    clean = ([v for v in tier if not _clashes(v, tones, style)] for tier in tiers)
    found = next((tier for tier in clean if tier), None) or next(t for t in tiers if t)
    if style.open:
        fewest = min(map(_seconds, found))
        found = [v for v in found if _seconds(v) == fewest]
    return found


def _clashes(voices: Voices, tones: tuple[Tone, ...], style: Style) -> bool:
    """Whether two voices (above a bass voice) lie an ``avoid`` interval apart, or a pair of
    ``GIVES_WAY`` a minor 2nd or 9th apart."""
    upper = voices[1:] if style.bass else voices
    for k, (low, i) in enumerate(upper):
        for high, j in upper[k + 1:]:
            d, pair = abs(high - low), (tones[i].label, tones[j].label)
            if low > high:
                pair = pair[::-1]
            if d in style.avoid:
                return True
            if d in CLASH_INTERVALS and GIVES_WAY.get(pair[1]) == pair[0]:
                return True
    return False


def _seconds(voices: Voices) -> int:
    """How many neighbouring upper voices (above the lowest) lie a second apart."""
    pitches = sorted(p for p, _ in voices)[1:]
    return sum(b - a <= 2 for a, b in pairwise(pitches))


def _close(pcs: list[int]) -> list[Voices]:
    """Close stacks within an octave, one per choice of bottom tone. A doubled pitch class
    (the root of a four-way triad) may only sit at the bottom and the top."""
    stacks = []
    for b in range(len(pcs)):
        others = sorted((((pcs[i] - pcs[b]) % 12 or 12), i) for i in range(len(pcs)) if i != b)
        voices = [(pcs[b], b)] + [(pcs[b] + d, i) for d, i in others]
        pitches = [p for p, _ in voices]
        if len(set(pitches)) == len(pitches) and pitches[-1] - pitches[0] <= 12:
            stacks.append(voices)
    return stacks


def _fourths(pcs: list[int]) -> list[Voices]:
    """The quartal stacks of ``pcs``: of every order chained nearest-above, those with the
    most neighbours FOURTHS_GAPS apart, then the most perfect fourths, then the narrowest."""
    chains = [_chain(list(order), pcs) for order in permutations(range(len(pcs)))]

    def rank(chain: Voices) -> tuple[int, int, int]:
        gaps = [b[0] - a[0] for a, b in pairwise(chain)]
        return (sum(d in FOURTHS_GAPS for d in gaps), gaps.count(FOURTH),
                chain[0][0] - chain[-1][0])
    best = max(map(rank, chains))
    return [c for c in chains if rank(c) == best]


def _drop(voices: Voices, depth: int) -> Voices:
    """The close stack with its ``depth``-th voice from the top an octave lower (a stack of
    ``depth`` voices or fewer stays close: dropping its bottom voice changes nothing)."""
    if len(voices) <= depth:
        return voices
    k = len(voices) - depth
    return sorted([*voices[:k], (voices[k][0] - 12, voices[k][1]), *voices[k + 1:]])


def _spread(pcs: list[int]) -> list[list[Voices]]:
    """Tone 0 in the bass, the others above it in every order that keeps the pad open: the
    shapes of each tier of ``SPREAD_TIERS``, then a plain stack as the last resort."""
    tiers = []
    for first_gap, gap, upper_span, max_span in SPREAD_TIERS:
        kept = []
        for order in permutations(range(1, len(pcs))):
            voices = _chain([0, *order], pcs, first_gap, gap)
            upper = [p for p, _ in voices[1:]]
            if len(upper) >= 3 and max(upper) - min(upper) < upper_span:
                continue
            if voices[-1][0] - voices[0][0] <= max_span:
                kept.append(voices)
        tiers.append(kept)
    return [*tiers, [_chain(list(range(len(pcs))), pcs)]]
