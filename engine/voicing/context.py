"""A progression as the voicing reads it in context (API.md 5): each chord's primary scale
(its colour tones agree with it, ``engine.voicing.colour``) and whether it is an arrival
(bill_evans keeps its register there) and whether a phrase starts on it (where it may move its register: ``engine.voicing.styles.PLACES``), from the
progression analysis (``engine.analysis.in_context``), its key found from the chords. The
chords are read a bar each, as API.md 6 reads a progression without bar lines; a caller that
knows the chart's sections (conduct, compose) passes the chords they start on.

The reading of a progression is kept (``_reading``, by its symbols: a chord's symbol is its
parse), as the candidate tables of its chords are: voicing the same changes again, in another
style or from another ``previous``, does not read them again (a 256-chord reading costs about
1.5 ms, the key search half of it).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from engine.analysis import Chart, ChartSection, InContext, Placed, in_context
from engine.chords import Chord, parse


def progression_context(chords: Sequence[Chord], starts: Sequence[int] = ()
                        ) -> tuple[InContext, ...]:
    """The reading of each chord of ``chords`` (at least one) in the progression; ``starts``:
    the indices of the chords a section of the chart starts on (a phrase starts there, as on
    the first chord: ``engine.analysis.context.phrase_starts``)."""
    return _reading(tuple(c.symbol for c in chords), tuple(sorted(set(starts))))


@lru_cache(maxsize=256)
def _reading(symbols: tuple[str, ...], starts: tuple[int, ...] = ()) -> tuple[InContext, ...]:
    n = len(symbols)
    firsts = [0, *(i for i in starts if 0 < i < n)]
    sections = tuple(ChartSection("A", a + 1, b - a)
                     for a, b in zip(firsts, [*firsts[1:], n], strict=True))
    chart = Chart(sections,
                  tuple(Placed(i + 1, 1.0, s, parse(s)) for i, s in enumerate(symbols)), n,
                  False)
    return tuple(in_context(chart))
