"""From a chord and a style to candidate voicings: the tones the style holds (``select``), the
shapes it stacks them in (``shapes``) and every placement of those shapes inside a MIDI range
and the style's register windows (``candidates``, placed and costed by
``engine.voicing.register``), as numpy integer arrays for the kernels.

The rules themselves are data in ``engine.voicing_styles``; this module only applies them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache, partial
from itertools import pairwise, permutations

import numpy as np

from engine.analysis import CLASSES, quality_class
from engine.chords import ADDITIONS, Chord, Spelled, degree_number, parse_spelled, spell_interval
from engine.voicing.register import register_cost, split_placements
from engine.voicing.styles import (
    ADDED_TONES,
    ALTERATIONS,
    CLASH_INTERVALS,
    DEEP_REACH,
    DIM_SEVENTHS,
    FAMILY_OF_DEGREE,
    FAMILY_ORDER,
    FOURTH,
    FOURTHS_GAPS,
    GIVE_UP_ORDER,
    GIVES_WAY,
    NAMED_EXTENSIONS,
    REACH_COST,
    REDUNDANT_ROLES,
    REGISTERS,
    SO_WHAT_SPAN,
    SPREAD_TIERS,
    SUS_LABELS,
    THIN_FROM,
    THIN_LEAVES,
    WRITTEN_MIN_UPPER,
    WRITTEN_STAYS,
    WRITTEN_TAKES,
    Style,
)


@dataclass(frozen=True, slots=True)
class Tone:
    """One voice's pitch class: its spelling, degree label and whether it is a guide tone."""

    spelled: Spelled
    label: str           # "b3", "9", ... ("bass" for a slash bass)
    pc: int
    guide: bool          # the chord's 3rd (or sus tone) or 7th (or the 6 of a sixth chord)
    index: int           # position in chord.notes, -1 for added tones and a slash bass


BASS_SLOT = -1                   # the slot of a slash bass, below every slot of the style


@dataclass(frozen=True, slots=True)
class Selection:
    tones: tuple[Tone, ...]      # in slot order
    slots: tuple[int, ...]       # the slot each tone fills (BASS_SLOT for a slash bass)
    omitted: tuple[str, ...]     # spelled chord tones that do not sound


@dataclass(frozen=True, slots=True)
class Candidates:
    """Every placement of a style's shapes in a range. ``midi`` int64[C, V] rows ascending,
    the first ``count[c]`` notes of row c sounding (the rest repeat its top note);
    ``tone`` int64[C, V] index into ``selection.tones`` per voice; ``guide`` int8[C, V];
    ``register`` int64[C] (see ``register_cost``)."""

    selection: Selection
    midi: np.ndarray
    tone: np.ndarray
    guide: np.ndarray
    span: int                    # the narrowest shape's span in semitones
    register: np.ndarray         # int64[C]: the register cost of each row (search units)
    count: np.ndarray            # int64[C]: the voices each row sounds (the first ``count``)


def _families(chord: Chord) -> tuple[dict[str, list[Tone]], bool]:
    """The chord's tones by role family, preferred tone first; and whether it has a ninth."""
    fams: dict[str, list[Tone]] = {k: [] for k in ("R", "3", "5", "7", "9", "11", "13")}
    labels: dict[str, Tone] = {}
    for i, (label, pc, name) in enumerate(zip(chord.intervals, chord.pcs, chord.notes,
                                              strict=True)):
        number = degree_number(label)
        family = FAMILY_OF_DEGREE.get(number) or FAMILY_OF_DEGREE[(number - 1) % 7 + 1]
        tone = Tone(parse_spelled(name), label, pc, False, i)
        fams[family].append(tone)
        labels[label] = tone
    has_ninth = bool(fams["9"])
    for family, order in FAMILY_ORDER.items():
        fams[family].sort(key=partial(_rank, order))
    if not fams["3"]:  # a sus chord: the suspended tone is its "third"
        sus = next((labels[s] for s in SUS_LABELS if s in labels), None)
        if sus is not None:
            for members in fams.values():
                if sus in members:
                    members.remove(sus)
            fams["3"].append(sus)
    if not fams["7"] and "6" in labels:  # a sixth chord: the 6 acts as the seventh
        fams["13"].remove(labels["6"])
        fams["7"].append(labels["6"])
    for family in ("3", "7"):
        fams[family] = [Tone(t.spelled, t.label, t.pc, True, t.index) for t in fams[family]]
    return fams, has_ninth


