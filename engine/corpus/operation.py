"""``search`` (API.md 14): songs of a corpus by a chord pattern, a title, a key, or likeness.

    search(request, index=None) -> {"total", "results": [{"id", "title", "composer", "key",
        "source", "score", "matches": [{"section", "bar", "beat", "chords", "numerals"}]}]}

A pattern is chord symbols (``"Dm7 G7 Cmaj7"``, matched in every key: the same root motions and
quality families, ``exact`` also the same qualities) or roman numerals (``"ii7 V7 Imaj7"``,
matched in songs whose key is known); ``?`` is any one chord (read by ``pattern``). The longest
run of known neighbours is looked up in the suffix array, every candidate then checked in full
against the side arrays. ``similarTo`` (a progression or a song id) ranks songs sharing
three-chord runs with it by local alignment (``similar``). Order: score (highest first), then
title, then id.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.analysis import analyze
from engine.chords import parse_key
from engine.corpus.build import build_index
from engine.corpus.index import Index
from engine.corpus.loaders import fold_title, load_paths
from engine.corpus.pattern import Plan, _plan
from engine.corpus.scan import _count, _count_in_songs, _starts_in
from engine.corpus.similar import similar_songs
from engine.errors import HarmonyError, InvalidRequest
from engine.requests import MAX_PROGRESSION, as_int, get_str, require_object

DATA = Path(__file__).resolve().parent / "data"
MAX_LIMIT, DEFAULT_LIMIT = 100, 10
MAX_MATCHES = 20          # occurrences listed per song (all are counted in its score)
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
        likeness = similar_songs(idx, similar, MAX_SEARCH_WORK)
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


# A pattern's work: the places it may start at, and at each the checks until one fails (its
# named chords: a '?' costs nothing, the window's song is one comparison). The longest run of
# named neighbours picks the places (the suffix array), else the rarest named chord's family
# (issue 35: '? C7 ? G7 ?' x 51 took 2.5 s of a worker on 100,000 songs). Past this budget the
# search stops and is refused, naming the field (docs/search.md: what a budget's worth costs).
MAX_SEARCH_WORK = 1 << 24


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
