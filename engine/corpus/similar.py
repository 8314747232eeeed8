"""``similarTo`` (API.md 14): the songs most like a progression or a song id. The query's
three-chord runs are looked up in the suffix array, the songs sharing the most of them
(``CANDIDATES``) aligned with it locally (``engine.corpus.align``); a song's likeness is its
alignment score over the best the query could reach.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.corpus.align import MATCH, align
from engine.corpus.index import Index
from engine.corpus.pattern import read_pattern
from engine.corpus.scan import _gram_songs
from engine.corpus.tokens import NO_MOTION, SEPARATOR, token
from engine.errors import InvalidRequest

CANDIDATES = 300          # songs aligned for similarTo
MAX_ALIGN_CELLS = 1 << 25  # their alignment tables' cells, at most (~2 ns a cell)


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


def similar_songs(idx: Index, text: str, budget: int) -> dict[int, float]:
    """Song number -> likeness of the songs nearest ``text``; ``budget`` bounds the
    places its three-chord runs are looked up at (the search's work budget)."""
    query, own = _query_tokens(idx, text)
    grams = sorted({tuple(int(t) for t in query[i:i + 3]) for i in range(len(query) - 2)})
    grams = [g for g in grams if SEPARATOR not in g]
    counts = np.zeros(len(idx.songs) + 1, dtype=np.int32)
    if grams and _gram_songs(np.asarray(idx.stream.tokens), np.asarray(idx.suffixes),
                             np.asarray(idx.stream.song), np.array(grams, dtype=np.uint8),
                             counts, budget) < 0:
        raise InvalidRequest(f"'similarTo' shares its three-chord runs with more than "
                             f"{budget:,} places; give a shorter or rarer "
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
