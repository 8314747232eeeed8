"""Pitches of single lines: chord roles, the walking bass, and the pattern-lane figures.

Everything here picks MIDI numbers for a chord; rhythm lives in ``styles`` and ``arrange``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from engine.chords import Chord

BASS_LOW, BASS_HIGH = 28, 52         # E1..E3: the double bass's working register
ROOT_HIGH = 43                       # G2: roots of a pattern bass stay low, its line climbs above
PATTERN_LOW = {"strum": 52, "arpeggio": 60, "riff": 48, "boogie": 40, "montuno": 60}
GUITAR_LOW = 40                      # E2: a guitar grip moved under the piano goes no lower

# The altered fifth comes first: over a 7alt, 7#5, 7b13 or 7b5 the bass plays the fifth the
# chord has (the #5/b13 a half step above the natural one, or the b5), never the natural 5th
# a half step from the comper's b13 (Levine, The Jazz Theory Book: altered dominants).
_ROLE_LABELS: dict[str, tuple[str, ...]] = {
    "3": ("3", "b3", "4", "2"), "5": ("#5", "b13", "b5", "5"), "7": ("b7", "7", "bb7", "6"),
    "6": ("6", "bb7"),
}
ALTERED_FIFTHS = frozenset({"#5", "b13", "b5"})   # a chord with one has no natural 5th below
_ROLE_DEFAULT = {"3": 4, "5": 7, "7": 12, "6": 9}   # no seventh: the octave
MAX_LEAP = 12                        # no bass interval wider than an octave
# Approach notes into the next root, as offsets from it, and how often each is chosen:
# chromatic from below and above, the dominant a fifth above or a fourth below, a scale step
# above and below.
APPROACHES: tuple[tuple[int, int], ...] = ((-1, 4), (1, 3), (7, 1), (-5, 1), (2, 1), (-2, 1))


def place(pc: int, near: int, low: int, high: int) -> int:
    """The pitch of class ``pc`` within [low, high] nearest ``near`` (lower on a tie)."""
    base = near - ((near - pc) % 12)
    best = base if base >= low else base + 12
    for cand in (base, base + 12):
        if low <= cand <= high and abs(cand - near) < abs(best - near):
            best = cand
    while best > high:
        best -= 12
    while best < low:
        best += 12
    return best


def bass_pc(chord: Chord) -> int:
    """What the bass plays for a chord: the slash bass, else the root."""
    return chord.root.pc if chord.bass is None else chord.bass.pc


def role_pc(chord: Chord, role: str) -> int:
    """Pitch class of a chord role: ``R`` ``3`` ``5`` ``6`` ``7`` ``8``."""
    if role in ("R", "8"):
        return bass_pc(chord)
    for label in _ROLE_LABELS[role]:
        if label in chord.intervals:
            return (chord.root.pc + chord.semitones[chord.intervals.index(label)]) % 12
    return (chord.root.pc + _ROLE_DEFAULT[role]) % 12


def chord_tone_pcs(chord: Chord, limit: int = 4) -> list[int]:
    """The chord's first ``limit`` tones as pitch classes: root, third, fifth, seventh (those
    it has, ``role_pc``) then its tensions in order; an altered dominant's natural 5th (a
    ``7b13`` has both) is left out (``ALTERED_FIFTHS``)."""
    return list(_tones(chord)[:limit])


@lru_cache(maxsize=4096)
def _tones(chord: Chord) -> tuple[int, ...]:
    labels = dict(zip(chord.intervals, chord.pcs, strict=True))
    altered = not ALTERED_FIFTHS.isdisjoint(labels)
    roles = [chord.root.pc]
    for role in ("3", "5", "7"):
        found = next((labels[lab] for lab in _ROLE_LABELS[role] if lab in labels), None)
        if found is not None:
            roles.append(found)
    rest = [pc for lab, pc in labels.items() if not (altered and lab == "5")]
    out: list[int] = []
    for pc in roles + rest:
        if pc not in out:
            out.append(pc)
    return tuple(out)


def fit(pc: int, ideal: int, anchors: tuple[int | None, ...], low: int = BASS_LOW,
        high: int = BASS_HIGH) -> int:
    """The pitch of class ``pc`` in [low, high] nearest ``ideal`` (lower on a tie) among those
    within an octave of every anchor (None anchors are ignored). Anchors that lie within an
    octave of each other always leave such a pitch in a register two octaves wide."""
    cands = range(low + (pc - low) % 12, high + 1, 12)
    near = [p for p in cands if all(a is None or abs(p - a) <= MAX_LEAP for a in anchors)]
    return min(near or cands, key=lambda p: (abs(p - ideal), p))


def avoided_pcs(chord: Chord) -> frozenset[int]:
    """Pitch classes the bass leaves out over ``chord``: an altered dominant's natural 5th
    (``ALTERED_FIFTHS``), even as a passing approach note."""
    if ALTERED_FIFTHS.isdisjoint(chord.intervals):
        return frozenset()
    return frozenset({(chord.root.pc + 7) % 12})


def approach_notes(target: int, prev: int,
                   avoid: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """(note, weight) of the approach notes into ``target`` (a MIDI pitch) that lie in the
    bass register within an octave of ``prev``, the note before them, and differ from it (a
    repeated note is no approach: V -> I's dominant approach would restate V's root)."""
    return [(target + offset, weight) for offset, weight in APPROACHES
            if BASS_LOW <= target + offset <= BASS_HIGH and target + offset != prev
            and abs(target + offset - prev) <= MAX_LEAP and (target + offset) % 12 not in avoid]


def approach(target: int, prev: int, rng: random.Random,
             avoid: frozenset[int] = frozenset()) -> int:
    """An approach note into ``target`` (``approach_notes``), never ``prev`` itself nor a
    pitch class of ``avoid``; one always exists when ``prev`` is within an octave of
    ``target`` (the chromatic ones from below and above cannot both be avoided)."""
    notes = approach_notes(target, prev, avoid)
    if not notes:
        return target - 1 if prev < target else target + 1
    return rng.choices([n for n, _ in notes], [w for _, w in notes])[0]


# Costs of a pattern bass's root choices (``pattern_roots``): a leap wider than an octave only
# when nothing else is possible, then as few figure notes moved off their place above the
# root as can be, then roots near each other.
LEAP_COST, FOLD_COST, MOVE_COST = 100.0, 1.0, 0.01
START = 40                           # E2: where a bass line starts from


def figure_shape(chord: Chord, roles: Sequence[str], root: int) -> list[int | None]:
    """Where the notes of a pattern bass figure sit when it climbs from ``root``: the root,
    its octave, the other chord tones above it; None for a note placed by what surrounds it
    (``A`` an approach into the next root, ``N`` the next root itself, ``T`` the key's
    tonic)."""
    out: list[int | None] = []
    for role in roles:
        pc = role_pc(chord, role) if role not in "ATN" else 0
        out.append(None if role in "ATN" else root + (12 if role == "8" else (pc - root) % 12))
    return out


def pattern_roots(figures: list[tuple[Chord, tuple[str, ...]]]) -> list[int]:
    """The root pitch (in BASS_LOW..ROOT_HIGH) of each figure of a pattern bass, one figure
    (chord, roles of its notes) per sounding chord in order. The roots are chosen over the
    whole line at once (a shortest path over each root's octaves) so that every figure keeps
    its shape above its own root and its last note still leads into the next root within an
    octave: the next root's octave is chosen from the figure's end, or the figure's octave
    from the line, before any note of a figure is moved (``FOLD_COST``)."""
    options = [list(range(BASS_LOW + (bass_pc(c) - BASS_LOW) % 12, ROOT_HIGH + 1, 12))
               for c, _ in figures]
    shapes = [[figure_shape(c, roles, r) for r in opts]
              for (c, roles), opts in zip(figures, options, strict=True)]
    cost = [_own(shape) + MOVE_COST * abs(r - START) for r, shape in zip(options[0], shapes[0],
                                                                         strict=True)]
    back: list[list[int]] = []
    for i in range(1, len(figures)):
        row, links = [], []
        lead = figures[i - 1][1][-1]
        for r, shape in zip(options[i], shapes[i], strict=True):
            steps = [cost[k] + _join(lead, shapes[i - 1][k], p, r)
                     for k, p in enumerate(options[i - 1])]
            k = min(range(len(steps)), key=lambda k: (steps[k], k))
            row.append(steps[k] + _own(shape))
            links.append(k)
        cost = row
        back.append(links)
    k = min(range(len(cost)), key=lambda k: (cost[k], k))
    path = [k]
    for links in reversed(back):
        k = links[k]
        path.append(k)
    return [opts[k] for opts, k in zip(options, reversed(path), strict=True)]


def _own(shape: list[int | None]) -> float:
    """The cost of a figure by itself: its notes above the register, folded."""
    return FOLD_COST * sum(p is not None and p > BASS_HIGH for p in shape)


def _join(role: str, shape: list[int | None], root: int, nxt: int) -> float:
    """The cost of going from a figure on ``root`` (``shape``, its last note's ``role``) to
    the next root ``nxt``: its last note must reach ``nxt`` within an octave, as an approach
    note or as it stands, else folded nearer."""
    last = shape[-1]
    before = next((p for p in reversed(shape[:-1]) if p is not None), root)
    cost = MOVE_COST * abs(nxt - root)
    if role in "TN":
        return cost
    if role == "A":
        return cost + (0 if approach_notes(nxt, before) else LEAP_COST)
    assert last is not None
    if abs(last - nxt) <= MAX_LEAP:
        return cost
    folded = fit(last % 12, last, (before, root, nxt))
    return cost + (FOLD_COST if all(abs(folded - a) <= MAX_LEAP for a in (before, nxt))
                   else LEAP_COST)


def walk(chord: Chord, beats: int, root: int, target: int | None,
         rng: random.Random) -> list[int]:
    """A walking line over one chord from ``root`` (its pitch, chosen by the caller): chord
    tones heading for ``target`` (the next root's pitch, within an octave of ``root``), and
    an approach note into it on the last beat. Without a target the line climbs the chord.
    No interval of the line, nor the step into ``target``, is wider than an octave."""
    if beats == 1:
        return [root]
    line = [root]
    if target is None:
        tones = chord_tone_pcs(chord)
        for i in range(1, beats):
            line.append(fit(tones[i % len(tones)], line[-1] + 2, (line[-1],)))
        return line
    # An approach within an octave of the root first, then chord tones filling towards it.
    last = approach(target, root, rng, avoided_pcs(chord))
    tones = chord_tone_pcs(chord)[1:] or [chord.root.pc]
    for i in range(1, beats - 1):
        ideal = round(root + (last - root) * i / (beats - 1))
        cands = {fit(pc, ideal, (line[-1], last)) for pc in tones}
        fresh = [c for c in cands if c != line[-1] and (i < beats - 2 or c != last)]
        line.append(min(fresh or cands, key=lambda c: (abs(c - ideal), c)))
    line.append(last)
    return line


def figure_pitches(figure: str, chord: Chord, index: int, near: int) -> list[int]:
    """Pitches of hit number ``index`` of a pattern-lane figure over ``chord``.

    strum: a close chord of up to four tones from the root up (a guitar grip);
    arpeggio: chord tones up and down from the root; riff: root, fifth, octave, seventh;
    boogie: root, third, fifth, sixth, seventh and back (the shuffle guitar figure);
    montuno: the chord's root, third and fifth in turn, each doubled at the octave (the piano
    montuno's two hands).
    """
    low = PATTERN_LOW[figure]
    root = place(bass_pc(chord) if figure in ("riff", "boogie") else chord.root.pc,
                 near, low, low + 11)
    if figure == "strum":
        return _stack(root, chord_tone_pcs(chord))
    if figure == "montuno":
        tones = _stack(root, chord_tone_pcs(chord, 3))
        cycle = [*tones, tones[0] + 12, *tones[-1:0:-1]]
        pitch = cycle[index % len(cycle)]
        return [pitch, pitch + 12]
    if figure == "arpeggio":
        stack = _stack(root, chord_tone_pcs(chord, 5))
        stack = [*stack, stack[0] + 12]
        cycle = stack + stack[-2:0:-1]
        return [cycle[index % len(cycle)]]
    roles = ("R", "5", "8", "7") if figure == "riff" else ("R", "3", "5", "6", "7", "6", "5", "3")
    role = roles[index % len(roles)]
    pitch = place(role_pc(chord, role), root, root, root + 11)
    return [pitch + 12 if role == "8" else pitch]


def beside(grip: list[int], voicing: list[int]) -> list[int]:
    """A pattern-lane grip played with the harmony lane's ``voicing``: a guitar under the
    piano (the grip moved down by octaves while its top reaches the voicing's lowest note and
    it stays above ``GUITAR_LOW``), never doubling one of the piano's notes in unison."""
    floor = min(voicing)
    while max(grip) >= floor and min(grip) - 12 >= GUITAR_LOW:
        grip = [p - 12 for p in grip]
    kept = [p for p in grip if p not in voicing]
    return kept or [grip[0] - 12 if grip[0] - 12 >= GUITAR_LOW else grip[0]]


def _stack(root: int, pcs: list[int]) -> list[int]:
    """Tones stacked upwards from ``root``, each above the last, within two octaves."""
    notes = [root]
    for pc in pcs[1:]:
        nxt = notes[-1] + ((pc - notes[-1]) % 12 or 12)
        if nxt - root < 24:
            notes.append(nxt)
    return notes
