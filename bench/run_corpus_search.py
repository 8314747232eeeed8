"""Corpus search figures over a synthetic 100k-song corpus built from the shared corpora (each
song transposed and its sections recombined with another song's), all in one command:

- the index build (chords/s, in memory; bytes per chord on disk), and a million-song index
  written to a folder from a generator of songs (``write_index``) in a process of its own:
  its time and peak RSS;
- query latency (median of 5) for ordinary queries and for hostile ones (255-chord patterns,
  the most common chords, long ``similarTo``), and the worst of them;
- the memory of a worker process that maps the index, before and after 10,000 mixed queries
  (RSS, and its anonymous part: mapped index pages are file pages shared between workers).

Run: .venv/bin/python bench/run_corpus_search.py   (skips when ../shared/corpora is absent);
``--build``: the two index builds only (~2 minutes on a quiet machine).
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shared import timed  # noqa: E402
from engine.chords import Chord  # noqa: E402
from engine.corpus import (  # noqa: E402
    build_index,
    load_paths,
    open_index,
    save_index,
    search,
    write_index,
)
from engine.corpus.songs import Chords, Song  # noqa: E402
from engine.errors import HarmonyError  # noqa: E402

CORPORA = Path(os.environ.get("HARMONY_CORPORA", REPO.parent / "shared" / "corpora"))
NAMES = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
SONGS = 100_000
MILLION = 1_000_000
MIXED = 10_000
BLUES = "F7 Bb7 F7 F7 Bb7 Bb7 F7 D7 Gm7 C7 F7 D7 Gm7 C7"


class Transposer:
    """Songs moved to other keys, their chords as numbers in the table of the songs they come
    from: each distinct chord is transposed once a key (a symbol spelled from the new root, the
    quality and the bass), and a section's numbers are mapped by one array gather."""

    def __init__(self) -> None:
        self.maps: dict[tuple[int, int], tuple[Chords, npt.NDArray[np.float64]]] = {}

    def numbers(self, table: Chords, numbers: npt.NDArray[np.float64],
                k: int) -> npt.NDArray[np.float64]:
        _, moved = self.maps.get((id(table), k), (table, np.zeros(0)))
        if len(moved) < len(table):     # chords numbered since: theirs too
            more = [table.number(symbol(c, k)) for c in table.chords[len(moved):]]
            moved = np.concatenate([moved, np.array(more, dtype=np.float64)])
            self.maps[id(table), k] = (table, moved)
        return moved[numbers.astype(np.int64)]

    def __call__(self, song: Song, k: int, n: int) -> Song:
        sections = tuple(replace(s, columns=np.stack([self.numbers(s.table, s.columns[0], k),
                                                      s.columns[1], s.columns[2]]))
                         for s in song.sections)
        return replace(song, id=f"{song.id}~{n}", sections=sections, key=None)


def symbol(c: Chord, k: int) -> str:
    """The symbol of ``c`` moved up ``k`` semitones (each root named as ``NAMES`` names it)."""
    bass = "" if c.bass is None else "/" + NAMES[(c.bass.pc + k) % 12]
    return NAMES[(c.root_pc + k) % 12] + c.quality + bass


transposed = Transposer()


def synthetic(base: list[Song], rng: random.Random) -> list[Song]:
    out = []
    for n in range(SONGS):
        a, b = rng.choice(base), rng.choice(base)
        song = transposed(a, rng.randrange(12), n)
        mixed = song.sections + transposed(b, rng.randrange(12), n).sections[:1]
        out.append(replace(song, sections=mixed, title=f"{a.title} / {b.title}"))
    return out


def base_songs() -> list[Song]:
    songs, _ = load_paths([CORPORA / "jazz-ccp" / "songs",
                           CORPORA / "jazzstandards-ireal" / "JazzStandards.json"])
    return songs


