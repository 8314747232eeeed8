"""The tones a voicing style holds for a chord, slot by slot (``select``): the chord's tones
by role family, the slots of ``engine.voicing.styles`` filled in order, written alterations
and the highest named extension in colour voices, and what is left out.

The rules are data in ``engine.voicing.styles``; this module only applies them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial

from engine.analysis import CLASSES, quality_class
from engine.chords import ADDITIONS, Chord, Spelled, degree_number, parse_spelled, spell_interval
from engine.voicing.styles import (
    ADDED_TONES,
    ALTERATIONS,
    DIM_SEVENTHS,
    FAMILY_OF_DEGREE,
    FAMILY_ORDER,
    GIVE_UP_ORDER,
    GIVES_WAY,
    NAMED_EXTENSIONS,
    REDUNDANT_ROLES,
    SUS_LABELS,
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
