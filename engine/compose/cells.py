"""Where a section's chords sit in a chart's cells, the one rule of the iReal export, the
ChordPro grid and the lead sheet: a bar is a row of cells (a beat each, or a dotted quarter in
a compound meter), and every chord goes to the cell nearest its beat.

- A chord between two cells goes to the nearer; on a tie, halfway (the "and" of a beat after a
  swing push, beat 2.5), to the later one: a chord between beats is heard as the push into the
  beat that follows, and a chart writes it on that beat.
- A chord nearer the next bar's first cell than its own bar's last (the "and" of 4 in 4/4,
  beat 4.5; a triplet's last eighth, 4.667) is a push into the next bar: it is written on that
  bar's first beat when the bar is in the section, has a free first cell (no chord of its own
  nearest to it) and a cell for it; else it stays on its own bar's last cell.
- Never two chords in one cell and never one lost: when two chords want one cell, the bar's
  chords take the cells, in their order, that move them least in all (``C7`` at 2.75 and ``G7``
  at 3 in 4/4 are on 2 and 3; at 3.75 and 4, on 3 and 4), a tie again to the later cells. A bar
  with more chords than cells (five in 4/4) has no cells: each writer says what it does with
  it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
Grid = tuple[int, int]   # (cells in the bar, beats of the meter in one cell)


def nearest(beat: float, unit: int) -> int:
    """The cell nearest ``beat`` (1-based, in beats of the meter) in cells of ``unit`` beats,
    a tie to the later one."""
    return math.floor((beat - 1) / unit + 0.5)


def place(bars: Sequence[Sequence[tuple[float, T]]], grids: Sequence[Grid]
          ) -> list[list[tuple[int, T]] | None]:
    """Each bar's chords ``(beat, item)`` in beat order, ``grids`` each bar's ``(cells,
    unit)``: each bar's ``(cell, item)``, or None for a bar with more chords than cells (its
    chords stay in it, in ``bars``)."""
    moved: list[list[tuple[float, T]]] = [list(b) for b in bars]
    for k in range(len(moved) - 1):
        cells, unit = grids[k]
        if not moved[k] or len(moved[k]) > cells:
            continue
        beat, item = moved[k][-1]
        after, (next_cells, next_unit) = moved[k + 1], grids[k + 1]
        if nearest(beat, unit) >= cells and len(after) < next_cells \
                and not any(nearest(b, next_unit) == 0 for b, _ in after):
            moved[k].pop()
            after.insert(0, (1.0, item))
    out: list[list[tuple[int, T]] | None] = []
    for chords, (cells, unit) in zip(moved, grids, strict=True):
        if len(chords) > cells:
            out.append(None)
            continue
        at = _in_order([(b - 1) / unit for b, _ in chords], cells)
        out.append([(cell, item) for cell, (_, item) in zip(at, chords, strict=True)])
    return out


def _in_order(positions: list[float], cells: int) -> list[int]:
    """One cell each for ``positions`` (in cells, ascending), in their order, one chord a
    cell, the sum of the distances least; of equal sums, the later cells (a tie is a push).
    A table over (chord, cell): at most 12 x 12."""
    n = len(positions)
    if n == 0:
        return []
    inf = (math.inf, 0)
    # best[k][c]: (distance, -sum of cells) of chords 0..k with chord k in cell c
    best = [[inf] * cells for _ in range(n)]
    back = [[-1] * cells for _ in range(n)]
    for c in range(cells):
        best[0][c] = (round(abs(c - positions[0]), 6), -c)
    for k in range(1, n):
        low, low_at = inf, -1
        for c in range(cells):
            if c > 0 and best[k - 1][c - 1] < low:
                low, low_at = best[k - 1][c - 1], c - 1
            if low_at >= 0:
                best[k][c] = (round(low[0] + abs(c - positions[k]), 6), low[1] - c)
                back[k][c] = low_at
    cell = min(range(cells), key=lambda c: best[n - 1][c])
    out = [cell]
    for k in range(n - 1, 0, -1):
        cell = back[k][cell]
        out.append(cell)
    return out[::-1]
