"""Private numba kernels of the search: one pass over the places a pattern may start, each
checked slot by slot with an early exit, its work counted against a budget.

A window of ``n`` chords crosses no separator when its first chord is a chord and its last lies
before the next song's separator (``song_start``): one comparison, however many ``?`` it holds,
so a run of wildcards costs nothing. Only the named chords are checked. The slow twin is the
plain scan of every window of every song in ``tests/test_corpus_search.py`` (``naive``).

Arrays: ``slot_at`` (k,) the offsets of the named chords in the pattern; ``slot_family``,
``slot_pc`` (root pitch class, or semitones above the tonic for numerals) and ``slot_quality``
(an index into the index's qualities, -2 for one it does not hold) likewise.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit


@njit(cache=True, inline="always")
def _holds(start: int, n: int, slot_at: npt.NDArray[np.int64],
           slot_family: npt.NDArray[np.int64], slot_pc: npt.NDArray[np.int64],
           slot_quality: npt.NDArray[np.int64], roman: bool, exact: bool,
           tokens: npt.NDArray[np.uint8], song: npt.NDArray[np.int32],
           song_start: npt.NDArray[np.int64], family: npt.NDArray[np.int8],
           root: npt.NDArray[np.int8], degree: npt.NDArray[np.int8],
           quality: npt.NDArray[np.int16]) -> tuple[bool, int]:  # pragma: no cover (jitted)
    """Whether the pattern holds at ``start``, and the checks it took."""
    if start < 0 or start + n > tokens.shape[0] or tokens[start] == 0:
        return False, 1
    if start + n > song_start[song[start] + 1]:
        return False, 1
    shift = -1
    for q in range(slot_at.shape[0]):
        at = start + slot_at[q]
        if family[at] != slot_family[q] or (exact and quality[at] != slot_quality[q]):
            return False, q + 2
        if roman:
            if degree[at] != slot_pc[q]:
                return False, q + 2
        else:
            here = np.int64(root[at]) - slot_pc[q]     # both 0..11: no division
            if here < 0:
                here += 12
            if shift < 0:
                shift = here
            elif here != shift:
                return False, q + 2
    return True, slot_at.shape[0] + 1


@njit(cache=True)
def _count(places: npt.NDArray[np.int32], scan: npt.NDArray[np.int8], value: int, offset: int,
           n: int, slot_at: npt.NDArray[np.int64], slot_family: npt.NDArray[np.int64],
           slot_pc: npt.NDArray[np.int64], slot_quality: npt.NDArray[np.int64], roman: bool,
           exact: bool, tokens: npt.NDArray[np.uint8], song: npt.NDArray[np.int32],
           song_start: npt.NDArray[np.int64], family: npt.NDArray[np.int8],
           root: npt.NDArray[np.int8], degree: npt.NDArray[np.int8],
           quality: npt.NDArray[np.int16], counts: npt.NDArray[np.int32],
           budget: int) -> int:  # pragma: no cover (jitted)
    """Adds to ``counts`` (songs,) the starts of the pattern in each song; returns the work
    done (places and checks), or -1 once it passes ``budget`` (``counts`` then partial).
    The places are ``places - offset`` (sorted: the stream is then read in order), or, when
    ``scan`` is not empty, every ``i - offset`` where ``scan[i] == value`` (a pass over a
    column of the stream, the tokens or the families: read in order, no array of places)."""
    work = 0
    if scan.shape[0] > 0:
        for i in range(scan.shape[0]):
            if scan[i] != value:
                continue
            ok, checks = _holds(i - offset, n, slot_at, slot_family, slot_pc, slot_quality,
                                roman, exact, tokens, song, song_start, family, root, degree,
                                quality)
            work += checks
            if ok:
                counts[song[i - offset]] += 1
            if work > budget:
                return -1
        return work
    for j in range(places.shape[0]):
        start = int(places[j]) - offset
        ok, checks = _holds(start, n, slot_at, slot_family, slot_pc, slot_quality, roman,
                            exact, tokens, song, song_start, family, root, degree, quality)
        work += checks
        if ok:
            counts[song[start]] += 1
        if work > budget:
            return -1
    return work


@njit(cache=True)
def _count_in_songs(songs: npt.NDArray[np.int64], scan: npt.NDArray[np.int8], value: int,
                    offset: int, n: int, slot_at: npt.NDArray[np.int64],
                    slot_family: npt.NDArray[np.int64], slot_pc: npt.NDArray[np.int64],
                    slot_quality: npt.NDArray[np.int64], roman: bool, exact: bool,
                    song_start: npt.NDArray[np.int64], family: npt.NDArray[np.int8],
                    root: npt.NDArray[np.int8], degree: npt.NDArray[np.int8],
                    quality: npt.NDArray[np.int16], counts: npt.NDArray[np.int32],
                    budget: int) -> int:  # pragma: no cover (jitted)
    """``_count`` over the songs ``songs`` (ascending) only, each song's places read where the
    pattern fits whole: a place ``i`` (``scan[i] == value``) of song ``s`` is checked only when
    ``song_start[s] + 1 <= i - offset`` and ``i - offset + n <= song_start[s + 1]``, so no
    window is tried across a separator and a song shorter than the pattern costs nothing.
    The checks at a place are ``_holds``'s, in the same order, counted the same way (a place
    ``_count`` would have refused at its window costs nothing here): the work is at most
    ``_count``'s."""
    work = 0
    k = slot_at.shape[0]
    for j in range(songs.shape[0]):
        s = songs[j]
        first = song_start[s] + 1 + offset
        end = song_start[s + 1] - n + offset + 1
        found = 0
        for i in range(first, end):
            if scan[i] != value:
                continue
            start = i - offset
            failed = -1
            shift = -1
            for q in range(k):
                at = start + slot_at[q]
                if family[at] != slot_family[q] or (exact and quality[at] != slot_quality[q]):
                    failed = q
                    break
                if roman:
                    if degree[at] != slot_pc[q]:
                        failed = q
                        break
                else:
                    here = np.int64(root[at]) - slot_pc[q]
                    if here < 0:
                        here += 12
                    if shift < 0:
                        shift = here
                    elif here != shift:
                        failed = q
                        break
            if failed < 0:
                work += k + 1
                found += 1
            else:
                work += failed + 2
            if work > budget:
                return -1
        counts[s] += found
    return work