def _added_labels(chord: Chord) -> set[str]:
    """The degree labels the chord's symbol adds (``add11`` -> 11), from engine.chords.tables."""
    return {label for mod in ADDITIONS if mod.canonical in chord.quality
            for label in mod.adds.split()}


def _rank(order: tuple[str, ...], tone: Tone) -> int:
    return order.index(tone.label) if tone.label in order else len(order)


@lru_cache(maxsize=4096)
def select(chord: Chord, style: Style) -> Selection:
    """The tones ``style`` holds for ``chord``, slot by slot (see engine.voicing_styles): a
    slash bass first (bass styles), then the slots, then written alterations and the highest
    named extension in colour voices."""
    picker = _Picker(chord, style)
    if style.bass and chord.bass is not None and chord.bass.pc != chord.root.pc:
        picker.take(Tone(chord.bass, "bass", chord.bass.pc, False, -1), BASS_SLOT, "bass")
    slots = slots_of(chord, style)
    for k, alternatives in enumerate(slots):
        for role in alternatives:
            tone = picker.fill(role)
            if tone is not None:
                # a slash chord's root in the added 9's place is a root: never given up
                picker.take(tone, k, "R" if role == "+9" and tone.label == "1" else role)
                break
    if style.alterations:
        picker.admit_written(slots)
        picker.admit_colour(slots)
    # A chord tone is omitted when its pitch class does not sound (the slash bass counts).
    omitted = tuple(n for n, pc in zip(chord.notes, chord.pcs, strict=True)
                    if pc not in picker.sounding)
    return Selection(tuple(picker.tones), tuple(picker.slots), omitted)


def slots_of(chord: Chord, style: Style) -> tuple[tuple[str, ...], ...]:
    """The slots ``style`` fills for ``chord``: its ``minor`` ones on a chord with a minor
    third, its ``sus`` ones on a chord with no third, where it has them."""
    if style.minor and "b3" in chord.intervals:
        return style.minor
    if style.sus and "3" not in chord.intervals and "b3" not in chord.intervals:
        return style.sus
    return style.slots


