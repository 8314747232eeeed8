"""Local alignment (Smith-Waterman) of two chord-token sequences: how much of a song moves
like the query. A private numba kernel over int arrays, with a slow twin in ``tests/naive.py``.

Scores: the same token (same root motion and family) +2; the same family after another motion
+1; otherwise -1; a gap -1. Separators never match.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from engine.corpus.tokens import FAMILIES

MATCH, FAMILY_MATCH, MISMATCH, GAP = 2, 1, -1, -1


def align(query: npt.NDArray[np.uint8], song: npt.NDArray[np.uint8]) -> int:
    """The best local alignment score of ``query`` within ``song``."""
    a = np.asarray(query, dtype=np.int64)
    b = np.asarray(song, dtype=np.int64)
    return int(_smith_waterman(a, b, (a - 1) % len(FAMILIES), (b - 1) % len(FAMILIES)))


@njit(cache=True)
def _smith_waterman(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64],
                    family_a: npt.NDArray[np.int64], family_b: npt.NDArray[np.int64]
                    ) -> int:  # pragma: no cover (jitted)
    """Best local score of a (n,) against b (m,), one row of the table at a time (O(m) memory).
    ``family_a``, ``family_b``: each token's family, ``(token - 1) % len(FAMILIES)`` (a
    division a cell cost more than the rest of its work)."""
    m = b.shape[0]
    previous = np.zeros(m + 1, dtype=np.int64)
    row = np.zeros(m + 1, dtype=np.int64)
    best = 0
    for i in range(a.shape[0]):
        row[0] = 0
        x = a[i]
        for j in range(1, m + 1):
            y = b[j - 1]
            if x == 0 or y == 0:
                s = MISMATCH
            elif x == y:
                s = MATCH
            elif family_a[i] == family_b[j - 1]:
                s = FAMILY_MATCH
            else:
                s = MISMATCH
            v = previous[j - 1] + s
            up = previous[j] + GAP
            if up > v:
                v = up
            left = row[j - 1] + GAP
            if left > v:
                v = left
            if v < 0:
                v = 0
            row[j] = v
            if v > best:
                best = v
        previous, row = row, previous
    return best
