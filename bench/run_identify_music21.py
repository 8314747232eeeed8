"""identify on public MusicXML files: the uncompressed Bach chorales (and other ``.xml`` scores)
shipped in the music21 corpus (the music21 package, BSD licence; the chorales themselves are in
the public domain), read by their notes into an analysed chord chart: how many read, the time
a file against music21's own ``converter.parse``, and one chorale's lead sheet to look at.
Needs the bench extras (make bench installs music21).

    .venv/bin/python bench/run_identify_music21.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import identify
from engine.errors import HarmonyError
from engine.identify import music_request


def main() -> None:
    try:
        import music21
        from music21 import converter
    except ImportError:
        print("music21 is not installed (make bench installs it): nothing measured")
        return
    corpus = Path(music21.__file__).parent / "corpus"
    files = sorted([*(corpus / "bach").glob("*.xml"), *(corpus / "bach").glob("*.mxl")])[:60]
    read, failed, ours, theirs = 0, [], 0.0, 0.0
    for path in files:
        started = time.perf_counter()
        try:   # a compressed .mxl unpacked by the engine, as harmony analyze-file does
            answer = identify(music_request(path.read_bytes(), path.name))
            read += 1
        except HarmonyError as exc:
            failed.append(f"{path.name}: {exc.message[:80]}")
            continue
        finally:
            ours += time.perf_counter() - started
        started = time.perf_counter()
        converter.parse(str(path))
        theirs += time.perf_counter() - started
        if read == 1:
            example, example_name = answer, path.name
    print(f"music21 corpus, the first {len(files)} Bach chorales (MusicXML, .xml and .mxl): {read} / {len(files)} read; identify "
          f"{1000 * ours / max(read, 1):.1f} ms a file (chart and analysis), music21's "
          f"converter.parse alone {1000 * theirs / max(read, 1):.1f} ms")
    for line in failed[:5]:
        print("  ", line)
    if read:
        print(f"{example_name}: key {example['analysis']['key']} (bar by bar: a chorale changes "
              "chord every beat, finer than the one or two chords a bar read here)")
        print(example["leadSheet"])


if __name__ == "__main__":
    main()
