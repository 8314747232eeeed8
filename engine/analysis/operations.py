"""analyze and resolve (API.md §3 and §4) over the rule grid and the scale catalogue.

``analyze_chord(chord, key)`` and ``role_of(chord, key)`` are the entry points for other
modules (reharmonize reads roles from here rather than re-deriving them).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from engine.analysis.grid import (
    GRID,
    GRID_ROWS,
    INTERPRETATIONS,
    PARALLEL_MODES,
    SCALE_MASK,
    SCALE_MASKS,
    TENSION_SOURCE,
    TENSION_SOURCES,
    Interpretation,
    accidental_of,
    class_of_labels,
    numeral_prefix,
    quality_class,
)
from engine.analysis.readings import heard_as
from engine.analysis.scales import chord_scales, kept_scales
from engine.chords import (
    Chord,
    Key,
    Spelled,
    frequency,
    midi_of,
    note_with_octave,
    read_chord,
    spell_interval,
    transpose_mask,
)
from engine.errors import InvalidRequest
from engine.requests import get_number, require_object

ANALYZE_FIELDS = ("chord", "progression", "key", "keyContext", "detail")
RESOLVE_FIELDS = ("chord", "octave", "tuning")
DEFAULT_OCTAVE = 4
DEFAULT_TUNING = 440.0
TUNING_RANGE = (200.0, 1000.0)   # A4 in Hz: wide enough for any historical or modern pitch

# Quality suffix -> numeral mark: the minor ``m`` goes (case shows the third), and the
# half-diminished, diminished and augmented forms take their signs. Longest prefix first.
_MARK_PREFIXES: tuple[tuple[str, str], ...] = (
    ("m7b5", "ø7"), ("dim7", "°7"), ("dim", "°"), ("aug7", "+7"), ("aug", "+"),
    ("maj7#5", "+maj7"), ("m(maj", "(maj"), ("mmaj", "maj"), ("maj", "maj"), ("madd", "add"),
    ("m", ""),
)


@lru_cache(maxsize=1024)
def numeral_mark(quality: str) -> str:
    """``m7`` -> ``7``, ``m7b5`` -> ``ø7``, ``dim7`` -> ``°7``, ``aug`` -> ``+``, ``7b9`` -> same."""
    for prefix, mark in _MARK_PREFIXES:
        if quality.startswith(prefix):
            return mark + quality[len(prefix):]
    return quality


class ChordRole(NamedTuple):
    """What a chord does in a key, for other modules (reharmonize)."""

    role: str                # diatonic secondary backdoor blues tritone borrowed variant passing chromatic
    numeral: str
    diatonic: bool           # every chord tone in the key's scale
    target_offset: int       # above the tonic: the chord a dominant or passing chord leads to,
    #                          a diatonic or borrowed chord's own root; -1 for chromatic
    function: str
    interpretation: Interpretation
    degree: int              # 1..7: the root's letter counted from the tonic's
    tension_source: int      # 1 + index into PARALLEL_MODES[mode] of the first parallel scale
    #                          holding every chord tone, 0 for none (``TENSION_SOURCE``)


# The texts below are shared with engine.analysis.batch, so that one chord analysed alone and the same
# chord inside a corpus read the same, by construction of the text and by test of the lookup.

def numeral_text(it: Interpretation, cls: int, degree: int, accidental: int,
                 quality: str) -> str:
    before, after = numeral_frame(it, cls, degree, accidental)
    return before + numeral_mark(quality) + after


def numeral_frame(it: Interpretation, cls: int, degree: int, accidental: int
                  ) -> tuple[str, str]:
    """A numeral's text before and after its quality's mark (``numeral_mark``): ``bVI`` and
    nothing, or a secondary dominant's ``V`` and ``/ii``."""
    if it.target is not None:
        return it.roman or "V", "/" + it.target
    return numeral_prefix(it, cls, degree, accidental), ""


@lru_cache(maxsize=4096)
def function_text(it: Interpretation, tonic_name: str, diatonic: bool, mode: str,
                  tension_source: int) -> str:
    """``function``: the role's function and qualifier. Tensions never move the role, so a
    diatonic-role chord may hold tones outside the key (G7b9 in C, ``diatonic`` false): its
    qualifier names where they come from, as ``source`` does ("dominant, with tensions from C
    harmonic minor"), or "with tensions outside the key" (G7#9 in C), never "diatonic"."""
    qualifier = it.qualifier
    if it.role == "diatonic" and not diatonic:
        qualifier = ("with tensions from " + PARALLEL_MODES[mode][tension_source - 1].scale
                     if tension_source else "with tensions outside the key")
    return f"{it.function}, {qualifier.format(tonic=tonic_name)}"


