"""``search`` (API.md 14): songs of a corpus by a chord pattern, a title, a key, or likeness.

    search(request, index=None) -> {"total", "results": [{"id", "title", "composer", "key",
        "source", "score", "matches": [{"section", "bar", "beat", "chords", "numerals"}]}]}

A pattern is chord symbols (``"Dm7 G7 Cmaj7"``, matched in every key: the same root motions and
quality families, ``exact`` also the same qualities) or roman numerals (``"ii7 V7 Imaj7"``,
matched in songs whose key is known); ``?`` is any one chord. The longest run of known
neighbours is looked up in the suffix array, every candidate then checked in full against the
side arrays. ``similarTo`` (a progression or a song id) ranks songs sharing three-chord runs
with it by local alignment. Order: score (highest first), then title, then id.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.analysis import analyze
from engine.chords import parse, parse_key
from engine.corpus.align import MATCH, align
from engine.corpus.build import build_index
from engine.corpus.index import Index
from engine.corpus.loaders import fold_title, load_paths
from engine.corpus.tokens import NO_MOTION, SEPARATOR, family_of, token
from engine.errors import HarmonyError, InvalidChord, InvalidRequest
from engine.requests import MAX_PROGRESSION, as_int, get_str, require_object

DATA = Path(__file__).resolve().parent / "data"
MAX_LIMIT, DEFAULT_LIMIT = 100, 10
MAX_MATCHES = 20          # occurrences listed per song (all are counted in its score)
CANDIDATES = 300          # songs aligned for similarTo
NAMES = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
_ROMAN = re.compile(r"^([b#]?)(VII|VI|IV|V|III|II|I|vii|vi|iv|v|iii|ii|i)(.*)$")
DEGREES = {"I": 0, "II": 2, "III": 4, "IV": 5, "V": 7, "VI": 9, "VII": 11}
# A numeral's suffix -> the chord quality written after a root (lower-case numerals: minor).
MINOR_SUFFIX = {"": "m", "7": "m7", "6": "m6", "9": "m9", "11": "m11", "maj7": "m(maj7)"}
SPECIAL_SUFFIX = {"ø": "m7b5", "ø7": "m7b5", "h": "m7b5", "h7": "m7b5", "m7b5": "m7b5",
                  "o": "dim", "°": "dim", "o7": "dim7", "°7": "dim7", "dim": "dim",
                  "dim7": "dim7", "+": "aug"}


@dataclass(frozen=True)
class Slot:
    pc: int          # root: pitch class (symbols) or semitones above the tonic (numerals)
    family: int
    quality: str
    symbol: str


SEARCH_FIELDS = ("pattern", "title", "key", "similarTo", "exact", "limit", "offset")


@lru_cache(maxsize=1)
def shipped_index() -> Index:
    """The project's own corpus (``engine/corpus/data``), built once per process."""
    songs, problems = load_paths([DATA])
    if problems.items:
        raise RuntimeError(f"the shipped corpus has errors: {problems.items[:3]}")
    return build_index(songs)


