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
from dataclasses import dataclass
from functools import lru_cache, partial
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
from engine.corpus.scan import _bounds, _count, _count_in_songs, _gram_songs, _starts_in
from engine.corpus.tokens import NO_MOTION, SEPARATOR, family_of, token
from engine.errors import HarmonyError, InvalidChord, InvalidRequest
from engine.requests import MAX_PROGRESSION, as_int, get_str, require_object

DATA = Path(__file__).resolve().parent / "data"
MAX_LIMIT, DEFAULT_LIMIT = 100, 10
MAX_MATCHES = 20          # occurrences listed per song (all are counted in its score)
CANDIDATES = 300          # songs aligned for similarTo
MAX_ALIGN_CELLS = 1 << 25  # their alignment tables' cells, at most (~2 ns a cell)
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
    scores = np.zeros(len(idx.songs), dtype=np.float64)
    chosen = allowed.copy()
    plan: Plan | None = None
    if pattern and pattern.strip():
        plan = _plan(idx, pattern, bool(exact))
        counts = _count_songs(idx, plan)
        found = counts > 0
        scores[found] = counts[found]
        chosen &= found
    if similar and similar.strip():
        likeness = _similar(idx, similar)
        liked = np.zeros(len(idx.songs), dtype=bool)
        for s, v in likeness.items():
            scores[s] += v
            liked[s] = True
        if plan is None:
            chosen &= liked
    elif plan is None:
        scores[chosen] = 1.0
    candidates = np.flatnonzero(chosen)
    page = _page(candidates, scores, idx.order, offset, limit, whole=not similar)
    numerals: dict[tuple[str, str], str | None] = {}   # this answer's, by (symbol, key)
    results = []
    for s in (int(x) for x in page):
        info = idx.songs[s]
        starts = _song_starts(idx, plan, s, MAX_MATCHES) if plan else []
        results.append({"id": info.id, "title": info.title, "composer": info.composer,
                        "key": info.key, "source": info.source,
                        "score": round(float(scores[s]), 3),
                        "matches": [_match(idx, s, p, plan.n, numerals)
                                    for p in starts] if plan else []})
    return {"total": len(candidates), "results": results}


def _page(candidates: npt.NDArray[np.int64], scores: npt.NDArray[np.float64],
          order: npt.NDArray[np.int64], offset: int, limit: int, whole: bool
          ) -> npt.NDArray[np.int64]:
    """The songs ranked ``offset`` to ``offset + limit`` by score (highest first), then title
    order. Whole-number scores (no ``similarTo``) make one distinct integer key a song, so
    the page is partitioned out and only it sorted (ranking 100,000 songs by two keys cost
    ~15 ms a query)."""
    end = offset + limit
    if not whole:
        ranked = candidates[np.lexsort((order[candidates], -scores[candidates]))]
        return ranked[offset:end]
    key = -scores[candidates].astype(np.int64) * len(order) + order[candidates]
    if end < len(key):
        top = np.argpartition(key, end - 1)[:end]
        return candidates[top[np.argsort(key[top])]][offset:end]
    return candidates[np.argsort(key)][offset:end]


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


# A pattern's work: the places it may start at, and at each the checks until one fails (its
# named chords: a '?' costs nothing, the window's song is one comparison). The longest run of
# named neighbours picks the places (the suffix array), else the rarest named chord's family
# (issue 35: '? C7 ? G7 ?' x 51 took 2.5 s of a worker on 100,000 songs). Past this budget the
# search stops and is refused, naming the field (docs/search.md: what a budget's worth costs).
MAX_SEARCH_WORK = 1 << 24


# Places from the suffix array are read in the stream's order once sorted; past this share of
# the stream, a pass over a column of it (the rarest token of the run, or the family) reads the
# same places in order without sorting them (measured: 70,000 places checked at random cost
# 14 ms of CPU, sorted 4.6 ms).
SCAN_SHARE = 32


@dataclass(frozen=True)
class Plan:
    """A pattern compiled for the scan (``engine.corpus.scan``)."""

    n: int                                  # chords, '?' included
    roman: bool
    exact: bool
    named: tuple[npt.NDArray[np.int64], ...]   # offsets, families, pitch classes, qualities
    places: npt.NDArray[np.int32]           # sorted suffix-array places (empty when scanning)
    column: str                             # the stream's column scanned ("" for places)
    value: int                              # the value whose places are scanned
    offset: int                             # a place's offset in the pattern
    count: int                              # how many places

    def arrays(self, idx: Index) -> tuple[Any, ...]:
        st = idx.stream
        return (*self.named, self.roman, self.exact, np.asarray(st.tokens),
                np.asarray(st.song), idx.starts, np.asarray(st.family), np.asarray(st.root),
                np.asarray(st.degree), np.asarray(st.quality))

    def scan(self, idx: Index) -> tuple[Any, ...]:
        column = np.asarray(getattr(idx.stream, self.column)) if self.column else _NONE
        return self.places, column, self.value, self.offset, self.n


