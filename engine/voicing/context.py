"""A progression as the voicing reads it in context (API.md 5): each chord's primary scale
(its colour tones agree with it, ``engine.voicing.colour``) and whether it is an arrival
(bill_evans keeps its register there, ``engine.voicing.styles.Register.arrival``), from the
progression analysis (``engine.analysis.context.in_context``), its key found from the chords.
The chords are read a bar each, as API.md 6 reads a progression without bar lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.analysis.chart import Chart, Placed, Section
from engine.analysis.context import InContext, in_context
from engine.chords import Chord


def progression_context(chords: Sequence[Chord]) -> list[InContext]:
    """The reading of each chord of ``chords`` (at least one) in the progression."""
    n = len(chords)
    chart = Chart((Section("A", 1, n),),
                  tuple(Placed(i + 1, 1.0, c.symbol, c) for i, c in enumerate(chords)), n,
                  False)
    return in_context(chart)