class _Picker:
    """Fills slots one by one; no pitch class twice, except the root once after ``R2``. In
    the styles with colour voices the tones of ``GIVES_WAY`` fill no slot (``yielding``); those
    the symbol adds (``written``) sound all the same, see ``admit_written``."""

    def __init__(self, chord: Chord, style: Style) -> None:
        self.chord = chord
        self.fams, self.has_ninth = _families(chord)
        self.slash = chord.bass is not None and chord.bass.pc != chord.root.pc
        self.yielding = {label for label, partner in GIVES_WAY.items()
                         if style.alterations and partner in chord.intervals}
        upper = sum(alternatives[0] != "R" for alternatives in slots_of(chord, style))
        self.written = {label for label in _added_labels(chord) & self.yielding
                        if label in WRITTEN_STAYS and upper >= WRITTEN_MIN_UPPER}
        self.tones: list[Tone] = []
        self.slots: list[int] = []
        self.roles: list[str] = []
        self.sounding: set[int] = set()
        self.doubled = False

    def take(self, tone: Tone, slot: int, role: str) -> None:
        self.tones.append(tone)
        self.slots.append(slot)
        self.roles.append(role)
        self.sounding.add(tone.pc)
        self.doubled = self.doubled or role == "R2"

    def replace(self, v: int, tone: Tone) -> None:
        """Voice ``v`` sounds ``tone`` instead; the tone it held stops sounding only if no other
        voice holds it (a doubled root giving way leaves the root sounding)."""
        self.tones[v], self.roles[v] = tone, tone.label
        self.sounding = {t.pc for t in self.tones}

    def admit_written(self, slots: tuple[tuple[str, ...], ...]) -> None:
        """Each tone of ``written`` fills the first empty slot listing its family, else takes
        the voice of the first role of ``WRITTEN_TAKES`` present (keeping that voice's slot)."""
        for family, members in self.fams.items():
            for tone in members:
                if tone.label not in self.written or tone.pc in self.sounding:
                    continue
                empty = [k for k, alternatives in enumerate(slots)
                         if family in alternatives and k not in self.slots]
                if empty:
                    self.take(tone, empty[0], tone.label)
                    continue
                held = [v for v, role in enumerate(self.roles) if role in WRITTEN_TAKES]
                if held:
                    v = min(held, key=lambda v: WRITTEN_TAKES.index(self.roles[v]))
                    self.replace(v, tone)

    def admit_colour(self, slots: tuple[tuple[str, ...], ...]) -> None:
        """Each written alteration left out, then the chord's highest named extension (its
        natural 13, 11 or 9), takes the voice of the natural colour tone first in
        ``GIVE_UP_ORDER`` (the later slot on a tie), while there is one; the extension only
        from a tone that order gives up before it (a tone that gives way only from a
        ``REDUNDANT_ROLES`` voice), never from another alteration. The newcomer sounds in the
        slot of its own family; the tone there moves to the slot given up."""
        written = {t.label: t for family in self.fams.values() for t in family}
        claims = [(written[label], len(GIVE_UP_ORDER)) for label in ALTERATIONS
                  if label in written]
        extensions = {t.label: t for f in NAMED_EXTENSIONS for t in self.fams[f]}
        named = [extensions[label] for label in NAMED_EXTENSIONS if label in extensions]
        if named:
            top = named[-1]
            claims.append((top, len(REDUNDANT_ROLES) if top.label in self.yielding
                           else GIVE_UP_ORDER.index(top.label)))
        for tone, rank in claims:
            if tone.pc in self.sounding:
                continue
            colour = [v for v, (role, held) in enumerate(zip(self.roles, self.tones,
                                                              strict=True))
                      if role in GIVE_UP_ORDER[:rank] and held.label not in ALTERATIONS]
            if not colour:
                continue
            v = min(colour, key=lambda v: (GIVE_UP_ORDER.index(self.roles[v]), -self.slots[v],
                                           -v))
            self.replace(v, tone)
            self._to_family_slot(v, slots)

    def _to_family_slot(self, v: int, slots: tuple[tuple[str, ...], ...]) -> None:
        """Swap voice ``v`` into the slot of its tone's family, if another voice holds it."""
        family = next(f for f, members in self.fams.items() if self.tones[v] in members)
        home = next((k for k, alternatives in enumerate(slots) if family in alternatives), None)
        u = next((u for u, k in enumerate(self.slots) if k == home and u != v), None)
        if u is not None:
            self.slots[u], self.slots[v] = self.slots[v], self.slots[u]

    def roots(self) -> int:
        return sum(t.pc == self.chord.root.pc for t in self.tones)

    def fill(self, role: str) -> Tone | None:
        """The tone that fills ``role``, or None when the chord cannot fill it."""
        fams = self.fams
        if role == "b5":
            tone = next((t for t in fams["5"] if t.label == "b5"), None)
            return tone if tone is not None and tone.pc not in self.sounding else None
        if role == "R2":
            return fams["R"][0] if fams["R"] and not self.doubled and self.roots() < 2 else None
        if role in ADDED_TONES:
            label, semitones = ADDED_TONES[role]
            if role == "+9" and self.has_ninth:
                return None
            if role == "+9" and self.slash and fams["R"][0].pc not in self.sounding:
                return fams["R"][0]  # a slash chord keeps the chord it names over its bass
            if role == "+13" and not (CLASSES[quality_class(self.chord)].dominant
                                      and not fams["13"]
                                      and all(t.label == "5" for t in fams["5"])):
                return None
            if role == "+6" and not ("3" in self.chord.intervals and not fams["13"]
                                     and all(t.label == "5" for t in fams["5"])):
                return None
            if role == "+11" and ("b3" not in self.chord.intervals or fams["11"]):
                return None
            if role in DIM_SEVENTHS and not (not fams["7"] and not fams["13"]
                                             and "b3" in self.chord.intervals and fams["5"]
                                             and all(t.label == "b5" for t in fams["5"])):
                return None
            if role == "+6triad" and (fams["7"] or fams["13"] or not fams["3"]
                                      or not all(t.label == "5" for t in fams["5"])
                                      or fams["3"][0].label not in ("3", "b3")):
                return None
            spelled = spell_interval(self.chord.root, label, semitones)
            return None if spelled.pc in self.sounding \
                else Tone(spelled, label, spelled.pc, False, -1)
        for tone in fams[role]:
            if tone.label in self.yielding:
                continue
            again = role == "R" and self.doubled and self.roots() < 2
            if tone.pc not in self.sounding or again:
                return tone
        return None


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


