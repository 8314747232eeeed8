"""Loudness of conduct's arrangements through both synthesisers (API.md 12): peak and RMS in
dBFS of each, and how far apart the lanes sit left and right. One fixed gain per engine, so a
soft ballad renders quieter than an intense funk, and no arrangement reaches ``PEAK``.

Run: .venv/bin/python bench/run_loudness.py   (the SoundFont rows need a system GM font)
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine import conduct  # noqa: E402
from engine.render import basic, find_soundfont  # noqa: E402
from engine.render.events import read_midi  # noqa: E402
from engine.render.soundfont import render_soundfont  # noqa: E402

PROMPTS = ("soft ballad in Eb", "sparse bossa nova in F", "medium swing blues in F",
           "intense funk in E", "intense gospel in Ab", "intense straight rock in G",
           "intense latin samba in C", "intense shuffle blues in A", "intense salsa in C",
           "intense second line in Bb", "intense hip hop in F minor")
RATE = 22050


def _db(x: float) -> float:
    return 20 * float(np.log10(max(x, 1e-9) / 32768))


def main() -> None:
    font = find_soundfont(env={})
    print(f"{'arrangement':32s} {'engine':9s} {'peak dBFS':>9s} {'RMS dBFS':>9s} {'L/R dB':>7s}")
    for prompt in PROMPTS:
        notes = read_midi(base64.b64decode(conduct({"prompt": prompt, "durationSec": 30})["midi"]))
        engines = [("basic", lambda n=notes: basic.render_basic(n, RATE, 2))]
        if font is not None:
            engines.append(("soundfont", lambda n=notes: render_soundfont(n, font, RATE, 2)))
        for name, run in engines:
            x = run().astype(np.float64)
            rms = np.sqrt((x ** 2).mean(axis=0))
            print(f"{prompt:32s} {name:9s} {_db(float(np.abs(x).max())):9.1f} "
                  f"{_db(float(np.sqrt((x ** 2).mean()))):9.1f} "
                  f"{20 * np.log10(rms[0] / rms[1]):7.1f}")


if __name__ == "__main__":
    main()
