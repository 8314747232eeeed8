"""identify's answers on 232,344 requests, as one hash (and optionally every answer as JSON
lines), to hold a change of identify's code to the answers it gave before:

    .venv/bin/python bench/compare_identify.py [OUT.jsonl]     (in each checkout; ~15 s)

prints the number of requests and the SHA-256 of their answers. The requests: every pitch-class
set with no bass and on each of its notes, as pitch classes, MIDI numbers and names flat and
sharp (a third of them in keys), and in keys as MIDI numbers and names; 40,000 random mixed
spellings (odd ones: B#, Fb, E#, F##, Ebb), foreign basses and keys, some asked again (kept
copies); 30,000 with doubled notes, digits as text, bools, floats, bad names and keys (their
errors are answers too). Grid 10's and grid 11's identify answer with the same hash
(8efc3748f590e0582a77135bd7a417121732f56aaebb505ddae7243b8e33ebd2); grid 12's changes of
speed kept it, then its 3-7-13 rule (G F B E is G13 before G7add13: 114 first readings and
1,594 later orders differ) made it 56e2105eae0628c7bfe6ae36d2bac8830dc0bb67f0ded2b7256ee43593c84a04,
and no rootless added-tone chord with a costlier minor add-b9 (18,769 answers differ from
grid 11's in all) 4294db69e38fd7c51d088c966544ccd1efe46408acd59addb8f571e30063f651, and with
the Lydian dominant's voicing and the minor flat ninth priced (40,259 differ from grid 11's)
c65d1aff4d6bcde227dcbd2b1ecea7322e6d3d24f74d4cd3cc10d06004dacea7; grid 13's sharp ninth on
the minor third's letter (4,329 first readings differ)
c98bd39c59fa18efb29dbb7ccdfdcac9d46848bc25f25698c9c308103181fe70, and with V13b9 promoted in a
key (2 more) 086ebfd44300bd11680a7c5242a549e9fd7b8ef3c3b3ea6bb3694264f282423c.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd()))   # the engine of the checkout it is run in

from engine import identify
from engine.errors import HarmonyError

FLAT = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
SHARP = ("C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B")
ODD = ("B#", "Db", "Ebb", "Eb", "Fb", "E#", "Gb", "F##", "G#", "Bbb", "A#", "Cb")
KEYS = ("C", "Am", "Eb", "F#", "Cb", "D#m", "Bbm", "G", "Fm", "E", "C#m", "Ab")
ODD_ITEMS = (True, False, 60.0, 61.5, "60", " e4", "E#", "Fb3", "x", 128, -1, [1], None, "C-1",
             "G9", "B#9", "Cbb", "c4", "H")


def every_set() -> Iterator[dict[str, Any]]:
    for mask in range(1, 4096):
        pcs = [p for p in range(12) if mask >> p & 1]
        key = KEYS[mask % len(KEYS)] if mask % 3 == 0 else None

        def keyed(request: dict[str, Any], key: str | None = key) -> dict[str, Any]:
            if key is not None:
                request["key"] = key
            return request

        yield keyed({"pcs": pcs})
        for b in pcs:
            rest = [p for p in pcs if p != b]
            yield keyed({"pcs": pcs, "bass": b})
            yield keyed({"notes": [48 + b] + [60 + p for p in rest]})
            yield keyed({"notes": [FLAT[b] + "3"] + [FLAT[p] + "4" for p in rest]})
            yield keyed({"notes": [SHARP[b] + "2"] + [SHARP[p] + "4" for p in rest]})
            yield {"notes": [48 + b] + [60 + p for p in rest],
                   "key": KEYS[(mask + b) % len(KEYS)]}
            yield {"notes": [FLAT[b] + "3"] + [FLAT[p] + "4" for p in rest],
                   "key": KEYS[(mask * 7 + b) % len(KEYS)]}


def mixed() -> Iterator[dict[str, Any]]:
    rng = random.Random(39)
    for _ in range(40000):
        notes: list[Any] = []
        for p in rng.sample(range(12), rng.randint(1, 7)):
            form = rng.random()
            if form < 0.25:
                notes.append(48 + p + 12 * rng.randint(0, 2))
            elif form < 0.5:
                notes.append(FLAT[p])
            elif form < 0.65:
                notes.append(SHARP[p] + str(rng.randint(2, 5)))
            elif form < 0.8:
                notes.append(ODD[p] + str(rng.randint(2, 5)))
            else:
                notes.append(rng.choice((FLAT, SHARP, ODD))[p])
        request: dict[str, Any] = {"notes": notes}
        x = rng.random()
        if x < 0.3:
            request["bass"] = rng.choice((FLAT, SHARP, ODD))[rng.randrange(12)]
        elif x < 0.45:
            request["bass"] = 36 + rng.randrange(12)
        elif x < 0.55:
            request["bass"] = rng.choice(SHARP) + "2"
        if rng.random() < 0.5:
            request["key"] = rng.choice(KEYS)
        yield request
        if rng.random() < 0.1:
            yield request   # asked again: a kept copy
            yield dict(request)


def odd() -> Iterator[dict[str, Any]]:
    rng = random.Random(7)
    for _ in range(30000):
        n = rng.randint(1, 8)
        notes: list[Any] = []
        for _ in range(n):
            p = rng.randrange(12)
            f = rng.random()
            if f < 0.3:
                notes.append(36 + p + 12 * rng.randint(0, 3))
            elif f < 0.55:
                notes.append(rng.choice((FLAT, SHARP, ODD))[p] + str(rng.randint(1, 6)))
            elif f < 0.75:
                notes.append(rng.choice((FLAT, SHARP, ODD))[p])
            elif f < 0.8:
                notes.append(rng.choice(ODD_ITEMS))
            else:
                notes.append(notes[-1] if notes else 60)
        if rng.random() < 0.3 and notes:
            notes.append(notes[0])   # doubled
        request: dict[str, Any] = {"notes": notes} if rng.random() < 0.9 else \
            {"pcs": [rng.randrange(13) for _ in range(n)]}
        x = rng.random()
        if x < 0.2:
            request["bass"] = rng.choice((FLAT, SHARP, ODD))[rng.randrange(12)] + \
                rng.choice(("", "2"))
        elif x < 0.3:
            request["bass"] = rng.choice((36, 40, 0, 11, 127, True, "60", 3.0))
        if rng.random() < 0.4:
            request["key"] = rng.choice((*KEYS, "Bb dorian", "", "H", "c minor"))
        if rng.random() < 0.03:
            request["keyContext"] = "C"
        yield request
        if rng.random() < 0.1:
            yield request


def main() -> None:
    digest = hashlib.sha256()
    out = open(sys.argv[1], "w") if len(sys.argv) > 1 else None   # noqa: SIM115
    count = 0
    for request in itertools.chain(every_set(), mixed(), odd()):
        try:
            answer: Any = identify(request)
        except HarmonyError as e:
            answer = {"error": str(e), "code": e.code,
                      "details": repr(getattr(e, "details", None))}
        line = json.dumps([request, answer], ensure_ascii=False)
        digest.update(line.encode())
        count += 1
        if out is not None:
            out.write(line + "\n")
    if out is not None:
        out.close()
    print(count, digest.hexdigest())


if __name__ == "__main__":
    main()
