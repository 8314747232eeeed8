"""One answer of ``identify`` for notes already read, built at each call from tables: the
readings of their set ranked (``engine.identify.ranking``, packed integers, the key's rules
applied by ``keyed``), each spelled (``engine.identify.naming``) with the notes it explains,
leaves out and adds, and with a key its numeral and function as analyze gives them
(``engine.identify.roles``, kept per key and chord).

Without named notes the first ``MAX_READINGS`` of the set's row are the answer; named notes
add the cost of their spelling (``SPELLING_COST`` a note the reading spells otherwise), read
down the row only as far as a reading can still come among the first (the spelling only adds
to a cost). Nothing is kept per set: building an answer costs about what copying a kept one
did (docs/identify.md).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from typing import Any

from engine.chords import Key, Spelled
from engine.identify.naming import (
    DEFAULT_ROOTS,
    DEFAULT_SPELLING,
    UNNAMED,
    Spelt,
    key_spelling,
    named_root,
    spelt,
)
from engine.identify.notes import Sounding
from engine.identify.ranking import (
    ENTRY_BITS,
    ROOT_SHIFT,
    ROOTLESS_SHIFT,
    SLASH_SHIFT,
    SPELLING_MOVE,
    cost_of,
    keyed,
)
from engine.identify.roles import SUS_BASS, kept_roles, role

MAX_READINGS = 5


def identify_notes(notes: Sequence[Sounding], bass: Sounding | None,
                   key: Key | None) -> dict[str, Any]:
    """The answer for notes already read (the file readers call this per segment): ``bass``
    is the bass as given or sounded (None: no bass), ``key`` None for none. A fresh answer:
    the caller may change it."""
    # each pitch class once, in the order given (the bass last when it is not among them),
    # with the name it was first given (None: the reading names it); the spelling of each
    # pitch class named (its first name, the bass's last)
    mask = 0
    heard: list[int] = []
    given: list[str | None] = []
    spelling: dict[int, Spelled] = {}
    for n in notes:
        sp = n.spelled
        if not mask >> n.pc & 1:
            mask |= 1 << n.pc
            heard.append(n.pc)
            if sp is None:
                given.append(None)
            else:
                given.append(sp.name)
                spelling[n.pc] = sp
        elif sp is not None and n.pc not in spelling:
            spelling[n.pc] = sp
    b, bass_given = -1, None
    if bass is not None:
        b, sp = bass.pc, bass.spelled
        if sp is not None:
            bass_given = sp.name
            if b not in spelling:
                spelling[b] = sp
        if not mask >> b & 1:
            mask |= 1 << b
            heard.append(b)
            given.append(bass_given)
    values = keyed(mask, None if b < 0 else b, key)
    roots, outside = DEFAULT_SPELLING if key is None else key_spelling(key)
    if spelling:
        chosen = _respelled(values, spelling, roots)
    elif key is None:
        chosen = [(v, UNNAMED[v >> ROOT_SHIFT & 15][v & ENTRY_BITS])
                  for v in values[:MAX_READINGS]]
    else:
        chosen = [(v, spelt(v & ENTRY_BITS, roots[v >> ROOT_SHIFT & 15]))
                  for v in values[:MAX_READINGS]]
    named = None not in given
    roles = None if key is None else kept_roles(key)
    readings = []
    for v, chord in chosen:
        names, tones = chord.names, chord.mask
        if key is not None and mask & ~tones:
            # a note outside the chord is named as the key spells it
            names = _outside_named(names, mask & ~tones, outside)
        if v >> SLASH_SHIFT & 1:
            bass_name = bass_given or names[b]
            symbol = f"{chord.symbol}/{bass_name}"
            inversion = chord.inversions[b]
            explained = tones | 1 << b
        else:
            bass_name, symbol, inversion, explained = None, chord.symbol, 0, tones
        if not mask & ~explained:   # the chord explains every note heard
            explains = [*given] if named else [g or names[pc] for pc, g in zip(heard, given)]
            added = []
        else:
            explains = [g or names[pc] for pc, g in zip(heard, given) if explained >> pc & 1]
            added = [g or names[pc] for pc, g in zip(heard, given) if not explained >> pc & 1]
        left_out = tones & ~mask
        reading = {
            "symbol": symbol, "root": chord.root, "quality": chord.quality, "bass": bass_name,
            "inversion": inversion, "rootless": bool(v >> ROOTLESS_SHIFT & 1),
            "explains": explains,
            "omitted": [names[pc] for pc in chord.pcs if left_out >> pc & 1] if left_out else [],
            "added": added}
        if roles is not None:
            sus = bass_name is not None and (b - (v >> ROOT_SHIFT & 15)) % 12 in SUS_BASS[
                chord.entry]
            found = roles.get(symbol if sus else chord.symbol) or role(
                chord, symbol, sus, key, roles)  # type: ignore[arg-type]
            reading["numeral"], reading["function"] = found
        readings.append(reading)
    return {"notes": [n.text for n in notes],
            "bass": None if b < 0 else bass_given or (
                chosen[0][1].names[b] if chosen else DEFAULT_ROOTS[b].name),
            "readings": readings}


def _respelled(values: list[int], spelling: dict[int, Spelled],
               roots: tuple[Spelled, ...]) -> list[tuple[int, Spelt]]:
    """The first ``MAX_READINGS`` of the packed readings ``values`` once each named note the
    reading spells otherwise costs ``SPELLING_COST``, each with its spelling: ``values`` are
    cheapest first and the spelling only adds, so the readings after one costing more than
    the last kept cannot come among the first."""
    kept: list[tuple[int, Spelt]] = []
    for v in values:
        if len(kept) >= MAX_READINGS and cost_of(v) > cost_of(kept[MAX_READINGS - 1][0]):
            break
        root, entry = v >> ROOT_SHIFT & 15, v & ENTRY_BITS
        chord = spelt(entry, named_root(root, entry, spelling, roots))
        tones, names = chord.mask, chord.names
        wrong = 0
        for pc, sp in spelling.items():
            if tones >> pc & 1 and names[pc] != sp.name:
                wrong += 1
        insort(kept, (v + SPELLING_MOVE * wrong, chord))
    return kept[:MAX_READINGS]


def _outside_named(names: tuple[str, ...], outside: int, key_names: tuple[str, ...]
                   ) -> tuple[str, ...]:
    """``names`` with the pitch classes of ``outside`` named as the key spells them."""
    out = list(names)
    for pc in range(12):
        if outside >> pc & 1:
            out[pc] = key_names[pc]
    return tuple(out)
