"""reharmonize in context over the 1,382 iReal standards (../shared/corpora), before and after:
alternatives that replace the ii of a ii-V, repeat the dominant already before them, replace an
arrival, or break a passing diminished chord; alternatives whose bars do not sum to the
input's bars; and the time of one reharmonize of a whole tune (median and the 32-bar tunes').

"Before" is the engine of a git revision (default ``main``), unpacked with ``git archive``
into a temporary folder; "after" is this working tree. Each is measured in its own process
through the public ``reharmonize`` and ``analyze`` only, so both read the same tunes the same
way: each tune's bars (sections joined, ``|`` between bars), in the corpus's key when it has
one, else the key analyze finds.

Run: python bench/run_reharm_context.py [--before REV] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import groupby
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# techniques that rewrite a whole ii-V by design (the ii goes with its V)
WHOLE_II_V = {"backdoor", "dominant_chain", "coltrane_changes"}
# techniques that change an arrived-at chord by design: a substitute of a dominant that is
# itself an arrival (D7 G7: Db7), and the related ii sharing an arriving dominant's bar
ARRIVAL_BY_DESIGN = WHOLE_II_V | {"tritone_sub", "related_ii"}


def tunes(limit: int | None) -> list[tuple[str, str | None, list[list[str]]]]:
    """(title, key or None, bars of symbols) of each iReal standard."""
    from bench.shared import CORPORA
    from engine.corpus.loaders import load_paths

    songs, _ = load_paths([CORPORA / "jazzstandards-ireal" / "JazzStandards.json"])
    out = []
    for song in songs[:limit]:
        bars = [[p.chord.symbol for p in group] for section in song.sections
                for _, group in groupby(section.chords, key=lambda p: p.bar)]
        out.append((song.title, song.key, bars))
    return out


def _chord_kind(symbol: str) -> tuple[int, str]:
    """(root pitch class, family) through analyze: dominant, minor, half-diminished,
    diminished or other."""
    from engine import analyze

    a = analyze({"chord": symbol, "key": "C"})
    semis = set(a["semitones"])
    if {4, 10} <= semis:
        family = "dominant"
    elif {3, 6, 9} <= semis:
        family = "diminished"
    elif {3, 6} <= semis and 9 not in semis:
        family = "half-diminished"  # m7b5, and the diminished triad of a ii°
    elif 3 in semis and 6 not in semis:
        family = "minor"
    else:
        family = "other"
    return a["pcs"][0], family


def measure(limit: int | None) -> dict[str, Any]:
    from engine import analyze, reharmonize

    kinds: dict[str, tuple[int, str]] = {}

    def kind(symbol: str) -> tuple[int, str]:
        if symbol not in kinds:
            kinds[symbol] = _chord_kind(symbol)
        return kinds[symbol]

    counts = {"tunes": 0, "skipped": 0, "alternatives": 0, "ii_replaced": 0,
              "ii_replaced_modal_interchange": 0, "ii_to_II7_secondary": 0,
              "repeats_dominant": 0, "arrival_replaced": 0, "passing_dim_broken": 0,
              "bars_missing": 0, "bars_wrong": 0}
    examples: dict[str, list[str]] = {}

    def count(name: str, title: str, technique: str, old: str, to: list[str]) -> None:
        counts[name] += 1
        examples.setdefault(name, [])
        if len(examples[name]) < 4:
            examples[name].append(f"{title}: {technique} {old} -> {' '.join(to)}")

    times: list[float] = []
    times_32: list[float] = []
    for title, song_key, bars in tunes(limit):
        symbols = [s for bar in bars for s in bar]
        if len(symbols) > 256 or any(len(bar) > 4 for bar in bars):
            counts["skipped"] += 1
            continue
        text = " | ".join(" ".join(bar) for bar in bars)
        chart = analyze({"progression": text, **({"key": song_key} if song_key else {})})
        key = chart["key"]
        # the ii of each ii-V and the target of each bracket, as input indexes (analyze's
        # chords are the input's, NC left out)
        played = [i for i, s in enumerate(symbols) if s not in ("NC", "N.C.", "N.C", "n.c.")]
        at = {(c["bar"], c["beat"]): played[n] for n, c in enumerate(chart["chords"])}
        iis: dict[int, int] = {}
        arrivals = set()
        for b in chart["brackets"]:
            n = played.index(at[(b["bar"], b["beat"])])
            if len(b["chords"]) == 2:
                iis[played[n]] = played[n + 1]
            if b["target"] is not None and b["arrives"] != "deceptive":
                arrivals.add(played[(n + len(b["chords"])) % len(played)])
        passing = {i for i in range(len(symbols) - 1) if i in played and i + 1 in played
                   and kind(symbols[i])[1] == "diminished"
                   and (kind(symbols[i + 1])[0] - kind(symbols[i])[0]) % 12 in (1, 11)}
        request = {"progression": text, "key": key}
        start_t = time.perf_counter()
        result = reharmonize(request)
        elapsed = time.perf_counter() - start_t
        times.append(elapsed)
        if len(bars) == 32:
            times_32.append(elapsed)
        counts["tunes"] += 1
        for alt in result["alternatives"]:
            counts["alternatives"] += 1
            technique = alt["technique"]
            by_index = {c["index"]: c["to"] for c in alt["changes"]}
            new = [s for i, old in enumerate(symbols) for s in by_index.get(i, [old])]
            position = 0
            for i, old in enumerate(symbols):
                to = by_index.get(i)
                if to is not None and to != [old]:
                    first = to[0]
                    if i in iis and technique not in WHOLE_II_V and first != old:
                        root, family = kind(old)[0], kind(first)
                        if family[0] != root or family[1] not in ("minor", "half-diminished"):
                            if technique == "secondary_dominants" and family[0] == root:
                                count("ii_to_II7_secondary", title, technique, old, to)
                            else:
                                count("ii_replaced", title, technique, old, to)
                                if technique == "modal_interchange":
                                    counts["ii_replaced_modal_interchange"] += 1
                    held = i > 0 and symbols[i - 1] == old and by_index.get(i - 1) == to
                    if first != old and position > 0 and kind(first)[1] == "dominant" \
                            and not held:  # a held chord changed alike in each bar is one
                        before = new[position - 1]
                        if kind(before)[1] == "dominant" and kind(before)[0] == kind(first)[0]:
                            count("repeats_dominant", title, technique, old, to)
                    if i in arrivals and technique not in ARRIVAL_BY_DESIGN \
                            and kind(first)[0] != kind(old)[0]:
                        count("arrival_replaced", title, technique, old, to)
                    if i in passing and (to[0] != old or len(to) > 1):
                        count("passing_dim_broken", title, technique, old, to)
                position += len(to) if to is not None else 1
            laid = alt.get("bars")
            if laid is None:
                counts["bars_missing"] += 1
            elif len(laid) != len(bars) or any(sum(c["beats"] for c in bar) != 4
                                               for bar in laid):
                counts["bars_wrong"] += 1
    return {**counts, "examples": examples, "ms_median": 1000 * statistics.median(times),
            "ms_32_bars_median": 1000 * statistics.median(times_32) if times_32 else None,
            "ms_max": 1000 * max(times)}


def run(root: Path, limit: int | None) -> dict[str, Any]:
    """``measure`` in a fresh process whose ``engine`` is the one under ``root``."""
    code = ("import sys, json; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]);"
            "from bench.run_reharm_context import measure;"
            "print(json.dumps(measure(None if sys.argv[3] == '-' else int(sys.argv[3]))))")
    out = subprocess.run([sys.executable, "-c", code, str(root), str(REPO),
                          "-" if limit is None else str(limit)],
                         check=True, capture_output=True, text=True, cwd=root)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="git revision measured as 'before'")
    parser.add_argument("--limit", type=int, default=None, help="only the first N tunes")
    parser.add_argument("--examples", action="store_true", help="print a few of each count")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from bench.shared import CORPORA

    if not (CORPORA / "jazzstandards-ireal" / "JazzStandards.json").is_file():
        print(f"corpus absent under {CORPORA}; nothing measured")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", args.before, "engine"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        before = run(Path(tmp), args.limit)
    after = run(REPO, args.limit)
    print(f"reharmonize over the iReal standards ({after['tunes']} tunes, {after['skipped']} "
          f"skipped: over 256 chords or 4 in a bar); before = {args.before}, after = this tree")
    print(f"{'':44}{'before':>10}{'after':>10}")
    for name in ("alternatives", "ii_replaced", "ii_replaced_modal_interchange",
                 "ii_to_II7_secondary", "repeats_dominant", "arrival_replaced",
                 "passing_dim_broken", "bars_missing", "bars_wrong", "ms_median",
                 "ms_32_bars_median", "ms_max"):
        b, a = before.get(name), after.get(name)
        fmt = (lambda v: "-" if v is None else f"{v:.3f}") if name.startswith("ms") \
            else (lambda v: "-" if v is None else str(v))
        print(f"{name:44}{fmt(b):>10}{fmt(a):>10}")
    if args.examples:
        for label, result in (("before", before), ("after", after)):
            for name, lines in result["examples"].items():
                print(f"{label} {name}:", *lines, sep="\n  ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
