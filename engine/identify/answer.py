"""One answer of ``identify`` for notes already read, built at each call from tables: the
readings of their set ranked (``engine.identify.ranking``, packed integers, the key's rules
applied by ``keyed``), each spelled (``engine.identify.naming``) with the notes it explains,
leaves out and adds, and with a key its numeral and function as analyze gives them
(``engine.identify.roles``, kept per key and chord).

Without named notes the first ``MAX_READINGS`` of the set's row are the answer; named notes
add the cost of their spelling (``SPELLING_COST`` a note the reading spells otherwise) to each
reading of the row, which is sorted again. Nothing is kept per set (docs/identify.md): a reading is a copy of its chord's
head (``Spelt.head``; in a key ``roles.role_head``, kept per key) with the rest set.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, product
from operator import itemgetter
from typing import Any

from engine.chords import Key
from engine.identify.naming import (
    DEFAULT_ROOTS,
    ON_LETTER,
    QUALITIES,
    SPELT,
    TONE_STEPS,
    UNNAMED,
    Spelt,
    key_spelling,
    spelt,
)
from engine.identify.notes import Sounding, Spelling, spelling_of
from engine.identify.ranking import (
    ENTRY_BITS,
    ROOT_SHIFT,
    ROOTLESS_SHIFT,
    SLASH_SHIFT,
    SPELLING_MOVE,
    SUS_SHIFT,
    keyed,
)
from engine.identify.roles import KeyRoles, key_roles, role_head, sus_role

MAX_READINGS = 5
_SLASH, _ROOTLESS, _SUS = 1 << SLASH_SHIFT, 1 << ROOTLESS_SHIFT, 1 << SUS_SHIFT
_HAS: tuple[tuple[bool, ...], ...] = tuple(t[::-1] for t in product((False, True), repeat=12))
"""A 12-bit set -> whether it holds each pitch class. ``itemgetter(*heard)(_HAS[s])`` says
which of the notes heard are in ``s``, in the order heard: ``compress`` keeps them (a loop
over the notes in C, not in Python: a cluster's readings add several notes each)."""
_ALL = 0xFFF


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
                  spelling_of(at) if at else None, b, bass_given,
                  None if key is None else key_roles(key))


def answer(texts: list[str], mask: int, heard: list[int], given: list[str | None] | None,
           spelling: Spelling | None, b: int, bass_given: str | None,
           roles: KeyRoles | None) -> dict[str, Any]:
    """The answer for notes read as ``heard.Heard`` (``texts`` ... ``bass_given``), in the key
    of ``roles`` (``roles.key_roles``; None: no key). A fresh answer: the caller may change
    it."""
    values = keyed(mask, None if b < 0 else b, None if roles is None else roles.key)
    if spelling is not None:
        kept = _respelled(values, spelling, _DEFAULT_AT if roles is None else roles.roots)
        first = SPELT[kept[0] & _PLACE] if kept else None
        return {"notes": texts,
                "bass": None if b < 0 else bass_given or (
                    first.names[b] if first is not None else DEFAULT_ROOTS[b].name),
                "readings": _named(kept, mask, b, bass_given, heard,
                                   given, roles)}   # type: ignore[arg-type]
    if roles is None:
        return {"notes": texts,
                "bass": None if b < 0 else (
                    UNNAMED[values[0] >> ROOT_SHIFT & 15][values[0] & ENTRY_BITS].names[b]
                    if values else DEFAULT_ROOTS[b].name),
                "readings": _unnamed(values, mask, b, heard)}
    readings, first = _in_key(values, mask, b, heard, roles)
    return {"notes": texts,
            "bass": None if b < 0 else (first.names[b] if first is not None
                                        else DEFAULT_ROOTS[b].name),
            "readings": readings}


_DEFAULT_AT, _DEFAULT_NAMES = key_spelling(None)