_NONE = np.zeros(0, dtype=np.uint8)


def _plan(idx: Index, text: str, exact: bool) -> Plan:
    slots, roman = read_pattern(text)
    quality_ids = {q: i for i, q in enumerate(idx.stream.qualities)}
    known = [(p, s) for p, s in enumerate(slots) if s is not None]
    named = (np.array([p for p, _ in known], dtype=np.int64),
             np.array([s.family for _, s in known], dtype=np.int64),
             np.array([s.pc for _, s in known], dtype=np.int64),
             np.array([quality_ids.get(s.quality, -2) for _, s in known], dtype=np.int64))
    plan = partial(Plan, len(slots), roman, exact, named)
    best: tuple[int, int] = (0, 0)  # (length, end) of the longest run of tokens
    run = 0
    for p in range(1, len(slots)):
        run = run + 1 if slots[p] is not None and slots[p - 1] is not None else 0
        if run > best[0]:
            best = (run, p)
    tokens_, families = _counts(idx)
    if best[0] > 0:
        length, end = best
        tokens = {}
        for p in range(end - length + 1, end + 1):
            a, b = slots[p - 1], slots[p]
            assert a is not None and b is not None
            tokens[p] = token((b.pc - a.pc) % 12, b.family)
        lo, hi = _bounds(np.asarray(idx.stream.tokens), np.asarray(idx.suffixes),
                         np.array(list(tokens.values()), dtype=np.uint8))
        if (hi - lo) * SCAN_SHARE <= len(idx.stream.tokens):
            return plan(np.sort(np.asarray(idx.suffixes[lo:hi])), "", 0, end - length + 1,
                        int(hi - lo))
        rarest = min(tokens, key=lambda p: (int(tokens_[tokens[p]]), p))
        return plan(_NO_PLACES, "tokens", tokens[rarest], rarest,
                    int(tokens_[tokens[rarest]]))
    family_at = {p: s.family for p, s in known}
    first = min(family_at, key=lambda p: (int(families[family_at[p]]), p))
    return plan(_NO_PLACES, "family", family_at[first], first,
                int(families[family_at[first]]))


_NO_PLACES = np.zeros(0, dtype=np.int32)


def _refuse(plan: Plan) -> InvalidRequest:
    return InvalidRequest(
        f"the pattern may start at {plan.count:,} places, each checked at its "
        f"{len(plan.named[0])} named chords: more than the {MAX_SEARCH_WORK:,} checks a search "
        "does at most; name two neighbouring chords or a rarer chord", field="pattern")


def _count_songs(idx: Index, plan: Plan) -> npt.NDArray[np.int32]:
    """How often the pattern starts in each song (songs,); refused past the budget."""
    if plan.count > MAX_SEARCH_WORK:
        raise _refuse(plan)
    counts = np.zeros(len(idx.songs) + 1, dtype=np.int32)
    if plan.n == 1 and not (plan.exact or plan.roman):
        # one chord: its family, whatever its root. The scan's work would be two checks a
        # place (its window, its chord), so the same patterns pass the budget
        if 2 * plan.count > MAX_SEARCH_WORK:
            raise _refuse(plan)
        return np.array(idx.families[:, int(plan.named[1][0])], dtype=np.int32)
    if plan.column:
        args = (_candidates(idx, plan), *plan.scan(idx)[1:], *plan.named, plan.roman,
                plan.exact, idx.starts, *plan.arrays(idx)[-4:], counts, MAX_SEARCH_WORK)
        work = _count_in_songs(*args)
    else:
        args = (*plan.scan(idx), *plan.arrays(idx), counts, MAX_SEARCH_WORK)
        work = _count(*args)
    if work < 0:
        raise _refuse(plan)
    return counts[:-1]


def _candidates(idx: Index, plan: Plan) -> npt.NDArray[np.int64]:
    """The songs a pattern may match, in order: at least as many chords as it has, and of
    each family at least as many as it names (the index's count of each a song holds)."""
    fits = np.diff(idx.starts) > plan.n
    need = np.bincount(plan.named[1], minlength=idx.families.shape[1])
    for f in np.flatnonzero(need).tolist():
        fits &= np.asarray(idx.families[:, f]) >= need[f]
    return np.flatnonzero(fits).astype(np.int64)


