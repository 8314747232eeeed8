"""Chord symbols: ``tokenize()`` and ``parse()`` against the quality tables -> frozen ``Chord``.

Grammar (API.md §1): ``ROOT HEAD MODIFIER* ("/" BASS)?`` where HEAD is a written form of a row
of ``engine.chords.tables.QUALITIES`` (longest match, possibly empty) and each MODIFIER is an
alteration (``b9``, ``#11``, ``+``, ``alt``), an addition (``add9``), an omission (``no3``) or
a suspension (``sus``), appended or inside parentheses separated by commas or spaces. Nothing
outside the grammar is guessed: it raises ``InvalidChord`` with the position and the reason.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import combinations
from typing import Any

from engine.chords.chord import Chord
from engine.chords.notes import LETTERS, Spelled, transpose_mask
from engine.chords.tables import (
    ADDITION_BY_SPELLING,
    ADDITION_ORDER,
    ALTERATION_BY_SPELLING,
    ALTERATION_ORDER,
    BASE_OF,
    CANONICAL_BY_ALIAS,
    COMMON_ALTERATIONS,
    COMMON_BASES,
    DEGREES,
    NAMED_ALTERED,
    OMISSION_BY_SPELLING,
    OMISSION_ORDER,
    QUALITIES,
    QUALITY_BY_CANONICAL,
    SHORTHANDS,
    SPELLED_DEGREE,
    SUSPENSIONS,
    Quality,
    apply_modifier,
    make_quality,
)
from engine.errors import InvalidChord, InvalidRequest
from engine.requests import MAX_PROGRESSION, MAX_SYMBOL, get_str

NO_CHORD = frozenset({"NC", "N.C."})

# The minus sign (U+2212) and the en dash (U+2013) that word processors put for "-" (C–7).
_UNICODE = str.maketrans({"♯": "#", "♭": "b", "𝄪": "##", "𝄫": "bb", "−": "-", "–": "-"})
_ACCIDENTALS = {"": 0, "#": 1, "##": 2, "b": -1, "bb": -2}
_NOTES: dict[str, Spelled] = {
    letter + acc: Spelled(i, alter) for i, letter in enumerate(LETTERS)
    for acc, alter in _ACCIDENTALS.items()
}
_LONGEST_HEAD = max(map(len, CANONICAL_BY_ALIAS))
# Modifier spellings, longest first so that "+11" wins over "+" and "sus24" over "sus2".
_MOD_RE = re.compile("|".join(re.escape(s) for s in sorted(
    [*ALTERATION_BY_SPELLING, *ADDITION_BY_SPELLING, *OMISSION_BY_SPELLING, *SUSPENSIONS],
    key=len, reverse=True)))
# Inside parentheses a bare tension is an added tone: "7(13)".
_BARE_TENSIONS = {"9": "add9", "11": "add11", "13": "add13"}
_BARE_RE = re.compile("13|11|9")
# A bass on a chord tone: its place in the chord's stack of thirds (3rd 1, 5th 2, 7th 3, and
# on, as music21 counts: 9th 4, 11th 5, 13th 6); a 2nd, 4th or 6th is the 9th, 11th or 13th
# an octave down (Csus4/F 5, C6/A 6, Cadd9/D 4). None only for a bass outside the chord.
_INVERSION_OF_NUMBER = {1: 0, 3: 1, 5: 2, 7: 3, 9: 4, 11: 5, 13: 6, 2: 4, 4: 5, 6: 6}
_ROW_NAME = {row.canonical: row.name for row in QUALITIES}


class _SuffixError(ValueError):
    """A quality suffix outside the grammar: ``offset`` into the suffix and the reason."""

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(reason)
        self.offset = offset
        self.reason = reason


def tokenize(symbol: str) -> tuple[str, str, str]:
    """Split a symbol into (root, quality suffix, bass) text without judging the quality:
    ``"Bbm7b5/Fb"`` -> ``("Bb", "m7b5", "Fb")``; ``("", symbol, "")`` when there is no root."""
    text = symbol.strip().translate(_UNICODE)
    root = _root_text(text)
    rest = text[len(root):]
    slash = rest.rfind("/")
    if slash >= 0 and rest[slash + 1:] in _NOTES:
        return root, rest[:slash], rest[slash + 1:]
    return root, rest, ""


def _root_text(text: str) -> str:
    for n in (3, 2, 1):
        if text[:n] in _NOTES:
            return text[:n]
    return ""


def parse(symbol: str) -> Chord:
    """Parse a chord symbol (cached). Raises ``InvalidChord``, and nothing else, when the
    symbol is outside the grammar or longer than 32 characters."""
    if type(symbol) is not str:
        raise InvalidChord(str(symbol)[:64], "a chord symbol must be a string")
    return _parse(symbol)


@lru_cache(maxsize=8192)
def _parse(symbol: str) -> Chord:
    text = symbol.strip()
    if not text.isascii():
        text = text.translate(_UNICODE)
    if not text:
        raise InvalidChord(symbol, "empty chord symbol", position=0)
    if len(symbol) > MAX_SYMBOL:
        raise InvalidChord(symbol, f"longer than {MAX_SYMBOL} characters")
    lead = len(symbol) - len(symbol.lstrip())  # positions count from the symbol as given
    root_text = _root_text(text)
    if not root_text:
        raise InvalidChord(symbol, "a chord symbol starts with a root A-G (with # or b)",
                           position=lead)
    root = _NOTES[root_text]
    start, end, bass = len(root_text), len(text), None
    slash = text.rfind("/")
    if slash >= start and text[slash + 1:slash + 2] in _LETTER_SET:
        bass = _NOTES.get(text[slash + 1:])
        if bass is None:
            raise InvalidChord(symbol, f"bass {text[slash + 1:]!r} is not a note name",
                               position=lead + slash + 1)
        end = slash
    try:
        quality = quality_of(text[start:end])
    except _SuffixError as exc:
        if bass is None and slash >= start and _reads(text[start:slash]):
            # "C/H": the quality before the slash is fine, so the bass is what is wrong
            given = text[slash + 1:]
            reason = f"bass {given!r} is not a note name (A-G with # or b)" if given \
                else "a slash needs a bass note after it"
            raise InvalidChord(symbol, reason, position=lead + slash + 1) from None
        raise InvalidChord(symbol, exc.reason, position=lead + start + exc.offset) from None
    return _chord(symbol, root, quality, bass)


def _reads(suffix: str) -> bool:
    try:
        quality_of(suffix)
    except _SuffixError:
        return False
    return True


_LETTER_SET = frozenset(LETTERS)


def _chord(symbol: str, root: Spelled, q: Quality, bass: Spelled | None) -> Chord:
    names, pcs_of_label = _NAMES_BY_ROOT[root], _PCS_BY_ROOT[root]
    pcs = tuple(map(pcs_of_label.__getitem__, q.labels))
    mask = transpose_mask(q.mask, root.pc)
    name = f"{root.name} {q.name}"
    inversion: int | None = 0
    if bass is not None:
        name = f"{name} over {bass.name}"
        inversion = inversion_of(q, pcs, bass.pc)
    return Chord(symbol, root, q.canonical, q.labels, q.semitones,
                 tuple(map(names.__getitem__, q.labels)), pcs, mask, name, bass, inversion)


def inversion_of(q: Quality, pcs: tuple[int, ...], bass_pc: int) -> int | None:
    """The inversion of quality ``q`` (its tones' pitch classes ``pcs``) over ``bass_pc``:
    the bass's place in the stack of thirds, None for a bass outside the chord."""
    for number, pc in zip(q.numbers, pcs, strict=True):
        if pc == bass_pc:
            return _INVERSION_OF_NUMBER[number]
    return None


def inversions(q: Quality, pcs: tuple[int, ...]) -> tuple[int | None, ...]:
    """``inversion_of`` over each of the 12 pitch classes, at once."""
    out: list[int | None] = [None] * 12
    for number, pc in zip(reversed(q.numbers), reversed(pcs), strict=True):
        out[pc] = _INVERSION_OF_NUMBER[number]
    return tuple(out)


# SPELLED_DEGREE split into two lookups, so that a chord's notes are two C-level maps
_NAMES_BY_ROOT = {root: {lab: v[0] for lab, v in t.items()} for root, t in SPELLED_DEGREE.items()}
_PCS_BY_ROOT = {root: {lab: v[1] for lab, v in t.items()} for root, t in SPELLED_DEGREE.items()}


def quality_of(suffix: str) -> Quality:
    """The Quality of a suffix (the text between root and slash bass), e.g. ``"7(b9,#11)"``.
    Raises ``ValueError`` (with ``.offset`` and ``.reason``) outside the grammar."""
    known = _KNOWN.get(suffix)
    return known if known is not None else _composed(suffix)


@lru_cache(maxsize=2048)
def _composed(suffix: str) -> Quality:
    """A suffix outside the prebuilt vocabulary, read by the modifier grammar (cached)."""
    quality, head = _compose(SHORTHANDS.get(suffix, suffix))
    # A composed suffix can itself read as something more canonical ("6" + "add9" is the
    # row 6/9, "add6add#11" is 6add#11): read it again until it is stable.
    for _ in range(3):
        if _longest_head(quality.canonical) == head:
            break  # it would read back the same way
        again, again_head = _compose(quality.canonical)
        if again.canonical == quality.canonical or again.labels != quality.labels:
            break
        quality, head = again, again_head
    return quality


def _longest_head(text: str) -> int:
    for n in range(min(len(text), _LONGEST_HEAD), -1, -1):
        if text[:n] in CANONICAL_BY_ALIAS:
            return n
    return 0


def _compose(suffix: str) -> tuple[Quality, int]:
    """Longest head first; a shorter head is tried when the rest does not parse after it
    (``madd9`` is ``m`` + ``add9``, not ``ma`` + ``dd9``). Returns the quality and the length
    of the head its canonical suffix starts with."""
    error: _SuffixError | None = None
    for n in range(min(len(suffix), _LONGEST_HEAD), -1, -1):
        head = CANONICAL_BY_ALIAS.get(suffix[:n])
        if head is None:
            continue
        try:
            return _modify(head, suffix, n)
        except _SuffixError as exc:
            if error is None or exc.offset > error.offset:
                error = exc
    assert error is not None  # the empty head always exists
    raise error


def _modify(head: str, suffix: str, pos: int) -> tuple[Quality, int]:
    base, built_in = BASE_OF.get(head, (head, ()))
    alts: list[str] = list(built_in)
    adds: list[str] = []
    omits: list[str] = []
    suspended = False
    in_paren, opened, inside = False, 0, 0
    while pos < len(suffix):
        char = suffix[pos]
        if char == "(" and not in_paren:
            in_paren, opened, inside, pos = True, pos, 0, pos + 1
            continue
        if in_paren and char == ")":
            if not inside:
                raise _SuffixError(opened, "empty parentheses")
            in_paren, pos = False, pos + 1
            continue
        if in_paren and char in ", ":
            pos += 1
            continue
        tm = _MOD_RE.match(suffix, pos) or (_BARE_RE.match(suffix, pos) if in_paren else None)
        if tm is None:
            raise _SuffixError(pos, f"unknown chord quality {suffix[pos:]!r}")
        token = _BARE_TENSIONS.get(tm.group(0), tm.group(0))
        base, suspended = _apply(token, pos, base, suspended, alts, adds, omits)
        pos, inside = tm.end(), inside + 1
    if in_paren:
        raise _SuffixError(opened, "unclosed parenthesis")
    return _resolve(base, alts, adds, omits, len(suffix))


def _apply(token: str, at: int, base: str, suspended: bool, alts: list[str], adds: list[str],
           omits: list[str]) -> tuple[str, bool]:
    """Record one modifier token; returns the (possibly suspended) base."""
    if token in ALTERATION_BY_SPELLING:
        alt = ALTERATION_BY_SPELLING[token].canonical
        if alt in alts or (alt == "alt" and alts) or "alt" in alts:
            raise _SuffixError(at, f"alteration {token!r} repeats or conflicts")
        if alt == "alt" and base not in ("7", "7sus4"):
            raise _SuffixError(at, "'alt' applies to a dominant seventh")
        alts.append(alt)
    elif token in ADDITION_BY_SPELLING:
        add = ADDITION_BY_SPELLING[token].canonical
        if add in adds:
            raise _SuffixError(at, f"{token!r} is repeated")
        adds.append(add)
    elif token in OMISSION_BY_SPELLING:
        omit = OMISSION_BY_SPELLING[token].canonical
        if omit in omits:
            raise _SuffixError(at, f"{token!r} is repeated")
        omits.append(omit)
    elif token in SUSPENSIONS:
        target = SUSPENSIONS[token].get(base)
        if suspended or target is None:
            raise _SuffixError(at, f"cannot suspend a {base or 'major'} chord with {token!r}")
        base, suspended = target, True
    else:
        raise _SuffixError(at, f"unknown modifier {token!r}")
    return base, suspended


def _resolve(base: str, alts: list[str], adds: list[str], omits: list[str],
             end: int) -> tuple[Quality, int]:
    alts.sort(key=ALTERATION_ORDER.__getitem__)
    adds.sort(key=ADDITION_ORDER.__getitem__)
    omits.sort(key=OMISSION_ORDER.__getitem__)
    labels = list(QUALITY_BY_CANONICAL[base].labels)
    for alt in alts:
        apply_modifier(labels, ALTERATION_BY_SPELLING[alt])
    for add in adds:
        mod = ADDITION_BY_SPELLING[add]
        if mod.adds in labels:
            raise _SuffixError(end, f"{add!r} adds a tone the chord already has")
        apply_modifier(labels, mod)
    for omit in omits:
        mod = OMISSION_BY_SPELLING[omit]
        if not any(lab in labels for lab in mod.removes.split()):
            raise _SuffixError(end, f"{omit!r} omits a tone the chord does not have")
        apply_modifier(labels, mod)
    if len({DEGREES[lab][1] for lab in labels}) != len(labels):
        raise _SuffixError(end, "two tones at the same pitch")
    key = (base, tuple(alts))
    if not adds and not omits and key in NAMED_ALTERED:
        named = NAMED_ALTERED[key]
        return make_quality(named, labels, _ROW_NAME[named]), len(named)
    prefix, rest = base, alts
    fifth = tuple(a for a in alts if a in ("b5", "#5"))
    if base in ("", "m") and (base, fifth) in NAMED_ALTERED:
        prefix = NAMED_ALTERED[(base, fifth)]
        rest = [a for a in alts if a not in fifth]
    words = [_ROW_NAME[prefix]]
    words += [ALTERATION_BY_SPELLING[a].words for a in rest]
    words += [ADDITION_BY_SPELLING[a].words for a in adds]
    words += [OMISSION_BY_SPELLING[o].words for o in omits]
    if prefix == "" and rest:
        prefix = "M"  # "Cb5" would read as a C-flat power chord: keep the major mark
    canonical = prefix + "".join(rest) + "".join(adds) + "".join(omits)
    return make_quality(canonical, labels, " ".join(words)), len(prefix)


def read_chord(request: dict[str, Any], field: str = "chord") -> Chord:
    """The chord symbol a request holds in ``field``: required, at most 32 characters
    (``InvalidRequest``), then parsed (``InvalidChord``)."""
    symbol = get_str(request, field, required=True, max_len=MAX_SYMBOL)
    assert symbol is not None  # required=True
    return parse(symbol)


def split_progression(value: Any, *, field: str = "progression") -> list[Any]:
    """The items of a progression as given: a string split on whitespace, or a list whose
    strings are trimmed (``" G7"`` is ``G7``, so every operation echoes the trimmed symbol),
    with ``|`` bar lines dropped. Neither a string nor a list is
    ``InvalidRequest(field=field)``; the items themselves are judged by ``parse_progression``."""
    if isinstance(value, str):
        return value.replace("|", " ").split()
    if isinstance(value, list):
        items = [v.strip() if isinstance(v, str) else v for v in value]
        return [v for v in items if v != "|"]
    raise InvalidRequest(f"field '{field}' must be a string or a list of chord symbols",
                         field=field)


def parse_progression(value: Any, *, field: str = "progression",
                      allow_nc: bool = False) -> list[Chord | None]:
    """A progression: a string (whitespace separated, ``|`` bar lines ignored) or a list of
    symbols. ``NC``/``N.C.`` give None when ``allow_nc``. Empty or more than 256 chords is
    ``InvalidRequest(field=field)``; a bad chord is ``InvalidChord`` with its ``index``."""
    items = split_progression(value, field=field)
    if not items:
        raise InvalidRequest(f"field '{field}' must contain at least one chord", field=field)
    if len(items) > MAX_PROGRESSION:
        raise InvalidRequest(f"field '{field}' has more than {MAX_PROGRESSION} chords",
                             field=field)
    chords: list[Chord | None] = []
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise InvalidRequest(f"field '{field}' must contain only chord symbols (strings)",
                                 field=field)
        if item in NO_CHORD:
            if not allow_nc:
                raise InvalidChord(item, "no chord (NC) is not allowed here", index=i)
            chords.append(None)
            continue
        try:
            chords.append(parse(item))
        except InvalidChord as exc:
            raise exc.at_index(i) from None
    return chords


def _known() -> dict[str, Quality]:
    """Every head alias, and the common altered qualities (tables.COMMON_BASES with up to two
    of tables.COMMON_ALTERATIONS, as written and as canonical), resolved once at import."""
    known = {alias: QUALITY_BY_CANONICAL[c] for alias, c in CANONICAL_BY_ALIAS.items()}
    for base in COMMON_BASES:
        for n in (1, 2):
            for alts in combinations(COMMON_ALTERATIONS, n):
                written = base + "".join(alts)
                try:
                    quality = _composed(written)
                except _SuffixError:
                    continue
                known.setdefault(written, quality)
                known.setdefault(quality.canonical, quality)
    _composed.cache_clear()
    return known


_KNOWN = _known()
