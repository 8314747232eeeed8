"""The key of a whole chart (``engine.analysis.keyfind``) on the iReal standards whose key is
known (``../shared/corpora/jazzstandards-ireal``, 1,149 charts, 240 minor), no key given:
the share whose tonic and mode it finds, the minor ones apart, beside the conductor's former
finder's 37 % and music21's 58 % (measured in issue 36); two-fold cross-validation of the
cue weights (refitted on one half, scored on the other) and five-fold; the time a chart takes.

    .venv/bin/python bench/run_keyfind.py [path/to/JazzStandards.json]
    .venv/bin/python bench/run_keyfind.py --fit      (refit the weights, two- and five-fold)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from engine.analysis.keyfind import CUES, ChartChord, chart_cues, chart_key
from engine.chords import parse_key
from engine.corpus.loaders import load_paths
from engine.corpus.songs import Song

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "jazzstandards-ireal" \
    / "JazzStandards.json"


def chart(song: Song) -> list[ChartChord]:
    return [ChartChord(p.bar, p.beat, p.chord) for s in song.sections for p in s.chords]


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] != "--fit" else DEFAULT
    songs, _ = load_paths([path])
    keyed = [s for s in songs if s.key]
    right = minor = minor_right = 0
    wrong: list[str] = []
    started = time.perf_counter()
    for song in keyed:
        truth = parse_key(song.key or "")
        found = chart_key(chart(song))
        ok = found.tonic.pc == truth.tonic.pc and found.mode == truth.mode
        right += ok
        if truth.mode == "minor":
            minor += 1
            minor_right += ok
        if not ok:
            wrong.append(f"{song.title}: {song.key} read as {found.name}")
    elapsed = time.perf_counter() - started
    print(f"charts with a key: {len(keyed)}; tonic and mode found: {right} "
          f"({100 * right / len(keyed):.1f} %); minor: {minor_right} of {minor} "
          f"({100 * minor_right / minor:.1f} %)")
    print(f"time: {1000 * elapsed / len(keyed):.3f} ms a chart, {elapsed:.2f} s for all")
    print("missed:", *wrong[:200], sep="\n  ")


if __name__ == "__main__" and "--fit" not in sys.argv:
    main()


def fit(cues: np.ndarray, truth: np.ndarray, steps: int = 3000, l2: float = 1e-3
        ) -> np.ndarray:
    """Softmax regression over the candidates: weights for standardised cues."""
    w = np.zeros(cues.shape[2])
    for _ in range(steps):
        s = cues @ w
        s -= s.max(1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(1, keepdims=True)
        p[np.arange(len(truth)), truth] -= 1
        w -= 0.5 * ((p[:, :, None] * cues).sum((0, 1)) / len(truth) + l2 * w)
    return w


def cross_validate(songs: list[Song]) -> None:
    """The weights refitted on one half of the charts and scored on the other, both ways, then
    on all (the figure to compare with ``CUES``)."""

    cues = np.stack([chart_cues(chart(s)).reshape(24, -1) for s in songs])
    truth = np.array([parse_key(s.key or "").tonic.pc + 12 * (parse_key(s.key or "").mode
                                                              == "minor") for s in songs])
    flat = cues.reshape(-1, cues.shape[2])
    mu, sd = flat.mean(0), flat.std(0) + 1e-9
    z = (cues - mu) / sd
    order = np.random.default_rng(0).permutation(len(truth))
    a, b = order[: len(order) // 2], order[len(order) // 2:]
    for train, test in ((a, b), (b, a)):
        w = fit(z[train], truth[train])
        print(f"held-out half: {100 * ((z[test] @ w).argmax(1) == truth[test]).mean():.1f} %")
    right = 0
    for test in np.array_split(order, 5):
        train = np.setdiff1d(order, test)
        right += int(((z[test] @ fit(z[train], truth[train])).argmax(1) == truth[test]).sum())
    print(f"five-fold, held out: {right} of {len(truth)} ({100 * right / len(truth):.1f} %)")
    w = fit(z, truth)
    print(f"refitted on all: {100 * ((z @ w).argmax(1) == truth).mean():.1f} %; weights",
          dict(zip(CUES, (w / sd).round(3).tolist(), strict=True)))


if __name__ == "__main__" and "--fit" in sys.argv:
    cross_validate([s for s in load_paths([DEFAULT])[0] if s.key])