def source_text(it: Interpretation, diatonic: bool, mode: str, tension_source: int) -> str | None:
    """``source``: the grid's, or for a diatonic-role chord with outside tensions (G7b9 in C)
    the first parallel scale that holds all its tones (``TENSION_SOURCE``, 0 for none)."""
    if it.role != "diatonic" or diatonic:
        return it.source
    return PARALLEL_MODES[mode][tension_source - 1].source if tension_source else None


@lru_cache(maxsize=8192)
def role_of(chord: Chord, key: Key) -> ChordRole:
    """The chord's role in the key, read from the chord as heard (``heard_as``: ``F/G`` is
    G9sus4, a V)."""
    chord = heard_as(chord)
    return role_in_key(chord.root, chord.mask, chord.intervals, chord.quality, key)


def role_in_key(root: Spelled, mask: int, labels: tuple[str, ...], quality: str,
                key: Key) -> ChordRole:
    """``role_of`` for a chord as heard given by its parts: its root, its tones' set (a slash
    bass is not one), its interval labels and its canonical quality (identify reads its
    readings' roles so, without parsing their symbols)."""
    tonic = key.tonic
    degree = (root.letter - tonic.letter) % 7
    numeral, index, diatonic, tension = role_parts(
        key.mode_index, degree, (root.pc - tonic.pc) % 12, class_of_labels(labels),
        transpose_mask(mask, -tonic.pc), quality)
    it = INTERPRETATIONS[index]
    function = function_text(it, tonic.name, diatonic, key.mode, tension)
    return ChordRole(it.role, numeral, diatonic, it.target_offset, function, it, degree + 1,
                     tension)


def role_function(index: int, key: Key, diatonic: bool, tension_source: int) -> str:
    """``function``'s text in ``key`` of a role read by ``role_parts`` (``index`` its
    interpretation)."""
    return function_text(INTERPRETATIONS[index], key.tonic.name, diatonic, key.mode,
                         tension_source)


def role_parts(mode_index: int, degree: int, offset: int, cls: int, rel: int,
               quality: str) -> tuple[str, int, bool, int]:
    """What a chord's role in a key is made of, the same in every key of the mode: its
    numeral, its interpretation (an index into ``INTERPRETATIONS``), whether it is diatonic
    and its tension source, for a root ``degree`` letters (0..6) and ``offset`` semitones
    above the tonic, of quality class ``cls`` and canonical ``quality``, its tones ``rel``
    (a 12-bit set above the tonic). ``role_in_key`` adds the function's text, which names
    the tonic; identify reads its readings' roles from these parts (``engine.identify.roles``)."""
    index = GRID_ROWS[mode_index][offset][cls]
    return (numeral_text(INTERPRETATIONS[index], cls, degree, accidental_of(degree, offset),
                         quality),
            index, not rel & ~SCALE_MASKS[mode_index], TENSION_SOURCES[mode_index][rel])