@njit(cache=True)
def _starts_in(first: int, last: int, most: int, n: int, slot_at: npt.NDArray[np.int64],
               slot_family: npt.NDArray[np.int64], slot_pc: npt.NDArray[np.int64],
               slot_quality: npt.NDArray[np.int64], roman: bool, exact: bool,
               tokens: npt.NDArray[np.uint8], song: npt.NDArray[np.int32],
               song_start: npt.NDArray[np.int64], family: npt.NDArray[np.int8],
               root: npt.NDArray[np.int8], degree: npt.NDArray[np.int8],
               quality: npt.NDArray[np.int16]) -> npt.NDArray[np.int64]:  # pragma: no cover
    """The first ``most`` starts of the pattern in the stream's range [first, last), in
    order (one song's chords: its matches to list)."""
    out = np.empty(max(0, min(most, last - first)), dtype=np.int64)
    found = 0
    for start in range(first, last):
        if found == out.shape[0]:
            break
        ok, _ = _holds(start, n, slot_at, slot_family, slot_pc, slot_quality, roman, exact,
                       tokens, song, song_start, family, root, degree, quality)
        if ok:
            out[found] = start
            found += 1
    return out[:found]


@njit(cache=True)
def _bounds(tokens: npt.NDArray[np.uint8], suffixes: npt.NDArray[np.int32],
            pattern: npt.NDArray[np.uint8]) -> tuple[int, int]:  # pragma: no cover (jitted)
    """The range of ``suffixes`` whose suffixes begin with ``pattern`` (two binary
    searches; a suffix shorter than the pattern sorts before it)."""
    size = tokens.shape[0]
    m = pattern.shape[0]
    bounds = np.zeros(2, dtype=np.int64)
    for upper in range(2):
        lo = 0
        hi = suffixes.shape[0]
        while lo < hi:
            mid = (lo + hi) // 2
            start = np.int64(suffixes[mid])
            c = 0
            for p in range(m):
                if start + p >= size:
                    c = -1
                    break
                if tokens[start + p] != pattern[p]:
                    c = -1 if tokens[start + p] < pattern[p] else 1
                    break
            if c < 0 or (upper == 1 and c == 0):
                lo = mid + 1
            else:
                hi = mid
        bounds[upper] = lo
    return bounds[0], bounds[1]


@njit(cache=True)
def _gram_songs(tokens: npt.NDArray[np.uint8], suffixes: npt.NDArray[np.int32],
                song: npt.NDArray[np.int32], grams: npt.NDArray[np.uint8],
                hits: npt.NDArray[np.int32], budget: int) -> int:  # pragma: no cover (jitted)
    """Adds 1 to ``hits`` (songs,) for each row of ``grams`` (g, 3) a song holds; returns
    the places visited, or -1 past ``budget``."""
    seen = np.full(hits.shape[0], -1, dtype=np.int64)
    work = 0
    for g in range(grams.shape[0]):
        lo, hi = _bounds(tokens, suffixes, grams[g])
        work += hi - lo + 1
        if work > budget:
            return -1
        for j in range(lo, hi):
            s = song[suffixes[j]]
            if seen[s] != g:
                seen[s] = g
                hits[s] += 1
    return work
