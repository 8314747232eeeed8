"""The key of many charts at once (``chart_key`` over a whole corpus): one numba pass over
flat arrays, the charts laid end to end.

``chart_key`` reads one chart's chords into numpy arrays and scores the 24 candidates; a corpus
of 100,000 charts spent ~0.25 ms a chart doing so (25 s), most of it building the arrays. Here
each distinct chord's facts are read once (``keyfind._facts``), the charts are arrays of indices
into them, and a private kernel (``_chart_keys``) computes the same cues with the same formulas,
chart by chart, in one pass.

The kernel adds in chart order where ``chart_key`` lets numpy choose its order (pairwise sums,
BLAS dot products), so a score may differ in its last bits. A chart whose best two candidates lie
within ``TIE`` of each other (equal scores, e.g. a chart of one chord, are the case) is read
again by ``chart_key`` itself, so the key found is ``chart_key``'s for every chart
(``tests/test_corpus_search.py`` checks it over the shared corpora).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from numba import njit

from engine.analysis.keyfind import (
    CUES,
    MAX_ARRIVAL,
    PHRASE,
    TONIC_NAMES,
    WEIGHTS,
    ChartChord,
    _facts,
    _is_diminished,
    chart_key,
    scale_weights,
)
from engine.chords import Chord, parse_spelled

MODES = ("major", "minor")
# the cues the kernel computes, by index: ``keyfind.CUES`` must list the same, in this order
KERNEL_CUES = ("fit", "fit_triads", "tonic_time", "first", "first_dominant", "blues", "minor",
               "end_downbeat", "cadences", "first_arrival", "final", "cadence_share",
               "phrase_ends")
if tuple(CUES) != KERNEL_CUES:
    raise RuntimeError("keyfind.CUES changed: teach keyfind_batch._chart_keys the same cues")
TIE = 1e-9          # best two candidates closer than this (relative): chart_key decides


class ChordFacts:
    """What the kernel reads of each chord of a list that only grows (a corpus's distinct
    chords, read piece by piece): root, bass (-1 none), flags (has 3, b3, b5, b7, dominant,
    diminished) and the pitch-class shares of its first four tones and of its triad, one row a
    chord; ``update`` reads only the chords added since."""

    def __init__(self) -> None:
        self.root = np.zeros(0, dtype=np.int64)
        self.bass = np.zeros(0, dtype=np.int64)
        self.flags = np.zeros((0, 6), dtype=np.bool_)
        self.shares4 = np.zeros((0, 12), dtype=np.float64)
        self.shares3 = np.zeros((0, 12), dtype=np.float64)

    def update(self, chords: Sequence[Chord]) -> ChordFacts:
        more = chords[len(self.root):]
        if more:
            facts = [_facts(c) for c in more]
            n = len(more)
            self.root = np.concatenate([self.root, np.array([f[0] for f in facts],
                                                            dtype=np.int64)])
            self.bass = np.concatenate([self.bass, np.array(
                [-1 if c.bass is None else c.bass.pc for c in more], dtype=np.int64)])
            self.flags = np.concatenate([self.flags, np.array(
                [[*f[1:6], _is_diminished(c)] for f, c in zip(facts, more, strict=True)],
                dtype=np.bool_).reshape(n, 6)])
            self.shares4 = np.concatenate([self.shares4, np.array(
                [f[6] for f in facts], dtype=np.float64).reshape(n, 12)])
            self.shares3 = np.concatenate([self.shares3, np.array(
                [f[7] for f in facts], dtype=np.float64).reshape(n, 12)])
        return self


def chart_key_names(chords: Sequence[Chord], ids: npt.NDArray[np.int64],
                    bars: npt.NDArray[np.int64], beats: npt.NDArray[np.float64],
                    offsets: npt.NDArray[np.int64], beats_per_bar: int = 4,
                    facts: ChordFacts | None = None) -> list[str | None]:
    """The name of each chart's key (``chart_key(...).name``; None for a chart without chords).

    ``chords``: the distinct chords; ``ids`` (n,): each chord of the charts, an index into
    ``chords``; ``bars`` (n,), ``beats`` (n,): its bar and beat; ``offsets`` (charts + 1,):
    chart ``c`` is ``ids[offsets[c]:offsets[c + 1]]``. ``facts``: the facts of ``chords``
    kept from a call before (``chords`` grown since, never changed), else read here."""
    facts = (ChordFacts() if facts is None else facts).update(chords)
    scale = np.stack([scale_weights(m) for m in MODES])
    best, spell, tied = _chart_keys(np.asarray(offsets, dtype=np.int64),
                                    np.asarray(ids, dtype=np.int64),
                                    np.asarray(bars, dtype=np.int64),
                                    np.asarray(beats, dtype=np.float64), facts.root,
                                    facts.bass, facts.flags, facts.shares4, facts.shares3,
                                    WEIGHTS.astype(np.float64), scale, beats_per_bar,
                                    MAX_ARRIVAL, PHRASE, TIE)
    names: list[str | None] = []
    for c in range(len(offsets) - 1):
        b = int(best[c])
        if b < 0:
            names.append(None)
            continue
        if tied[c]:
            a, z = int(offsets[c]), int(offsets[c + 1])
            names.append(chart_key([ChartChord(int(bars[i]), float(beats[i]), chords[ids[i]])
                                    for i in range(a, z)], beats_per_bar).name)
            continue
        mode = MODES[b // 12]
        code = int(spell[c])
        if code >= 0:
            chord = chords[ids[code >> 1]]
            tonic = chord.bass if code & 1 else chord.root
            assert tonic is not None
        else:
            tonic = parse_spelled(TONIC_NAMES[mode][b % 12])
        names.append(tonic.name + ("m" if mode == "minor" else ""))
    return names


@njit(cache=True)
def _chart_keys(offsets: npt.NDArray[np.int64], ids: npt.NDArray[np.int64],
                bars: npt.NDArray[np.int64], beats: npt.NDArray[np.float64],
                root: npt.NDArray[np.int64], bass: npt.NDArray[np.int64],
                flags: npt.NDArray[np.bool_], shares4: npt.NDArray[np.float64],
                shares3: npt.NDArray[np.float64], weights: npt.NDArray[np.float64],
                scale: npt.NDArray[np.float64], bpb: int, max_arrival: float, phrase: int,
                tie: float) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                           npt.NDArray[np.bool_]]:  # pragma: no cover (jitted)
    """Per chart: the best candidate (mode * 12 + tonic; -1 without chords), the chord that
    spells its tonic (2 * index + 1 for its bass, 2 * index for its root; -1 none) and whether
    the best two candidates tie within ``tie``. ``flags`` columns: has 3, b3, b5, b7,
    dominant, diminished. Cue order as ``keyfind.CUES``."""
    charts = offsets.shape[0] - 1
    best = np.full(charts, -1, dtype=np.int64)
    spell = np.full(charts, -1, dtype=np.int64)
    tied = np.zeros(charts, dtype=np.bool_)
    longest = 0
    for c in range(charts):
        longest = max(longest, offsets[c + 1] - offsets[c])
    lengths = np.empty(longest)
    roots = np.empty(longest, dtype=np.int64)
    arrive = np.zeros(longest, dtype=np.bool_)
    following = np.zeros(longest, dtype=np.int64)
    ii = np.zeros(longest, dtype=np.bool_)
    sounding = np.zeros(12, dtype=np.bool_)
    cues = np.zeros((2, 12, weights.shape[0]))
    held4 = np.zeros(12)
    held3 = np.zeros(12)
    scores = np.zeros(24)
    for c in range(charts):
        a = offsets[c]
        n = offsets[c + 1] - a
        if n == 0:
            continue
        for i in range(n):
            roots[i] = root[ids[a + i]]
            if i < n - 1:
                length = (bars[a + i + 1] - bars[a + i]) * bpb + beats[a + i + 1] - beats[a + i]
            else:
                length = bpb - beats[a + i] + 1
            lengths[i] = max(length, 0.5) / bpb
        total = 0.0
        for i in range(n):
            total += lengths[i]
        held4[:] = 0.0
        held3[:] = 0.0
        for i in range(n):
            k = ids[a + i]
            for p in range(12):
                held4[p] += lengths[i] * shares4[k, p]
                held3[p] += lengths[i] * shares3[k, p]
        for p in range(12):
            held4[p] /= total
            held3[p] /= total
        last_bar = bars[a + n - 1]
        first_k = ids[a]
        # the final tonic: the last chord not leading back to the top
        final = -1
        for i in range(n - 1, -1, -1):
            k = ids[a + i]
            if flags[k, 4] or flags[k, 5]:
                continue
            if flags[k, 1] and (roots[(i + 1) % n] - roots[i]) % 12 == 5:
                continue
            final = i
            break
        # arrivals: a dominant falling a fifth into a chord that is not one
        arrive[0] = False
        first = -1
        for i in range(1, n):
            k0 = ids[a + i - 1]
            k1 = ids[a + i]
            arrive[i] = flags[k0, 4] and (roots[i - 1] - roots[i]) % 12 == 7 and not flags[k1, 4]
            if arrive[i] and first < 0 and i - 1 < 8 and bars[a + i] <= 4:
                first = i
        # the ii of a ii-V: a minor chord whose next different chord (the last's: the first)
        # is the dominant a fourth above, its target sounding in the chart
        following[n - 1] = 0
        for i in range(n - 2, -1, -1):
            following[i] = i + 1 if ids[a + i + 1] != ids[a + i] else following[i + 1]
        sounding[:] = False
        for i in range(n):
            if not flags[ids[a + i], 4]:
                sounding[roots[i]] = True
        for i in range(n):
            f = following[i]
            ii[i] = flags[ids[a + i], 1] and flags[ids[a + f], 4] and \
                (roots[f] - roots[i]) % 12 == 5 and sounding[(roots[i] + 10) % 12]
        ends = 0
        for i in range(n):
            if beats[a + i] == 1 and (bars[a + i] - 1) % phrase >= phrase - 2:
                ends += 1
        # the first chord of bars 1, 5 and 7 (the blues's landmarks)
        bar1 = -1
        bar5 = -1
        bar7 = -1
        for i in range(n):
            b = bars[a + i]
            if b == 1 and bar1 < 0:
                bar1 = roots[i]
            elif b == 5 and bar5 < 0:
                bar5 = roots[i]
            elif b == 7 and bar7 < 0:
                bar7 = roots[i]
        cues[:, :, :] = 0.0
        for m in range(2):
            w = scale[m]
            for t in range(12):
                f4 = 0.0
                f3 = 0.0
                for s in range(12):
                    f4 += held4[(t + s) % 12] * w[s]
                    f3 += held3[(t + s) % 12] * w[s]
                cues[m, t, 0] = f4
                cues[m, t, 1] = f3
            for i in range(n):
                k = ids[a + i]
                like = (flags[k, 1] and not flags[k, 2] and not ii[i]) if m == 1 else \
                    (flags[k, 0] and not flags[k, 3])
                if not like:
                    continue
                cues[m, roots[i], 2] += lengths[i] / total
                if bars[a + i] >= last_bar - 1 and beats[a + i] == 1:
                    cues[m, roots[i], 7] = 1.0
                if arrive[i]:
                    cues[m, roots[i], 8] += min(lengths[i], max_arrival)
                if i == 0:
                    cues[m, roots[0], 3] = 1.0
                if i == first:
                    cues[m, roots[i], 9] = 1.0
                if i == final:
                    cues[m, roots[i], 10] = 1.0
                if beats[a + i] == 1 and (bars[a + i] - 1) % phrase >= phrase - 2:
                    cues[m, roots[i], 12] += 1.0 / ends
            if flags[first_k, 4]:
                cues[m, roots[0], 4] = 1.0
            if m == 0 and last_bar >= 12 and flags[first_k, 4] and bar1 >= 0 and bar5 >= 0 \
                    and bar7 >= 0 and bar5 == (bar1 + 5) % 12 and bar7 == bar1:
                cues[m, bar1, 5] = 1.0
            if m == 1:
                cues[m, :, 6] = 1.0
            arrivals = 0.0
            for t in range(12):
                arrivals += cues[m, t, 8]
            if arrivals != 0.0:
                for t in range(12):
                    cues[m, t, 11] = cues[m, t, 8] / arrivals
        for j in range(24):
            score = 0.0
            for q in range(weights.shape[0]):
                score += cues[j // 12, j % 12, q] * weights[q]
            scores[j] = score
        top = 0
        for j in range(1, 24):
            if scores[j] > scores[top]:
                top = j
        high = scores[top]
        second = -np.inf
        for j in range(24):
            if j != top and scores[j] > second:
                second = scores[j]
        best[c] = top
        tied[c] = high - second <= tie * max(1.0, abs(high))
        tonic = top % 12
        for i in range(n - 1, -1, -1):
            k = ids[a + i]
            if root[k] == tonic:
                spell[c] = 2 * (a + i)
                break
            if bass[k] == tonic:
                spell[c] = 2 * (a + i) + 1
                break
    return best, spell, tied