def status(field: str) -> int:
    """A figure of /proc/self/status, in kB."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


# ------------------------------------------------------------------ a million songs


def million() -> None:
    """In its own process: a million songs, generated as they are read (1,000 charts in their
    12 keys, each song one of them followed by another's first section, read without a key),
    written to an index folder; prints chords, seconds, CPU seconds, RSS before, peak RSS,
    bytes on disk, and the CPU seconds of generating the songs alone (no index)."""
    rng = random.Random(2)
    base = rng.sample(base_songs(), 1000)
    keys = [transposed(s, k, 0) for s in base for k in range(12)]
    ready = status("VmRSS")
    state = rng.getstate()      # the same songs for both passes

    def songs() -> Iterator[Song]:
        rng = random.Random()
        rng.setstate(state)
        for n in range(MILLION):
            a, b = keys[rng.randrange(len(keys))], keys[rng.randrange(len(keys))]
            yield Song(f"{a.id}~{n}", f"{a.title} / {b.title}", a.composer, a.key, a.source,
                       a.sections + b.sections[:1], a.note)

    used = time.process_time()
    for _ in songs():
        pass
    generating = time.process_time() - used
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as folder:
        started, used = time.perf_counter(), time.process_time()
        written = write_index(songs(), Path(folder))
        seconds = time.perf_counter() - started
        cpu = time.process_time() - used
        size = sum(f.stat().st_size for f in Path(folder).iterdir())
    print(written["songs"], written["chords"], seconds, cpu, ready, status("VmHWM"), size,
          generating)


# ------------------------------------------------------------------ a worker's memory


def mixed_queries(base: list[Song], rng: random.Random) -> list[dict[str, object]]:
    """What users send: runs of 2-5 chords of real charts (a '?' now and then, exact now and
    then), numerals, titles, keys, similarTo; one in a hundred hostile."""
    hostile: list[dict[str, object]] = [
        {"pattern": " ".join(["? C7 ? G7 ?"] * 51)}, {"pattern": "C7 " + " ".join(["?"] * 255)},
        {"pattern": "G7"}, {"similarTo": " ".join(["Dm7 G7 Cmaj7 A7"] * 64)}]
    out: list[dict[str, object]] = []
    for i in range(MIXED):
        pick = rng.random()
        if i % 100 == 99:
            out.append(hostile[(i // 100) % len(hostile)])
        elif pick < 0.6:
            song = rng.choice(base)
            section = rng.choice(song.sections)
            n = rng.randint(2, min(5, len(section.chords))) if len(section.chords) > 1 else 1
            at = rng.randint(0, len(section.chords) - n)
            words = [c.chord.symbol for c in section.chords[at:at + n]]
            if n > 2 and rng.random() < 0.3:
                words[rng.randint(1, n - 2)] = "?"
            out.append({"pattern": " ".join(words), "exact": rng.random() < 0.3,
                        "offset": rng.choice((0, 0, 10, 50))})
        elif pick < 0.7:
            out.append({"pattern": rng.choice(("ii7 V7 Imaj7", "iv7 bVII7 Imaj7", "I vi ii V",
                                               "iiø7 V7 i")), "key": rng.choice((None, "F"))})
        elif pick < 0.9:
            out.append({"title": rng.choice(base).title.split()[0]})
        else:
            song = rng.choice(base)
            out.append({"similarTo": " ".join(c.chord.symbol for c in
                                              song.sections[0].chords[:16])})
    return [{k: v for k, v in q.items() if v is not None} for q in out]


def worker(folder: str) -> None:
    """In its own process, as a worker: map the index, answer 10,000 mixed queries; prints
    VmRSS and RssAnon (kB) after the first 100 and after all, and the slowest query."""
    index = open_index(Path(folder))
    queries = mixed_queries(base_songs(), random.Random(3))
    figures = [status("VmRSS"), status("RssAnon")]
    slowest = 0.0
    for i, q in enumerate(queries):
        started = time.perf_counter()
        with contextlib.suppress(HarmonyError):
            search(q, index)
        slowest = max(slowest, time.perf_counter() - started)
        if i == 99:
            figures += [status("VmRSS"), status("RssAnon")]
    figures += [status("VmRSS"), status("RssAnon"), status("VmHWM")]
    print(*figures, slowest)


# ------------------------------------------------------------------ the figures


def run(*args: str) -> list[float]:
    done = subprocess.run([sys.executable, __file__, *args], cwd=REPO, capture_output=True,
                          text=True, check=True)
    return [float(x) for x in done.stdout.split()]


def main(build_only: bool = False) -> int:
    if not (CORPORA / "jazz-ccp").is_dir():
        print(f"run_corpus_search: corpora not found at {CORPORA}, skipped")
        return 0
    print(f"load: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} cores", flush=True)
    base = base_songs()
    songs = synthetic(base, random.Random(1))
    chords = sum(s.chords for s in songs)
    build_index(songs[:200])        # the kernels compiled or loaded from numba's cache
    times, cpu = [], []
    for _ in range(3):
        start, used = time.perf_counter(), time.process_time()
        index = build_index(songs)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - used)
    built, built_cpu = sorted(times)[1], sorted(cpu)[1]
    with tempfile.TemporaryDirectory() as folder:
        save_index(index, Path(folder))
        del index
        size = sum(f.stat().st_size for f in Path(folder).iterdir())
        print(f"index: {len(songs):,} songs, {chords:,} chords built in {built:.2f} s "
              f"({chords / built / 1e6:.2f} M chords/s, median of 3: "
              f"{', '.join(f'{t:.2f}' for t in times)} s); CPU {built_cpu:.2f} s "
              f"({chords / built_cpu / 1e6:.2f} M chords/s of CPU); {size / chords:.1f} bytes "
              "per chord on disk", flush=True)
        n, total, seconds, cpu, ready, peak, bytes_, generating = run("--million")[-8:]
        print(f"million-song index written from a generator: {n:,.0f} songs, {total:,.0f} "
              f"chords in {seconds:.1f} s ({total / seconds / 1e6:.2f} M chords/s; CPU "
              f"{cpu:.1f} s, {total / cpu / 1e6:.2f} M chords/s of CPU, of which generating "
              f"the songs {generating:.1f} s, measured alone); peak RSS {peak / 1024:.0f} MB "
              f"({ready / 1024:.0f} MB before the build: the 12,000 charts it draws from); "
              f"{bytes_ / 1e9:.2f} GB on disk", flush=True)
        if build_only:
            return 0
        mapped = open_index(Path(folder))
        common = Counter(p.chord.symbol for s in base[:500] for sec in s.sections
                         for p in sec.chords).most_common(1)[0][0]
        varied = " ".join(c.chord.symbol for s in base[:40] for sec in s.sections
                          for c in sec.chords)
        varied = " ".join(varied.split()[:256])
        queries = (
            ("selective pattern 'Bmaj7 D7 Gmaj7 Bb7 Ebmaj7'", {"pattern": "Bmaj7 D7 Gmaj7 Bb7 "
                                                                          "Ebmaj7"}),
            ("ii-V-I 'Dm7 G7 Cmaj7'", {"pattern": "Dm7 G7 Cmaj7"}),
            ("numerals 'iv7 bVII7 Imaj7' (keys found)", {"pattern": "iv7 bVII7 Imaj7"}),
            ("title 'blues'", {"title": "blues"}),
            ("similarTo a 12-bar blues", {"similarTo": BLUES}),
            ("hostile '? C7 ? G7 ?' x 51", {"pattern": " ".join(["? C7 ? G7 ?"] * 51)}),
            ("hostile 'C7' + 255 '?'", {"pattern": "C7 " + " ".join(["?"] * 255)}),
            ("hostile 255 '?' + 'C'", {"pattern": "? " * 255 + "C"}),
            (f"hostile most common chord '{common}'", {"pattern": common}),
            ("hostile 'C' (major, the commonest family)", {"pattern": "C"}),
            ("hostile 'Cmaj7', exact", {"pattern": "Cmaj7", "exact": True}),
            ("hostile '? C ?'", {"pattern": "? C ?"}),
            ("hostile 'C7 ? G7' (common chords apart)", {"pattern": "C7 ? G7"}),
            ("hostile 'C ? C ? C ? C ? C'", {"pattern": "C ? C ? C ? C ? C"}),
            ("hostile 'V7 ? I' (numerals)", {"pattern": "V7 ? I"}),
            ("hostile 'G7', offset 5,000, limit 100", {"pattern": "G7", "offset": 5000,
                                                       "limit": 100}),
            ("hostile 'G7 ?' x 128", {"pattern": " ".join(["G7 ?"] * 128)}),
            ("hostile 'Dm7 G7' x 128, exact", {"pattern": " ".join(["Dm7 G7"] * 128),
                                                "exact": True}),
            ("hostile similarTo 256 chords of 40 charts", {"similarTo": varied}),
            ("hostile similarTo 'Dm7 G7 Cmaj7 A7' x 64",
             {"similarTo": " ".join(["Dm7 G7 Cmaj7 A7"] * 64)}))
        worst = worst_cpu = 0.0
        for label, request in queries:
            try:
                outcome = f"{search(request, mapped)['total']:,} songs"
            except HarmonyError as e:
                outcome = f"refused: {e.message[:60]}"

            def once(request: dict[str, object] = request) -> None:
                with contextlib.suppress(HarmonyError):
                    search(request, mapped)

            t = timed(once)
            used = []
            for _ in range(5):
                before = time.process_time()
                once()
                used.append(time.process_time() - before)
            c = sorted(used)[2]
            if label.startswith("hostile"):
                worst = max(worst, t)
                worst_cpu = max(worst_cpu, c)
            print(f"query {label:<48} {t * 1000:8.2f} ms, CPU {c * 1000:7.2f} ms  ({outcome})",
                  flush=True)
        print(f"worst hostile query (median of 5): {worst * 1000:.1f} ms, CPU "
              f"{worst_cpu * 1000:.1f} ms", flush=True)
        rss = run("--worker", folder)
        print(f"a worker mapping the index, {MIXED:,} mixed queries: RSS {rss[0] / 1024:.0f} MB "
              f"at start, {rss[2] / 1024:.0f} MB after 100 queries, {rss[4] / 1024:.0f} MB "
              f"after {MIXED:,}; of it anonymous {rss[1] / 1024:.0f} -> {rss[3] / 1024:.0f} -> "
              f"{rss[5] / 1024:.0f} MB (the rest: mapped index and library pages, shared); "
              f"peak {rss[6] / 1024:.0f} MB; slowest query {rss[7] * 1000:.0f} ms", flush=True)
    print(f"this process's peak memory "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--million"]:
        million()
    elif sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2])
    else:
        sys.exit(main(build_only=sys.argv[1:2] == ["--build"]))
