"""Corpus search figures over a synthetic 100k-song corpus built from the shared corpora (each
song transposed and its sections recombined with another song's): index build (chords/s, bytes
per chord on disk), pattern query latency for a selective and for the most common pattern,
``similarTo`` latency, and the memory of a process that maps the index and queries it.

Run: .venv/bin/python bench/run_corpus_search.py   (skips when ../shared/corpora is absent)
"""

from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shared import timed  # noqa: E402
from engine.chords import parse  # noqa: E402
from engine.corpus import build_index, load_paths, open_index, save_index, search  # noqa: E402
from engine.corpus.songs import Placed, Section, Song  # noqa: E402
from engine.errors import HarmonyError  # noqa: E402

CORPORA = Path(os.environ.get("HARMONY_CORPORA", REPO.parent / "shared" / "corpora"))
NAMES = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
SONGS = 100_000


def transposed(song: Song, k: int, n: int) -> Song:
    sections = []
    for section in song.sections:
        chords = []
        for p in section.chords:
            c = p.chord
            root = NAMES[(c.root_pc + k) % 12]
            bass = "" if c.bass is None else "/" + NAMES[(c.bass.pc + k) % 12]
            chords.append(Placed(p.bar, p.beat, parse(root + c.quality + bass)))
        sections.append(Section(section.name, tuple(chords)))
    return replace(song, id=f"{song.id}~{n}", sections=tuple(sections), key=None)


def synthetic(base: list[Song], rng: random.Random) -> list[Song]:
    out = []
    for n in range(SONGS):
        a, b = rng.choice(base), rng.choice(base)
        song = transposed(a, rng.randrange(12), n)
        mixed = song.sections + transposed(b, rng.randrange(12), n).sections[:1]
        out.append(replace(song, sections=mixed, title=f"{a.title} / {b.title}"))
    return out


def main() -> int:
    if not (CORPORA / "jazz-ccp").is_dir():
        print(f"run_corpus_search: corpora not found at {CORPORA}, skipped")
        return 0
    base, _ = load_paths([CORPORA / "jazz-ccp" / "songs",
                          CORPORA / "jazzstandards-ireal" / "JazzStandards.json"])
    songs = synthetic(base, random.Random(1))
    chords = sum(s.chords for s in songs)
    start = time.perf_counter()
    index = build_index(songs)
    built = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        save_index(index, Path(folder))
        size = sum(f.stat().st_size for f in Path(folder).iterdir())
        print(f"index: {len(songs):,} songs, {chords:,} chords built in {built:.2f} s "
              f"({chords / built / 1e6:.2f} M chords/s, tokens + suffix array + side arrays); "
              f"{size / chords:.1f} bytes per chord on disk", flush=True)
        mapped = open_index(Path(folder))
        common = Counter(p.chord.symbol for s in base[:500] for sec in s.sections
                         for p in sec.chords).most_common(1)[0][0]
        for label, request in (
                ("selective pattern 'Bmaj7 D7 Gmaj7 Bb7 Ebmaj7'",
                 {"pattern": "Bmaj7 D7 Gmaj7 Bb7 Ebmaj7"}),
                ("ii-V-I 'Dm7 G7 Cmaj7'", {"pattern": "Dm7 G7 Cmaj7"}),
                (f"most common chord '{common}'", {"pattern": common}),
                ("numerals 'iv7 bVII7 Imaj7' (keys found)", {"pattern": "iv7 bVII7 Imaj7"}),
                ("title 'blues'", {"title": "blues"}),
                ("similarTo a 12-bar blues", {"similarTo": "F7 Bb7 F7 F7 Bb7 Bb7 F7 D7 Gm7 C7 "
                                                           "F7 D7 Gm7 C7"})):
            answer = search(request, mapped)
            t = timed(lambda request=request: search(request, mapped))
            print(f"query {label:<48} {t * 1000:8.2f} ms  ({answer['total']:,} songs)",
                  flush=True)
        for label, pattern in (("hostile '? C7 ? G7 ?' x 51", " ".join(["? C7 ? G7 ?"] * 51)),
                               ("hostile 'C7' + 255 '?'", "C7 " + " ".join(["?"] * 255))):
            started = time.perf_counter()
            try:
                outcome = f"{search({'pattern': pattern}, mapped)['total']:,} songs"
            except HarmonyError as e:
                outcome = f"refused: {e.message[:70]}"
            print(f"query {label:<48} {(time.perf_counter() - started) * 1000:8.2f} ms  "
                  f"({outcome})", flush=True)
        probe = ("import resource, sys; from pathlib import Path; "
                 "from engine.corpus import open_index, search; "
                 "i = open_index(Path(sys.argv[1])); "
                 "search({'pattern': 'Dm7 G7 Cmaj7'}, i); "
                 "print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')))")
        done = subprocess.run([sys.executable, "-c", probe, folder], cwd=REPO,
                              capture_output=True, text=True, check=True)
        print(f"memory of a worker that maps the index and queries it: "
              f"{int(done.stdout.split()[-1]) / 1024:.0f} MB peak RSS (VmHWM; mapped pages are shared between workers)")
    print(f"this process's peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