def role_parts_table(classes: Sequence[int], masks: Sequence[int]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``role_parts`` but the numeral, for many qualities at once: for each mode, root 0..11
    semitones above the tonic and quality (its class in ``classes``, its tones in ``masks``, a
    12-bit set over its root), the interpretation's index, whether every tone is in the key's
    scale and the tension source, as arrays of shape (modes, 12, qualities). The numeral also
    reads the root's letters (``numeral_frame``, ``numeral_mark``)."""
    cls = np.asarray(classes, dtype=np.intp)
    mask = np.asarray(masks, dtype=np.int64)
    up = np.arange(12, dtype=np.int64)[:, None]
    rel = ((mask << up) | (mask >> (12 - up))) & 0xFFF        # (12, qualities) over the tonic
    outside = ~SCALE_MASK.astype(np.int64)[:, None, None]
    return GRID[:, :, cls], (rel[None] & outside) == 0, TENSION_SOURCE[:, rel]


def analyze_chord(chord: Chord, key: Key) -> dict[str, Any]:
    """The analyze result (API.md §3) for a parsed chord, fields in the contract's order: a
    fresh copy of the one ``_analysis`` built for the pair (the lists and the scale entries
    copied, so a caller may change its result). Copying measured 0.9 µs against 2.5 µs for
    building it again (issue 21: in-process ``analyze`` 3.2 -> 1.6 µs warm). The copy is
    lists, the kept one tuples (below). ``dict.copy`` then replacing the sequences (which keeps
    the fields' order) measured 0.62 µs against 0.98 µs for ``dict(t)`` and ``{**s, ...}``."""
    t = _analysis(chord, key)
    result = t.copy()
    result["intervals"] = [*t["intervals"]]
    result["semitones"] = [*t["semitones"]]
    result["notes"] = [*t["notes"]]
    result["pcs"] = [*t["pcs"]]
    scales = []
    for kept in t["scales"]:
        scale = kept.copy()
        scale["notes"] = [*kept["notes"]]
        scale["avoid"] = [*kept["avoid"]]
        scales.append(scale)
    result["scales"] = scales
    return result


def primary_scale(chord: Chord, key: Key) -> str:
    """The name of the chord's primary scale in ``key`` (analyze's ``scales[0]``), read from
    the kept analysis without copying it."""
    return str(_analysis(chord, key)["scales"][0]["name"])


@lru_cache(maxsize=8192)
def _analysis(chord: Chord, key: Key) -> dict[str, Any]:
    """The analyze result, built once per (chord, key) and never handed out (see
    ``analyze_chord``). Its sequences are tuples: a tuple of strings and numbers, and a scale
    entry holding only those, drop out of the garbage collector's sight after its first pass,
    so the collector does not examine them again in every later pass over a full cache. With
    lists, the caches behind 8,640 distinct requests held 16.5 tracked objects a request and
    a full collection took 15 ms; with tuples 6.2 and 4.2-4.8 ms (the result dict and its
    tuple of scale entries stay tracked: a tuple holding dicts always is). The scale entries
    are ``kept_scales``' own, shared by every key's analysis of the chord: 5.0 tracked objects
    a request (``tests/test_analyze_memory.py``); with ``source`` read from the role too, an
    analysis of a pair not seen before 13.6 -> 7.0-7.4 µs (``docs/request-path.md``)."""
    role = role_of(chord, key)
    return {
        "chord": chord.symbol,
        "key": key.name,
        "root": chord.root.name,
        "quality": chord.quality,
        "name": chord.name,
        "bass": chord.bass_name,
        "intervals": tuple(chord.intervals),
        "semitones": tuple(chord.semitones),
        "notes": tuple(chord.notes),
        "pcs": tuple(chord.pcs),
        "degree": role.degree,
        "numeral": role.numeral,
        "inversion": chord.inversion,
        "function": role.function,
        "diatonic": role.diatonic,
        "borrowed": role.interpretation.borrowed,
        "source": source_text(role.interpretation, role.diatonic, key.mode,
                              role.tension_source),
        "scales": _scales(chord, role.interpretation.scale),
    }


def _scales(chord: Chord, hint: str | None) -> tuple[dict[str, Any], ...]:
    """The chord-scales of the chord as heard (a slash-sus spelling's are its sus chord's on
    the bass); a slash bass that is not a chord tone orders them (``kept_scales``)."""
    heard = heard_as(chord)
    return kept_scales(heard, quality_class(heard), hint, True)


@lru_cache(maxsize=8192)
def _placed(chord: Chord, octave: int) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Names with octave and MIDI numbers: the bass (if any) first, then the chord from its
    root in ``octave``. Not range-checked."""
    root_midi = midi_of(chord.root, octave)
    notes: list[str] = []
    midi: list[int] = []
    if chord.bass is not None:
        # The nearest bass note strictly below the root.
        below = (chord.root.pc - chord.bass.pc) % 12 or 12
        midi.append(root_midi - below)
        notes.append(note_with_octave(chord.bass, root_midi - below))
    for label, s in zip(chord.intervals, chord.semitones, strict=True):
        midi.append(root_midi + s)
        notes.append(note_with_octave(spell_interval(chord.root, label, s), root_midi + s))
    return tuple(notes), tuple(midi)


@lru_cache(maxsize=8192)
def _frequencies(midi: tuple[int, ...], tuning: float) -> tuple[float, ...]:
    return tuple(frequency(m, tuning) for m in midi)


def resolve(request: Any) -> dict[str, Any]:
    """``{"chord": "G13", "octave": 4, "tuning": 440}`` -> notes, MIDI and frequencies."""
    req = require_object(request, RESOLVE_FIELDS)
    chord = read_chord(req)
    octave = get_number(req, "octave", default=DEFAULT_OCTAVE, integer=True)
    tuning = get_number(req, "tuning", default=DEFAULT_TUNING, low=TUNING_RANGE[0],
                        high=TUNING_RANGE[1])
    assert octave is not None and tuning is not None
    notes, midi = _placed(chord, int(octave))
    if min(midi) < 0 or max(midi) > 127:
        raise InvalidRequest(f"octave {octave} puts {chord.symbol!r} outside MIDI 0..127",
                             field="octave")
    return {
        "chord": chord.symbol,
        "root": chord.root.name,
        "quality": chord.quality,
        "name": chord.name,
        "bass": chord.bass_name,
        "intervals": list(chord.intervals),
        "semitones": list(chord.semitones),
        "notes": list(notes),
        "midi": list(midi),
        "frequencies": list(_frequencies(midi, float(tuning))),
        "scales": chord_scales(chord, quality_class(chord)),
    }