def _song_starts(idx: Index, plan: Plan, song: int, most: int) -> list[int]:
    """The first ``most`` starts of the pattern in a song, in order."""
    first, last = int(idx.starts[song]) + 1, int(idx.starts[song + 1])
    return [int(p) for p in _starts_in(first, last, most, plan.n, *plan.arrays(idx))]


# id of an index's token array -> (the array, kept so that its id is not reused, the counts
# of its tokens, of its families)
_COUNTS: dict[int, tuple[Any, npt.NDArray[np.int64], npt.NDArray[np.int64]]] = {}


def _counts(idx: Index) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """How many chords of each token and of each family the index holds (counted once per
    index; the last 8 indexes kept)."""
    tokens = idx.stream.tokens
    kept = _COUNTS.get(id(tokens))
    if kept is None:
        if len(_COUNTS) >= 8:
            _COUNTS.clear()
        family = np.asarray(idx.stream.family)
        kept = _COUNTS[id(tokens)] = (
            tokens, np.bincount(np.asarray(tokens), minlength=256).astype(np.int64),
            np.bincount(family[family >= 0].astype(np.int64), minlength=256))
    return kept[1], kept[2]


def _match(idx: Index, song: int, start: int, length: int,
           numerals: dict[tuple[str, str], str | None]) -> dict[str, Any]:
    st = idx.stream
    info = idx.songs[song]
    names = st.symbols
    symbols = [names[i] for i in np.asarray(st.symbol[start:start + length]).tolist()]
    return {"section": info.sections[int(st.section[start])], "bar": int(st.bar[start]),
            "beat": round(float(st.beat[start]), 3), "chords": symbols,
            "numerals": [_numeral_of(sym, info.reading, numerals) if info.reading else None
                         for sym in symbols]}


def _numeral_of(symbol: str, key: str, seen: dict[tuple[str, str], str | None]) -> str | None:
    """A chord's numeral in a key, once per answer (a page of 256-chord matches repeats its
    few symbols thousands of times)."""
    if (symbol, key) not in seen:
        try:
            seen[symbol, key] = analyze({"chord": symbol, "key": key})["numeral"]
        except HarmonyError:
            seen[symbol, key] = None
    return seen[symbol, key]


# ------------------------------------------------------------------ similarity


def _query_tokens(idx: Index, text: str) -> tuple[npt.NDArray[np.uint8], int | None]:
    """The tokens of a song id or a progression, and the song's own number (to leave out)."""
    wanted = text.strip()
    if wanted in idx.ids:       # one C-level pass over the ids (a loop over songs: ~15 ms)
        s = idx.ids.index(wanted)
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
    grams = sorted({tuple(int(t) for t in query[i:i + 3]) for i in range(len(query) - 2)})
    grams = [g for g in grams if SEPARATOR not in g]
    counts = np.zeros(len(idx.songs) + 1, dtype=np.int32)
    if grams and _gram_songs(np.asarray(idx.stream.tokens), np.asarray(idx.suffixes),
                             np.asarray(idx.stream.song), np.array(grams, dtype=np.uint8),
                             counts, MAX_SEARCH_WORK) < 0:
        raise InvalidRequest(f"'similarTo' shares its three-chord runs with more than "
                             f"{MAX_SEARCH_WORK:,} places; give a shorter or rarer "
                             "progression", field="similarTo")
    if own is not None:
        counts[own] = 0
    counts[len(idx.songs)] = 0
    held = np.flatnonzero(counts)
    # most runs shared first, then song order: one distinct integer a song, the nearest
    # partitioned out and only they sorted
    rank = -counts[held].astype(np.int64) * len(counts) + held
    if len(rank) > CANDIDATES:
        near = np.argpartition(rank, CANDIDATES - 1)[:CANDIDATES]
        held, rank = held[near], rank[near]
    chosen = held[np.argsort(rank)]
    cells = len(query) * int(np.sum(idx.starts[chosen + 1] - idx.starts[chosen]))
    if cells > MAX_ALIGN_CELLS:
        raise InvalidRequest(f"'similarTo' would align {cells:,} cells (its chords x the "
                             f"chords of the {len(chosen)} songs nearest it); at most "
                             f"{MAX_ALIGN_CELLS:,}: give a shorter progression",
                             field="similarTo")
    best = MATCH * max(1, int(np.count_nonzero(query)))
    scores = {}
    for s in (int(x) for x in chosen):
        a, b = int(idx.starts[s]), int(idx.starts[s + 1])
        scores[s] = align(query, np.asarray(idx.stream.tokens[a:b])) / best
    return scores
