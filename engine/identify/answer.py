"""One answer of ``identify`` for notes already read, built at each call from tables: the
readings of their set ranked (``engine.identify.ranking``, packed integers, the key's rules
applied by ``keyed``), each spelled (``engine.identify.naming``) with the notes it explains,
leaves out and adds, and with a key its numeral and function as analyze gives them
(``engine.identify.roles``, kept per key and chord).

Without named notes the first ``MAX_READINGS`` of the set's row are the answer; named notes
add the cost of their spelling (``SPELLING_COST`` a note the reading spells otherwise), read
down the row only as far as a reading can still come among the first (the spelling only adds
to a cost). Nothing is kept per set here (``operation`` keeps copies of the answers to names
and keys asked again; docs/identify.md).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from engine.chords import Key
from engine.identify.naming import (
    DEFAULT_ROOTS,
    LETTER_BITS,
    LETTER_ONES,
    QUALITIES,
    SPELT,
    UNNAMED,
    Spelt,
    key_spelling,
    named_root,
    spelt,
)
from engine.identify.notes import Sounding, Spelling, spelling_of
from engine.identify.ranking import (
    COST_SHIFT,
    ENTRY_BITS,
    ROOT_SHIFT,
    ROOTLESS_SHIFT,
    SLASH_SHIFT,
    SPELLING_MOVE,
    keyed,
)
from engine.identify.roles import SUS_BASS, kept_heads, keyed_head

MAX_READINGS = 5
_SLASH, _ROOTLESS = 1 << SLASH_SHIFT, 1 << ROOTLESS_SHIFT


def identify_notes(notes: Sequence[Sounding], bass: Sounding | None,
                   key: Key | None) -> dict[str, Any]:
    """The answer for notes already read (the full request, the file readers' segments):
    ``bass`` is the bass as given or sounded (None: no bass), ``key`` None for none."""
    # each pitch class once, in the order given, with the name it was first given, and the
    # first spelling of each pitch class named (the bass's last)
    mask = 0
    heard: list[int] = []
    given: list[str | None] = []
    at: dict[int, int] = {}
    for n in notes:
        if not mask >> n.pc & 1:
            mask |= 1 << n.pc
            heard.append(n.pc)
            given.append(n.name)
        if n.at >= 0 and n.pc not in at:
            at[n.pc] = n.at
    b, bass_given = -1, None
    if bass is not None:
        b, bass_given = bass.pc, bass.name
        if bass.at >= 0 and b not in at:
            at[b] = bass.at
        if not mask >> b & 1:
            mask |= 1 << b
            heard.append(b)
            given.append(bass_given)
    return answer([n.text for n in notes], mask, heard, given if at else None,
                  spelling_of(at) if at else None, b, bass_given, key)


def answer(texts: list[str], mask: int, heard: list[int], given: list[str | None] | None,
           spelling: Spelling | None, b: int, bass_given: str | None,
           key: Key | None) -> dict[str, Any]:
    """The answer for notes read as ``notes.Heard`` (``texts`` ... ``bass_given``), in ``key``
    (None: none). A fresh answer: the caller may change it."""
    values = keyed(mask, None if b < 0 else b, key)
    if spelling is not None:
        roots, other = key_spelling(key)
        chosen = _respelled(values, spelling, roots)
        return {"notes": texts,
                "bass": None if b < 0 else bass_given or (
                    chosen[0][1].names[b] if chosen else DEFAULT_ROOTS[b].name),
                "readings": _readings(chosen, mask, b, bass_given, heard, given, key, other)}
    if key is None:
        return {"notes": texts,
                "bass": None if b < 0 else (
                    UNNAMED[values[0] >> ROOT_SHIFT & 15][values[0] & ENTRY_BITS].names[b]
                    if values else DEFAULT_ROOTS[b].name),
                "readings": _unnamed(values, mask, b, heard)}
    roots, other = key_spelling(key)
    chosen = []
    for v in values[:MAX_READINGS]:
        at = roots[v >> ROOT_SHIFT & 15]
        chosen.append((v, SPELT[at * QUALITIES + (v & ENTRY_BITS)] or spelt(at, v & ENTRY_BITS)))
    return {"notes": texts,
            "bass": None if b < 0 else (chosen[0][1].names[b] if chosen
                                        else DEFAULT_ROOTS[b].name),
            "readings": _readings(chosen, mask, b, None, heard, None, key, other)}


def copy_answer(kept: dict[str, Any]) -> dict[str, Any]:
    """A fresh copy of an answer: its lists copied, so that a caller may change it."""
    readings = []
    for r in kept["readings"]:
        reading = r.copy()
        reading["explains"] = [*r["explains"]]
        reading["omitted"] = [*r["omitted"]]
        reading["added"] = [*r["added"]]
        readings.append(reading)
    return {"notes": [*kept["notes"]], "bass": kept["bass"], "readings": readings}


def _unnamed(values: list[int], mask: int, b: int, heard: list[int]) -> list[dict[str, Any]]:
    """``_readings`` without a key or a note named (pitch classes, MIDI numbers, a file's
    segments): the first readings of the row, named from ``naming.UNNAMED``."""
    pick = itemgetter(*heard) if len(heard) > 1 else None
    out = []
    for v in values[:MAX_READINGS]:
        chord = UNNAMED[v >> ROOT_SHIFT & 15][v & ENTRY_BITS]
        names, tones = chord.names, chord.mask
        reading = chord.head.copy()
        outside = mask & ~tones
        if v & _SLASH:
            bass_name = names[b]
            reading["symbol"] = f"{chord.symbol}/{bass_name}"
            reading["bass"] = bass_name
            reading["inversion"] = chord.inversions[b]
            outside &= ~(1 << b)
        if v & _ROOTLESS:
            reading["rootless"] = True
        if not outside & (outside - 1):   # at most one note added
            reading["explains"] = explains = [*pick(names)] if pick is not None \
                else [names[heard[0]]]
            reading["added"] = [explains.pop(heard.index(outside.bit_length() - 1))] \
                if outside else []
        else:
            reading["explains"] = explains = []
            reading["added"] = added = []
            for pc in heard:
                if outside >> pc & 1:
                    added.append(names[pc])
                else:
                    explains.append(names[pc])
        left_out = tones & ~mask
        reading["omitted"] = [] if not left_out else [names[left_out.bit_length() - 1]] \
            if not left_out & (left_out - 1) else [names[pc] for pc in chord.pcs
                                                    if left_out >> pc & 1]
        out.append(reading)
    return out


def _respelled(values: list[int], spelling: Spelling, roots: tuple[int, ...]
               ) -> list[tuple[int, Spelt]]:
    """The first ``MAX_READINGS`` of the packed readings ``values`` once each named note the
    reading spells otherwise costs ``SPELLING_COST``, each with its spelling: ``values`` are
    cheapest first and the spelling only adds, so the readings after one costing more than
    the last kept cannot come among the first. A note is spelled otherwise when its letter is
    (the pitch class is the same)."""
    at, letters, named = spelling
    kept: list[tuple[int, Spelt]] = []
    for v in values:
        if len(kept) >= MAX_READINGS and \
                v >> COST_SHIFT > kept[MAX_READINGS - 1][0] >> COST_SHIFT:
            break
        root = v >> ROOT_SHIFT & 15
        entry = v & ENTRY_BITS
        root_at = at.get(root)
        if root_at is None:
            root_at = named_root(root, entry, at, roots)
        chord = SPELT[root_at * QUALITIES + entry] or spelt(root_at, entry)
        both = chord.mask & named
        if both:
            differ = (letters ^ chord.letters) & LETTER_BITS[both]
            if differ:   # the letters that differ, one bit each at 3 * pc, counted
                v += SPELLING_MOVE * ((differ | differ >> 1 | differ >> 2)
                                      & LETTER_ONES).bit_count()
        insort(kept, (v, chord))
    return kept[:MAX_READINGS]


def _readings(chosen: list[tuple[int, Spelt]], mask: int, b: int, bass_given: str | None,
              heard: list[int], given: list[str | None] | None, key: Key | None,
              other: tuple[str, ...]) -> list[dict[str, Any]]:
    """The readings ``chosen`` (packed, spelled) of the set ``mask`` over the bass ``b`` (-1:
    none; ``bass_given`` its name as given), ``heard`` the pitch classes in the order given
    and ``given`` their names as given (None: no note named), each a copy of its chord's head
    (with a key, of the head kept with its numeral and function) with the rest set. A note
    outside the chord is named as the key spells it (``other``, ``key_spelling``'s names;
    without a key the default roots' names, which are the chord's own names of those pitch
    classes)."""
    pick = itemgetter(*heard) if given is None and len(heard) > 1 else None
    every = given is not None and None not in given
    heads = None if key is None else kept_heads(key)
    out = []
    for v, chord in chosen:
        names, tones = chord.names, chord.mask
        foreign = mask & ~tones if heads is not None else 0   # named otherwise in the key
        if heads is None:
            reading = chord.head.copy()
        elif v & _SLASH and (b - (v >> ROOT_SHIFT & 15)) % 12 in SUS_BASS[chord.entry]:
            symbol = f"{chord.symbol}/{bass_given or (other if foreign >> b & 1 else names)[b]}"
            reading = (heads.get(symbol) or keyed_head(
                chord, symbol, True, key, heads)).copy()   # type: ignore[arg-type]
        else:
            reading = (heads.get(chord.symbol) or keyed_head(
                chord, chord.symbol, False, key, heads)).copy()   # type: ignore[arg-type]
        outside = mask & ~tones
        if v & _SLASH:
            bass_name = bass_given or (other if foreign >> b & 1 else names)[b]
            reading["symbol"] = f"{chord.symbol}/{bass_name}"
            reading["bass"] = bass_name
            reading["inversion"] = chord.inversions[b]
            outside &= ~(1 << b)
        if v & _ROOTLESS:
            reading["rootless"] = True
        if every:
            explains = [*given]   # type: ignore[misc]
        elif given is None:
            explains = [*pick(names)] if pick is not None else [names[heard[0]]]
        else:
            explains = [g or names[pc] for pc, g in zip(heard, given, strict=True)]
        if foreign and not every:   # a note outside the chord, unnamed: the key names it
            while foreign:
                pc = foreign.bit_length() - 1
                foreign &= ~(1 << pc)
                i = heard.index(pc)
                if given is None or given[i] is None:
                    explains[i] = other[pc]
        reading["explains"] = explains
        if not outside:
            reading["added"] = []
        elif not outside & (outside - 1):
            reading["added"] = [explains.pop(heard.index(outside.bit_length() - 1))]
        else:
            reading["explains"] = [n for pc, n in zip(heard, explains, strict=True)
                                   if not outside >> pc & 1]
            reading["added"] = [n for pc, n in zip(heard, explains, strict=True)
                                if outside >> pc & 1]
        left_out = tones & ~mask
        reading["omitted"] = [] if not left_out else [names[left_out.bit_length() - 1]] \
            if not left_out & (left_out - 1) else [names[pc] for pc in chord.pcs
                                                    if left_out >> pc & 1]
        out.append(reading)
    return out