def _unnamed(values: list[int], mask: int, b: int, heard: list[int]) -> list[dict[str, Any]]:
    """``_readings`` without a key or a note named (pitch classes, MIDI numbers, a file's
    segments): the first readings of the row, named from ``naming.UNNAMED``."""
    pick = itemgetter(*heard) if len(heard) > 1 else None
    off_bass = ~(1 << b) if b >= 0 else -1   # the set but its bass (a slash reading's adds)
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
            outside &= off_bass
        if v & _ROOTLESS:
            reading["rootless"] = True
        if not outside & (outside - 1):   # at most one note added
            reading["explains"] = explains = [*pick(names)] if pick is not None \
                else [names[heard[0]]]
            reading["added"] = [explains.pop(heard.index(outside.bit_length() - 1))] \
                if outside else []
        else:
            assert pick is not None   # several notes added: several heard
            heard_names = pick(names)
            reading["explains"] = [*compress(heard_names, pick(_HAS[_ALL & ~outside]))]
            reading["added"] = [*compress(heard_names, pick(_HAS[outside]))]
        left_out = tones & ~mask
        reading["omitted"] = [] if not left_out else [names[left_out.bit_length() - 1]] \
            if not left_out & (left_out - 1) else [*compress(chord.tone_names,
                                                             chord.tone_pick(_HAS[left_out]))]
        out.append(reading)
    return out