def starting(table: Candidates, style: Style) -> Candidates:
    """The rows of ``table`` a line of ``style`` may start on: its ``start`` slot's tone
    (a guide_seventh line starts on the 7th), where ``range`` holds it; every row for the
    other layouts."""
    if style.layout != "line" or style.start not in table.selection.slots:
        return table
    tone = table.selection.slots.index(style.start)
    keep = table.tone[:, 0] == tone
    if not keep.any():   # a range that holds only the other tone
        return table
    return replace(table, midi=table.midi[keep], tone=table.tone[keep],
                   guide=table.guide[keep], register=table.register[keep],
                   count=table.count[keep])


@lru_cache(maxsize=8192)
def candidates(chord: Chord, style: Style, low: int, high: int,
               bass_low: int | None = None, thin: bool = False, deep: bool = False
               ) -> Candidates:
    """Every placement of every shape inside [low, high] and inside the style's register
    windows (all placements in range when none lies inside them), shape by shape, lowest
    first, each with its register cost. A style with a bass places its upper structure by
    octaves and the bass by octaves below it (``Register.split``), the bass from ``bass_low``
    (None: ``low``) up; a slash bass may lie an octave further under the chord than
    ``Register.max_span``. ``thin``: the three-voice shapes too (``shapes``; an arrival).
    ``deep``: a bass may lie ``Register.deep`` under its window, its upper voices at their
    lowest (a chord of a long stepwise bass run, ``operation._walks``; elsewhere those
    placements would only slow the search)."""
    bass_low = low if bass_low is None else bass_low
    pitch, tone, extra, count = shapes(chord, style, thin)
    register = REGISTERS[style.name]
    midi = tones = np.empty((0, pitch.shape[1]), dtype=np.int64)
    added = np.empty(0, dtype=np.int64)
    counts = np.empty(0, dtype=np.int64)
    if register.split:
        sel = select(chord, style)
        slash = BASS_SLOT in sel.slots
        # a tone on top may reach beyond the span (the shell's 1-7-3-b5 and 1-b7-11)
        reach = dict(register.reach)
        spans = np.array([register.max_span + 12 * slash + reach.get(sel.tones[t].label, 0)
                          for t in tone[:, -1]], dtype=np.int64)
        midi, tones = split_placements(pitch, tone, low, high, spans, bass_low,
                                       register.bass_gap)
        counts = np.full(len(midi), pitch.shape[1], dtype=np.int64)   # (no thin shapes)
        # a shape reaching beyond the span costs more: played where it keeps the line
        added = REACH_COST * (midi[:, -1] - midi[:, 0] > register.max_span + 12 * slash)
    if len(midi) == 0:       # (a split style in a range too narrow to part its bass: whole)
        octaves = np.arange(0, 128, 12, dtype=np.int64)
        placed = pitch[:, None, :] + octaves[None, :, None]            # [S, O, V]
        ok = (placed[:, :, 0] >= low) & (placed[:, :, -1] <= high)
        midi = placed[ok]
        tones = np.broadcast_to(tone[:, None, :], placed.shape)[ok]
        added = np.broadcast_to(extra[:, None], placed.shape[:2])[ok]
        counts = np.broadcast_to(count[:, None], placed.shape[:2])[ok]
    cost, outside = register_cost(midi, register if deep else replace(register, deep=0), low,
                                  high, bass_low)
    if len(added):
        cost = cost + added
    if register.split and deep and register.bass is not None and midi.shape[1] > 1:
        # under its window a bass carries the upper voices at their lowest (DEEP_REACH)
        outside = outside + ((midi[:, 0] < register.bass[0])
                             & (midi[:, 1] >= register.low[0] + DEEP_REACH))
    if (outside == 0).any():
        inside = outside == 0
        midi, tones, cost, counts = midi[inside], tones[inside], cost[inside], counts[inside]
    sel = select(chord, style)
    flags = np.array([t.guide for t in sel.tones], dtype=np.int8)
    span = int((pitch[:, -1] - pitch[:, 0]).min())
    table = Candidates(sel, np.ascontiguousarray(midi), np.ascontiguousarray(tones),
                       flags[tones], span, np.ascontiguousarray(cost),
                       np.ascontiguousarray(counts))
    for array in (table.midi, table.tone, table.guide, table.register, table.count):
        array.setflags(write=False)  # cached and shared between requests
    return table
