"""Parsed chords and keys carry their hash, computed once (they key the engine's caches); it
must agree with equality, and a chord or key that crossed a process boundary (the job pool,
Dask) must find the same cache entries and set members as one parsed here, though a string's
hash differs between processes."""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import subprocess
import sys

from engine.chords.keys import parse_key
from engine.chords.symbols import parse

SYMBOLS = ["Dm7b5", "C", "G7b9/Ab", "F#m11", "Bbmaj7#11", "E7sus4", "Abo7/Cb"]
KEYS = ["C", "F#m", "Bb", "Ebm"]


def test_equal_chords_and_keys_hash_alike() -> None:
    for symbol in SYMBOLS:
        chord = parse(symbol)
        rebuilt = dataclasses.replace(chord)  # a new object with the same fields
        assert rebuilt is not chord and rebuilt == chord and hash(rebuilt) == hash(chord)
        assert copy.deepcopy(chord) == chord and hash(copy.deepcopy(chord)) == hash(chord)
        other = dataclasses.replace(chord, symbol=symbol + " ")
        assert other != chord  # every field still counts in equality
    for text in KEYS:
        key = parse_key(text)
        assert dataclasses.replace(key) == key and hash(dataclasses.replace(key)) == hash(key)


def test_chords_and_keys_pickled_in_another_process_find_their_entries() -> None:
    # Pickled by a process with another string hash seed: were the cached hash pickled, the
    # chords would be equal to ours but miss every dict and set keyed by ours.
    code = ("import pickle, sys; from engine.chords.symbols import parse; "
            "from engine.chords.keys import parse_key; "
            f"sys.stdout.buffer.write(pickle.dumps(([parse(s) for s in {SYMBOLS!r}], "
            f"[parse_key(k) for k in {KEYS!r}])))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                         env=env).stdout
    chords, keys = pickle.loads(out)
    ours = {parse(s): s for s in SYMBOLS}
    assert [ours[c] for c in chords] == SYMBOLS
    assert {parse_key(k) for k in KEYS} == set(keys)
    assert all(hash(c) == hash(parse(s)) for c, s in zip(chords, SYMBOLS, strict=True))