def _respelled(values: list[int], spelling: Spelling, roots: tuple[int, ...]) -> list[int]:
    """The first ``MAX_READINGS`` of the packed readings ``values`` once each named note the
    reading spells otherwise costs ``SPELLING_COST``, each with the place of its spelling in
    ``SPELT`` (``value << PLACE_BITS | place``), sorted (the packed integers are distinct: they
    hold their place in the row, so equal costs keep the row's order). Every reading of the
    row is spelled, then the whole sorted once: a row holds 4.9 readings on average, and
    reading on only while one could still come among the first (``insort``) cost ~2,000
    instructions more a request over every set (callgrind; ~400 fewer for 3-4 notes). A note
    is spelled otherwise when its letter is (the pitch class is the same). A reading's root is
    spelled as the notes named spell it: its own name, else counted down from the first tone
    named (B as the third of G), else as ``roots`` (the key's spelling or the default roots,
    ``key_spelling``)."""
    at, letters, _ = spelling
    get = at.get
    kept: list[int] = []
    for v in values:
        root = v >> ROOT_SHIFT & 15
        entry = v & ENTRY_BITS
        root_at = get(root)
        if root_at is None:   # a root not named: counted down from the first tone named
            for semis, steps in TONE_STEPS[entry]:
                tone = get((root + semis) % 12)
                if tone is not None:
                    root_at = ON_LETTER[root * 7 + (tone // 5 - steps) % 7]
                    if root_at >= 0:
                        break
            else:
                root_at = roots[root]
        place = root_at * QUALITIES + entry
        chord = SPELT[place] or spelt(root_at, entry)
        # a bit for each note named otherwise
        differ = letters & (chord.respell_rootless if v & _ROOTLESS else chord.respell)
        if differ:
            v += SPELLING_MOVE * differ.bit_count()
        kept.append(v << PLACE_BITS | place)
    kept.sort()
    del kept[MAX_READINGS:]
    return kept


PLACE_BITS = 14   # a place in ``SPELT`` (35 spelled roots x the qualities) in the low bits
_PLACE = (1 << PLACE_BITS) - 1
assert len(SPELT) <= _PLACE + 1, "a place past its bits"


def _in_key(values: list[int], mask: int, b: int, heard: list[int], roles: KeyRoles
            ) -> tuple[list[dict[str, Any]], Spelt | None]:
    """The readings of unnamed notes (pitch classes, MIDI numbers) in ``key``: the first of
    the row, spelled as the key spells their roots, a note outside the chord named as the key
    spells it, each with its numeral and function (``roles``, by index); and the first
    reading's chord (None: none)."""
    roots, other, heads = roles.roots, roles.other, roles.heads
    pick = itemgetter(*heard) if len(heard) > 1 else None
    heard_other = None   # the key's names of the notes heard, once needed
    off_bass = ~(1 << b) if b >= 0 else -1   # the set but its bass (a slash reading's adds)
    out = []
    first = None
    for v in values[:MAX_READINGS]:
        entry = v & ENTRY_BITS
        at = roots[v >> ROOT_SHIFT & 15]
        index = at * QUALITIES + entry
        chord = SPELT[index] or spelt(at, entry)
        if first is None:
            first = chord
        names, tones = chord.names, chord.mask
        reading = (heads[index] or role_head(chord, roles)).copy()
        foreign = mask & ~tones            # the notes the chord does not hold: the key names them
        outside = foreign                  # ... but its slash bass: the notes it adds
        if v & _SLASH:
            bass_name = (other if foreign >> b & 1 else names)[b]
            reading["symbol"] = symbol = f"{chord.symbol}/{bass_name}"
            reading["bass"] = bass_name
            reading["inversion"] = chord.inversions[b]
            outside &= off_bass
            if v & _SUS:
                reading["numeral"], reading["function"] = sus_role(symbol, roles)
        if v & _ROOTLESS:
            reading["rootless"] = True
        if not foreign:
            reading["explains"] = [*pick(names)] if pick is not None else [names[heard[0]]]
            reading["added"] = []
        elif foreign == outside and not outside & (outside - 1):   # one note added
            pc = outside.bit_length() - 1
            reading["explains"] = explains = [*pick(names)] if pick is not None else []
            if explains:
                del explains[heard.index(pc)]
            reading["added"] = [other[pc]]
        else:   # notes added, or a slash bass outside the chord (named as the key spells it)
            heard_names: Any = pick(names)   # type: ignore[misc]
            if foreign != outside:
                heard_names = [*heard_names]
                heard_names[heard.index(b)] = other[b]
            reading["explains"] = [*compress(heard_names, pick(_HAS[_ALL & ~outside]))]   # type: ignore[misc]
            if outside:
                if heard_other is None:
                    heard_other = pick(other)   # type: ignore[misc]
                reading["added"] = [*compress(heard_other, pick(_HAS[outside]))]   # type: ignore[misc]
            else:
                reading["added"] = []
        left_out = tones & ~mask
        reading["omitted"] = [] if not left_out else [names[left_out.bit_length() - 1]] \
            if not left_out & (left_out - 1) else [*compress(chord.tone_names,
                                                             chord.tone_pick(_HAS[left_out]))]
        out.append(reading)
    return out, first


def _named(kept: list[int], mask: int, b: int, bass_given: str | None, heard: list[int],
           given: list[str | None], roles: KeyRoles | None) -> list[dict[str, Any]]:
    """The readings ``kept`` (packed with the place of their spelling, ``_respelled``) of named notes: the set ``mask`` over the
    bass ``b`` (-1: none; ``bass_given`` its name as given), ``heard`` the pitch classes in
    the order given and ``given`` their names as given (None: a note not named), each a copy
    of its chord's head with the rest set, and with a key its numeral and function
    (``roles``, by index; None: no key). A note named is written as given; one not named as
    the chord spells it, or outside the chord as the key spells it (``KeyRoles.other``;
    without a key the default roots' names, which are the chord's own names of those pitch
    classes)."""
    every = None not in given
    pick = None   # itemgetter(*heard), made where several notes are added (a cluster)
    heads, other = (None, _DEFAULT_NAMES) if roles is None else (roles.heads, roles.other)
    off_bass = ~(1 << b) if b >= 0 else -1   # the set but its bass (a slash reading's adds)
    out = []
    for k in kept:
        v = k >> PLACE_BITS
        chord: Spelt = SPELT[k & _PLACE]   # type: ignore[assignment]   # spelt by _respelled
        names, tones = chord.names, chord.mask
        reading = (chord.head if heads is None else heads[chord.place]
                   or role_head(chord, roles)).copy()   # type: ignore[arg-type]
        outside = foreign = mask & ~tones
        if v & _SLASH:
            bass_name = bass_given or (other if foreign >> b & 1 else names)[b]
            reading["symbol"] = f"{chord.symbol}/{bass_name}"
            reading["bass"] = bass_name
            reading["inversion"] = chord.inversions[b]
            outside &= off_bass
        if v & _ROOTLESS:
            reading["rootless"] = True
        if not every:
            explains: list[str | None] = []
            added: list[str | None] = []
            reading["explains"] = explains
            reading["added"] = added
            for pc, name in zip(heard, given, strict=True):
                if name is None:
                    name = names[pc] if tones >> pc & 1 else other[pc]
                (added if outside >> pc & 1 else explains).append(name)
        elif not outside:
            reading["explains"] = [*given]
            reading["added"] = []
        elif not outside & (outside - 1):
            reading["explains"] = explains = [*given]
            reading["added"] = [explains.pop(heard.index(outside.bit_length() - 1))]
        else:
            if pick is None:
                pick = itemgetter(*heard)
            reading["explains"] = [*compress(given, pick(_HAS[_ALL & ~outside]))]
            reading["added"] = [*compress(given, pick(_HAS[outside]))]
        left_out = tones & ~mask
        reading["omitted"] = [] if not left_out else [names[left_out.bit_length() - 1]] \
            if not left_out & (left_out - 1) else [*compress(chord.tone_names,
                                                             chord.tone_pick(_HAS[left_out]))]
        if v & _SUS and roles is not None:
            reading["numeral"], reading["function"] = sus_role(reading["symbol"], roles)
        out.append(reading)
    return out
