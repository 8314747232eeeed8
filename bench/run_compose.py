"""Composition figures: per-operation latency on a 32-bar, 4-track composition (aims: chord
operations <= 1 ms, arrange/voice <= 10 ms), export time per format (MusicXML lead sheet aim
<= 1 ms), the request size of a full arrangement; and, with music21 installed (the bench
extras), the MusicXML export read back by music21 with its chord symbols compared.

Run: .venv/bin/python bench/run_compose.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.compose import OPERATIONS, apply  # noqa: E402
from engine.compose.operation import EXPORTERS  # noqa: E402

TUNE = ("A: Gm7 C7 | Fmaj7 | Am7b5 D7 | Gm7 | Bbmaj7 | Bbm6 Eb7 | Am7 D7 | Gm7 C7 || "
        "B: Cm7 | F7 | Bbmaj7 | Bbm6 | Am7 | D7 | Gm7 | C7")
BASE = [{"op": "create", "title": "Bench", "key": "F", "tempo": 160, "progression": TUNE,
         "form": ["A", "A", "B", "A"]},
        {"op": "voice"}, {"op": "arrange", "style": "swing"},
        {"op": "add_notes", "section": "A", "notes": [
            {"bar": b, "beat": 1, "duration": 2, "pitch": 67 + b % 5} for b in range(1, 9)]}]
STEPS: dict[str, dict[str, Any]] = {
    "add_section": {"op": "add_section", "id": "C", "progression": "Dm7 | G7 | Cmaj7 | C7"},
    "set_chords": {"op": "set_chords", "section": "B", "progression": "Cm7 | F7 | Bbmaj7 | Eb7"},
    "set_form": {"op": "set_form", "form": ["A", "B", "A", "B"], "tempo": 140},
    "reharmonize": {"op": "reharmonize", "section": "A", "technique": "tritone_sub"},
    "transpose": {"op": "transpose", "key": "Bb"},
    "add_notes": {"op": "add_notes", "section": "B", "notes": [[0, 480, 70, 90]]},
    "voice": {"op": "voice", "style": "drop2"},
    "arrange": {"op": "arrange", "style": "bossa_nova"},
}


def median_ms(fn: Any, repeat: int = 30) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    comp, _ = apply(None, BASE)
    events = sum(len(r) for t in comp["tracks"] for r in t["events"].values())
    print(f"composition: 32 bars, {len(comp['tracks'])} tracks, {events} events, "
          f"{len(orjson.dumps(comp)) / 1024:.1f} KiB as JSON (the request size of a full "
          f"arrangement)")
    print(f"create {median_ms(lambda: apply(None, BASE[:1])):.3f} ms")
    for name, step in STEPS.items():
        apply(comp, [step])  # warm (numba, caches)
        # apply() copies the composition; the copy is part of every request's cost
        print(f"{name:<12} {median_ms(lambda step=step: apply(comp, [step])):8.3f} ms "
              f"(including the copy of the composition)")
    copy_only = median_ms(lambda: apply(comp, [{"op": "set_form", "form": comp["form"]}]))
    print(f"{'(a no-op)':<12} {copy_only:8.3f} ms: the copy and the check alone")
    for fmt, exporter in EXPORTERS.items():
        print(f"export {fmt:<10} {median_ms(lambda exporter=exporter: exporter(comp)):8.3f} ms")
    assert set(OPERATIONS) >= set(STEPS)
    try:
        import music21
    except ImportError:
        print("music21 not installed (make bench installs it): MusicXML read-back skipped")
        return 0
    xml = EXPORTERS["musicxml"](comp)
    score = music21.converter.parseData(xml, format="musicxml")
    theirs = [h.figure for h in score.recurse().getElementsByClass("ChordSymbol")]
    ours = [c["symbol"] for section in (next(s for s in comp["sections"] if s["id"] == f)
                                        for f in comp["form"])
            for c in sorted(section["chords"], key=lambda c: (c["bar"], c["beat"]))]
    print(f"music21 read {len(theirs)} chord symbols back ({len(ours)} written); first: "
          f"{theirs[:6]} for {ours[:6]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