def search(request: Any, index: Index | None = None) -> dict[str, Any]:
    req = require_object(request, SEARCH_FIELDS)
    pattern = get_str(req, "pattern", max_len=4 * MAX_PROGRESSION)
    title = get_str(req, "title", max_len=200)
    similar = get_str(req, "similarTo", max_len=4 * MAX_PROGRESSION)
    key_text = get_str(req, "key", max_len=32)
    exact = req.get("exact")
    if exact is not None and not isinstance(exact, bool):
        raise InvalidRequest("field 'exact' must be true or false", field="exact")
    limit = _int(req, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    offset = _int(req, "offset", 0, 0, 10**9)
    if not any(v and v.strip() for v in (pattern, title, similar)):
        raise InvalidRequest("give at least one of 'pattern', 'title' or 'similarTo'",
                             field="pattern")
    idx = index or shipped_index()
    allowed = _filter(idx, title, key_text)
    hits = np.zeros(0, dtype=np.int64)
    scores = np.zeros(len(idx.songs), dtype=np.float64)
    chosen = allowed.copy()
    if pattern and pattern.strip():
        hits = _hits(idx, pattern, bool(exact))
        songs, counts = _runs(np.asarray(idx.stream.song[hits]))
        found = np.zeros(len(idx.songs), dtype=bool)
        found[songs] = True
        scores[songs] = counts
        chosen &= found
    if similar and similar.strip():
        likeness = _similar(idx, similar)
        liked = np.zeros(len(idx.songs), dtype=bool)
        for s, v in likeness.items():
            scores[s] += v
            liked[s] = True
        if not (pattern and pattern.strip()):
            chosen &= liked
    elif not (pattern and pattern.strip()):
        scores[chosen] = 1.0
    candidates = np.flatnonzero(chosen)
    ranked = candidates[np.lexsort((idx.order[candidates], -scores[candidates]))]
    page = ranked[offset: offset + limit]
    hit_songs = np.asarray(idx.stream.song[hits])  # non-decreasing: hits are sorted
    n = len(read_pattern(pattern)[0]) if pattern and pattern.strip() else 0
    results = []
    for s in (int(x) for x in page):
        info = idx.songs[s]
        lo = int(np.searchsorted(hit_songs, s, "left"))
        hi = int(np.searchsorted(hit_songs, s, "right"))
        starts = hits[lo:min(hi, lo + MAX_MATCHES)] if n else hits[:0]
        results.append({"id": info.id, "title": info.title, "composer": info.composer,
                        "key": info.key, "source": info.source,
                        "score": round(float(scores[s]), 3),
                        "matches": [_match(idx, s, int(p), n) for p in starts]})
    return {"total": len(ranked), "results": results}


def _runs(values: npt.NDArray[Any]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct values of a sorted array and how often each occurs (np.unique's hash
    path took 2.4 s on 2.5 M sorted hits; this is one pass)."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    edges = np.flatnonzero(np.diff(values)) + 1
    starts = np.concatenate(([0], edges))
    counts = np.diff(np.concatenate((starts, [len(values)])))
    return values[starts].astype(np.int64), counts.astype(np.int64)


def _int(req: dict[str, Any], field: str, default: int, low: int, high: int) -> int:
    value = req.get(field)
    if value is None:
        return default
    whole = as_int(value)
    if whole is None or not low <= whole <= high:
        raise InvalidRequest(f"field '{field}' must be a whole number from {low} to {high}",
                             field=field)
    return whole


def fold(text: str) -> str:
    """Case- and accent-insensitive form of a title."""
    return fold_title(text)


def _filter(idx: Index, title: str | None, key_text: str | None) -> npt.NDArray[np.bool_]:
    allowed = np.ones(len(idx.songs), dtype=bool)
    if title and title.strip():
        wanted = fold(title.strip())
        allowed &= np.array([wanted in t for t in idx.folded_titles], dtype=bool)
    if key_text and key_text.strip():
        key = parse_key(key_text).name
        allowed &= np.array([s.key == key for s in idx.songs], dtype=bool)
    return allowed


# ------------------------------------------------------------------ patterns


def read_pattern(text: str) -> tuple[list[Slot | None], bool]:
    """The slots of a pattern (None for ``?``) and whether it is written in numerals."""
    items = text.replace("|", " ").split()
    if not items:
        raise InvalidRequest("field 'pattern' has no chords", field="pattern")
    if len(items) > MAX_PROGRESSION:
        raise InvalidRequest(f"field 'pattern' has more than {MAX_PROGRESSION} chords",
                             field="pattern")
    roman = any(_ROMAN.match(i) for i in items if i != "?")
    slots: list[Slot | None] = []
    for n, item in enumerate(items):
        if item == "?":
            slots.append(None)
            continue
        symbol, offset = (_numeral(item, n) if roman else (item, 0))
        try:
            chord = parse(symbol)
        except InvalidChord as e:
            raise (e.at_index(n) if not roman else InvalidChord(item, e.reason, index=n)) \
                from None
        pc = (chord.root_pc + offset) % 12 if roman else chord.root_pc
        slots.append(Slot(pc, family_of(chord), chord.quality, item))
    if all(s is None for s in slots):
        raise InvalidRequest("field 'pattern' needs at least one chord besides '?'",
                             field="pattern")
    return slots, roman


def _numeral(item: str, index: int) -> tuple[str, int]:
    """A roman numeral as a chord symbol on C (``ii7`` -> ``Dm7``), and 0."""
    m = _ROMAN.match(item)
    if m is None:
        raise InvalidChord(item, "not a roman numeral (pattern written in numerals)",
                           index=index)
    accidental, numeral, suffix = m.groups()
    pc = (DEGREES[numeral.upper()] + {"b": -1, "#": 1, "": 0}[accidental]) % 12
    if suffix in SPECIAL_SUFFIX:
        quality = SPECIAL_SUFFIX[suffix]
    elif numeral.islower():
        quality = MINOR_SUFFIX.get(suffix, "m" + suffix)
    else:
        quality = suffix
    return NAMES[pc] + quality, 0


# A pattern's work: the places it checks times its chords. The longest run of known chords
# picks the places (the suffix array), else the rarest known chord's family; past this budget
# the search is refused before it checks anything (issue 35: '? C7 ? G7 ?' x 51 took 2.5 s
# of a worker on 100,000 songs).
MAX_SEARCH_WORK = 1 << 24


def _hits(idx: Index, text: str, exact: bool) -> npt.NDArray[np.int64]:
    """Every start of the pattern in the stream, sorted."""
    slots, roman = read_pattern(text)
    starts = _candidates(idx, slots)
    work = len(starts) * len(slots)
    if work > MAX_SEARCH_WORK:
        raise InvalidRequest(
            f"the pattern would check {len(starts):,} places x {len(slots)} chords = "
            f"{work:,}; a search checks at most {MAX_SEARCH_WORK:,}: name two neighbouring "
            "chords, a rarer chord, or fewer '?'", field="pattern")
    return verify(idx, slots, starts, roman, exact)


def _pattern(idx: Index, text: str, exact: bool) -> dict[int, list[tuple[int, int]]]:
    """Song -> [(start, length)] of every occurrence of the pattern."""
    n = len(read_pattern(text)[0])
    found: dict[int, list[tuple[int, int]]] = {}
    for s in _hits(idx, text, exact):
        found.setdefault(idx.song_of(int(s)), []).append((int(s), n))
    return found


def _candidates(idx: Index, slots: list[Slot | None]) -> npt.NDArray[np.int64]:
    """Starts that satisfy the longest run of consecutive known chords (from the suffix
    array), or the first known chord's family (a scan) when no two known chords touch."""
    best: tuple[int, int] = (0, 0)  # (length, end) of the longest run of tokens
    run = 0
    for p in range(1, len(slots)):
        run = run + 1 if slots[p] is not None and slots[p - 1] is not None else 0
        if run > best[0]:
            best = (run, p)
    if best[0] > 0:
        length, end = best
        tokens = []
        for p in range(end - length + 1, end + 1):
            a, b = slots[p - 1], slots[p]
            assert a is not None and b is not None
            tokens.append(token((b.pc - a.pc) % 12, b.family))
        return idx.positions(tokens) - (end - length + 1)
    counts = _family_counts(idx)
    first = min((p for p, s in enumerate(slots) if s is not None),
                key=lambda p: (int(counts[slots[p].family]), p))  # type: ignore[union-attr]
    slot = slots[first]
    assert slot is not None
    return np.flatnonzero(np.asarray(idx.stream.family) == slot.family).astype(np.int64) - first


# id of an index's family array -> (the array, kept so that its id is not reused, its counts)
_COUNTS: dict[int, tuple[Any, npt.NDArray[np.int64]]] = {}


def _family_counts(idx: Index) -> npt.NDArray[np.int64]:
    """How many chords of each family the index holds (counted once per index)."""
    family = idx.stream.family
    kept = _COUNTS.get(id(family))
    if kept is None:
        if len(_COUNTS) >= 8:
            _COUNTS.clear()
        values = np.asarray(family)
        kept = _COUNTS[id(family)] = (family, np.bincount(
            values[values >= 0].astype(np.int64), minlength=256))
    return kept[1]


def verify(idx: Index, slots: list[Slot | None], starts: npt.NDArray[np.int64], roman: bool,
           exact: bool) -> npt.NDArray[np.int64]:
    """The ``starts`` where every slot of the pattern holds."""
    st = idx.stream
    n = len(slots)
    size = len(st.tokens)
    starts = starts[(starts >= 0) & (starts + n <= size)]
    ok = np.ones(len(starts), dtype=bool)
    known = [p for p, s in enumerate(slots) if s is not None]
    tokens, root, family = st.tokens, st.root, st.family
    shift: npt.NDArray[np.int64] | None = None
    quality_ids = {q: i for i, q in enumerate(st.qualities)}
    for p in range(n):
        ok &= np.asarray(tokens[starts + p]) != SEPARATOR
    for p in known:
        slot = slots[p]
        assert slot is not None
        at = starts + p
        ok &= np.asarray(family[at]) == slot.family
        if exact:
            ok &= np.asarray(st.quality[at]) == quality_ids.get(slot.quality, -2)
        if roman:
            ok &= np.asarray(st.degree[at]).astype(np.int64) == slot.pc
        else:
            here = (np.asarray(root[at]).astype(np.int64) - slot.pc) % 12
            if shift is None:
                shift = here
            else:
                ok &= here == shift
    return starts[ok]  # sorted and distinct already: both candidate paths give them so


def _match(idx: Index, song: int, start: int, length: int) -> dict[str, Any]:
    st = idx.stream
    info = idx.songs[song]
    symbols = [st.symbols[int(st.symbol[start + p])] for p in range(length)]
    numerals: list[str | None] = []
    for sym in symbols:
        try:
            numerals.append(analyze({"chord": sym, "key": info.reading})["numeral"]
                            if info.reading else None)
        except HarmonyError:
            numerals.append(None)
    return {"section": info.sections[int(st.section[start])], "bar": int(st.bar[start]),
            "beat": round(float(st.beat[start]), 3), "chords": symbols, "numerals": numerals}


# ------------------------------------------------------------------ similarity


def _query_tokens(idx: Index, text: str) -> tuple[npt.NDArray[np.uint8], int | None]:
    """The tokens of a song id or a progression, and the song's own number (to leave out)."""
    for s, info in enumerate(idx.songs):
        if info.id == text.strip():
            a, b = int(idx.starts[s]), int(idx.starts[s + 1])
            return np.asarray(idx.stream.tokens[a:b]), s
    slots, roman = read_pattern(text)
    if roman or any(s is None for s in slots):
        raise InvalidRequest("'similarTo' is a progression in chord symbols or a song id",
                             field="similarTo")
    out, previous = [], None
    for slot in slots:
        assert slot is not None
        out.append(token(NO_MOTION if previous is None else (slot.pc - previous) % 12,
                         slot.family))
        previous = slot.pc
    return np.array(out, dtype=np.uint8), None


def _similar(idx: Index, text: str) -> dict[int, float]:
    query, own = _query_tokens(idx, text)
    hits: Counter[int] = Counter()
    grams = {tuple(int(t) for t in query[i:i + 3]) for i in range(len(query) - 2)}
    for gram in sorted(grams):
        if SEPARATOR in gram:
            continue
        songs, _ = _runs(np.asarray(idx.stream.song[idx.positions(gram)]))
        hits.update(int(s) for s in songs)
    if own is not None:
        hits.pop(own, None)
    hits.pop(len(idx.songs), None)
    chosen = sorted(hits, key=lambda s: (-hits[s], s))[:CANDIDATES]
    best = MATCH * max(1, int(np.count_nonzero(query)))
    scores = {}
    for s in chosen:
        a, b = int(idx.starts[s]), int(idx.starts[s + 1])
        scores[s] = align(query, np.asarray(idx.stream.tokens[a:b])) / best
    return scores
