"""conduct (API.md §7): arrangements for every style, read back from the MIDI file with an
independent parser (symusic), checked against the JSON lanes and against the music asked for."""

from __future__ import annotations

import base64
import itertools
import struct
from typing import Any

import orjson
import pytest
import symusic
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.chords.symbols import parse
from engine.conduct import conduct
from engine.errors import InvalidChord, InvalidRequest

LANES = ("harmony", "pattern", "bass", "drums")
TRACK_NAMES = {"bass": "Bass", "drums": "Drums"}
GM_DRUMS = range(35, 82)
WALKING = ("swing", "jazz_waltz", "modal_vamp")
SCALES = {"dorian": (0, 2, 3, 5, 7, 9, 10), "phrygian": (0, 1, 3, 5, 7, 8, 10),
          "lydian": (0, 2, 4, 6, 7, 9, 11), "mixolydian": (0, 2, 4, 5, 7, 9, 10)}
PC = {"C": 0, "Db": 1, "D": 2, "Eb": 3, "E": 4, "F": 5, "F#": 6, "G": 7, "Ab": 8, "A": 9,
      "Bb": 10, "B": 11}


def check_midi(result: dict[str, Any]) -> symusic.Score:
    """Read the MIDI back with symusic and compare it with the JSON result."""
    data = base64.b64decode(result["midi"])
    fmt, ntracks, division = struct.unpack(">hhh", data[8:14])
    assert data[:4] == b"MThd" and (fmt, ntracks, division) == (1, 5, 480)
    score = symusic.Score.from_midi(data)
    c = result["conductor"]
    assert score.ticks_per_quarter == result["ppq"] == 480
    assert len(score.tempos) == 1 and score.tempos[0].qpm == pytest.approx(c["tempo"], rel=1e-5)
    num, den = (int(x) for x in c["timeSignature"].split("/"))
    assert [(t.numerator, t.denominator) for t in score.time_signatures] == [(num, den)]
    # symusic drops a track without notes (a progression all NC leaves only the drums)
    sounding = [lane for lane in LANES if result["lanes"][lane]]
    assert len(score.tracks) == len(sounding)
    ends = []
    for track, lane in zip(score.tracks, sounding, strict=True):
        events = result["lanes"][lane]
        assert lane not in TRACK_NAMES or track.name == TRACK_NAMES[lane]
        assert track.is_drum == (lane == "drums")
        assert len(track.notes) == len(events)
        got = sorted((n.time, n.duration, n.pitch, n.velocity) for n in track.notes)
        want = sorted((e["tick"], e["duration"], e["pitch"], e["velocity"]) for e in events)
        assert got == want
        assert all(0 <= e["pitch"] <= 127 and 1 <= e["velocity"] <= 127 and e["duration"] > 0
                   for e in events)
        ends.append(max(e["tick"] + e["duration"] for e in events))
    assert score.end() == max(ends)
    bar = 480 * 4 * num // den
    assert max(ends) <= c["bars"] * bar
    return score


def chord_at(result: dict[str, Any], tick: int) -> str:
    """The symbol sounding at ``tick`` (from the ``chords`` list)."""
    num, den = (int(x) for x in result["conductor"]["timeSignature"].split("/"))
    unit = 480 * 4 // den
    current = None
    for ch in result["chords"]:
        start = (ch["bar"] - 1) * unit * num + (ch["beat"] - 1) * unit
        if start > tick:
            break
        current = ch["symbol"]
    assert current is not None
    return current


def chord_starts(result: dict[str, Any]) -> list[tuple[int, str]]:
    num, den = (int(x) for x in result["conductor"]["timeSignature"].split("/"))
    unit = 480 * 4 // den
    return [((c["bar"] - 1) * unit * num + (c["beat"] - 1) * unit, c["symbol"])
            for c in result["chords"]]


PUSH = 240    # a comper voices the coming chord up to an eighth before it (timeline.ANTICIPATION)


def harmony_fits_the_chords(result: dict[str, Any]) -> None:
    """Every harmony note is a tone of the chord it sounds over, or, for a push, of the chord
    that starts within an eighth after it; and every chord of the lead sheet is voiced."""
    for e in result["lanes"]["harmony"]:
        symbols = {chord_at(result, e["tick"]), chord_at(result, e["tick"] + PUSH)}
        assert any(s != "NC" and e["pitch"] % 12 in parse(s).pcs for s in symbols), (symbols, e)
    assert unvoiced_chords(result) == []


def chord_spans(result: dict[str, Any]) -> list[tuple[int, int, str]]:
    """(start tick, end tick, symbol) of every chord of the ``chords`` list."""
    starts = chord_starts(result)
    num, den = (int(x) for x in result["conductor"]["timeSignature"].split("/"))
    end = result["conductor"]["bars"] * 480 * 4 * num // den
    return [(s, starts[i + 1][0] if i + 1 < len(starts) else end, sym)
            for i, (s, sym) in enumerate(starts)]


def unvoiced_chords(result: dict[str, Any]) -> list[tuple[int, str]]:
    """The chords no harmony hit sounds: a hit (the notes struck at one tick) voices a chord
    when it starts inside it or up to an eighth before it (a push), sounds into it and has
    only the chord's tones."""
    hits: dict[int, tuple[set[int], int]] = {}
    for e in result["lanes"]["harmony"]:
        pcs, end = hits.get(e["tick"], (set(), 0))
        hits[e["tick"]] = (pcs | {e["pitch"] % 12}, max(end, e["tick"] + e["duration"]))
    missing = []
    for start, end, symbol in chord_spans(result):
        if symbol == "NC":
            continue
        pcs = set(parse(symbol).pcs)
        if not any(start - PUSH <= tick < end and stop > start and notes <= pcs
                   for tick, (notes, stop) in hits.items()):
            missing.append((start, symbol))
    return missing


STYLE_PROMPTS = [
    ("medium swing in {key}", "swing", (4, 4)),
    ("bossa nova in {key}", "bossa_nova", (4, 4)),
    ("ballad in {key}", "ballad", (4, 4)),
    ("jazz waltz in {key}", "jazz_waltz", (3, 4)),
    ("funk in {key}", "funk", (4, 4)),
    ("latin samba in {key}", "samba", (4, 4)),
    ("shuffle blues in {key}", "shuffle_blues", (4, 4)),
    ("straight rock in {key}", "rock_pop", (4, 4)),
    ("gospel in {key}", "gospel", (4, 4)),
    ("modal vamp in {key}", "modal_vamp", (4, 4)),
    ("swing in 3/4 in {key}", "swing", (3, 4)),
    ("ballad in 6/8 in {key}", "ballad", (6, 8)),
    ("funk in 7/8 in {key}", "funk", (7, 8)),
]


@pytest.mark.parametrize("key", ["F", "Bb", "E", "Db", "Gb", "Cb", "C# minor", "Eb minor",
                                 "G# minor"])
@pytest.mark.parametrize(("prompt", "style", "meter"), STYLE_PROMPTS)
def test_every_style_in_several_keys_and_meters(prompt: str, style: str,
                                               meter: tuple[int, int], key: str) -> None:
    result = conduct({"prompt": prompt.format(key=key), "durationSec": 20})
    tonic, _, mode = key.partition(" ")
    c = result["conductor"]
    assert list(result) == ["conductor", "chords", "leadSheet", "lanes", "ppq", "midi"]
    assert list(c) == ["tempo", "key", "mode", "timeSignature", "bars", "style", "swing",
                       "durationSec", "energy", "ending", "understood", "approximated"]
    assert (c["style"], c["key"], c["mode"], c["timeSignature"]) == \
        (style, tonic, mode or "major", f"{meter[0]}/{meter[1]}")
    assert len(c["energy"]) == c["bars"] and all(0 <= x <= 1 for x in c["energy"])
    assert all(result["lanes"][lane] for lane in LANES)
    check_midi(result)
    harmony_fits_the_chords(result)
    assert all(e["pitch"] in GM_DRUMS for e in result["lanes"]["drums"])
    assert all(28 <= e["pitch"] <= 55 for e in result["lanes"]["bass"])
    # The bass marks every chord change with the chord's root (or its slash bass).
    bass = {e["tick"]: e["pitch"] for e in result["lanes"]["bass"]}
    swing_shift = round(480 * c["swing"]) - 240 if meter[1] == 4 else 0
    for tick, symbol in chord_starts(result):
        chord = parse(symbol)
        root = chord.root.pc if chord.bass is None else chord.bass.pc
        pitch = bass.get(tick, bass.get(tick + swing_shift))
        assert pitch is not None and pitch % 12 == root, (symbol, tick)


@pytest.mark.parametrize("style", WALKING)
def test_walking_bass_walks_quarter_notes_and_approaches_the_next_root(style: str) -> None:
    result = conduct({"prompt": f"{style.replace('_', ' ')} in F, walking bass",
                      "durationSec": 30})
    check_midi(result)
    bass = result["lanes"]["bass"]
    starts = chord_starts(result)
    # a note on every beat up to the last chord, which is its root held (tests/test_conduct_bass.py
    # checks every note of the line)
    assert sorted(e["tick"] for e in bass) == list(range(0, starts[-1][0] + 1, 480))
    by_tick = {e["tick"]: e["pitch"] for e in bass}
    for (tick, _), (nxt, symbol) in itertools.pairwise(starts):
        before = by_tick.get(nxt - 480)
        if before is None or nxt - tick < 960:
            continue
        target = parse(symbol).root.pc
        # approach notes: a half step or a whole step either side, or the dominant above
        assert (before - target) % 12 in (1, 11, 2, 10, 7), (symbol, before)


@pytest.mark.parametrize(("prompt", "mode", "tonic", "colour"), [
    ("Phrygian vamp in E", "phrygian", "E", 1),
    ("a phrygian modal vamp", "phrygian", "E", 1),
    ("D Dorian vamp, laid back", "dorian", "D", 9),
    ("funk in G dorian", "dorian", "G", 9),
    ("Lydian vamp in F", "lydian", "F", 6),
    ("mixolydian shuffle in A", "mixolydian", "A", 10),
])
def test_an_explicit_mode_is_honoured(prompt: str, mode: str, tonic: str, colour: int) -> None:
    result = conduct({"prompt": prompt, "durationSec": 15})
    check_midi(result)
    assert (result["conductor"]["mode"], result["conductor"]["key"]) == (mode, tonic)
    scale = {(PC[tonic] + s) % 12 for s in SCALES[mode]}
    pcs = {e["pitch"] % 12 for lane in ("harmony", "pattern")
           for e in result["lanes"][lane]}
    assert pcs <= scale
    # The mode's own colour tone sounds (phrygian b2, dorian 6, lydian #4, mixolydian b7).
    assert (PC[tonic] + colour) % 12 in {e["pitch"] % 12 for e in result["lanes"]["harmony"]}


@pytest.mark.parametrize("duration", [5, 12.5, 60, 247, 900])
@pytest.mark.parametrize("prompt", ["ballad at 60 bpm", "medium swing blues in F",
                                    "up-tempo rhythm changes", "jazz waltz at 200 bpm",
                                    "funk, 16 bars", "6/8 ballad"])
def test_duration_is_met_within_one_percent(prompt: str, duration: float) -> None:
    result = conduct({"prompt": prompt, "durationSec": duration})
    c = result["conductor"]
    num, den = (int(x) for x in c["timeSignature"].split("/"))
    played = c["bars"] * num * 4 / den * 60 / c["tempo"]
    assert played == pytest.approx(c["durationSec"], rel=1e-3)
    assert 30 <= c["tempo"] <= 320
    missed = [a for a in c["approximated"] if a["words"].startswith("durationSec")]
    if missed:
        # no whole number of choruses fits inside the tempo word's range: the word wins
        words = {"medium swing blues in F": (90, 165), "up-tempo rhythm changes": (180, 320)}
        lo, hi = words[prompt]
        assert lo <= c["tempo"] <= hi and str(c["durationSec"]) in missed[0]["instead"]
        return
    assert c["durationSec"] == pytest.approx(duration, rel=0.01)
    score = check_midi(result)
    seconds = score.to("second")
    bar_sec = num * 4 / den * 60 / c["tempo"]
    assert duration - bar_sec <= seconds.end() <= duration * 1.01


def test_a_whole_number_of_choruses_when_they_fit() -> None:
    result = conduct({"prompt": "medium swing blues in F", "durationSec": 62})
    assert result["conductor"]["bars"] % 12 == 0
    check_midi(result)
    changes = conduct({"prompt": "rhythm changes", "durationSec": 120})
    assert changes["conductor"]["bars"] % 32 == 0
    check_midi(changes)


def test_user_progressions_are_arranged_as_given() -> None:
    progression = "Dm7 G7 | Cmaj7 | NC | A7b9 | Fmaj7 Bb7 Eb7"
    result = conduct({"prompt": "bossa nova, 5 bars", "progression": progression})
    check_midi(result)
    assert result["chords"] == [
        {"bar": 1, "beat": 1, "symbol": "Dm7"}, {"bar": 1, "beat": 3, "symbol": "G7"},
        {"bar": 2, "beat": 1, "symbol": "Cmaj7"}, {"bar": 3, "beat": 1, "symbol": "NC"},
        {"bar": 4, "beat": 1, "symbol": "A7b9"}, {"bar": 5, "beat": 1, "symbol": "Fmaj7"},
        {"bar": 5, "beat": 3, "symbol": "Bb7"}, {"bar": 5, "beat": 4, "symbol": "Eb7"},
        # the ending brings it home: the ii-V-I it started with
        {"bar": 6, "beat": 1, "symbol": "Dm7"}, {"bar": 6, "beat": 3, "symbol": "G7"},
        {"bar": 7, "beat": 1, "symbol": "Cmaj7"},
    ]
    assert result["leadSheet"] == \
        "| Dm7 G7 | Cmaj7 | NC | A7b9 |\n| Fmaj7 Bb7 Eb7 | Dm7 G7 | Cmaj7 |"
    assert result["conductor"]["ending"] == "added"
    # Nothing but drums in the bar of no chord.
    for lane in ("harmony", "pattern", "bass"):
        assert not [e for e in result["lanes"][lane] if 3840 <= e["tick"] < 5760]
    assert [e for e in result["lanes"]["drums"] if 3840 <= e["tick"] < 5760]
    harmony_fits_the_chords(result)
    # Without a key in the direction, the key is the chart's as a musician reads it
    # (engine.analysis.keyfind): the ii-V-I into Cmaj7 it opens with, then V7/ii (A7b9), IV
    # and the backdoor Bb7 (grid 4 read D minor from the notes alone).
    assert (result["conductor"]["key"], result["conductor"]["mode"]) == ("C", "major")


def test_a_progression_list_without_bar_lines_is_a_chord_a_bar_repeated() -> None:
    result = conduct({"prompt": "swing in C, 8 bars", "progression": ["Cmaj7", "A7", "Dm7", "G7"]})
    check_midi(result)
    assert [c["symbol"] for c in result["chords"]] == ["Cmaj7", "A7", "Dm7", "G7"] * 2 + \
        ["Cmaj7"]
    assert result["leadSheet"] == \
        "| Cmaj7 | A7 | Dm7 | G7 |\n| Cmaj7 | A7 | Dm7 | G7 |\n| Cmaj7 |"


def test_the_same_request_gives_the_same_bytes_and_the_seed_varies_it() -> None:
    request = {"prompt": "up-tempo swing blues in Bb, builds", "durationSec": 40, "seed": 7}
    result = conduct(request)
    check_midi(result)
    first = orjson.dumps(result)
    assert orjson.dumps(conduct(dict(request))) == first
    other = conduct({**request, "seed": 8})
    check_midi(other)
    assert orjson.dumps(other) != first
    assert other["chords"] == orjson.loads(first)["chords"]


def test_energy_builds_and_shapes_the_playing() -> None:
    built = conduct({"prompt": "swing in F that builds", "durationSec": 60})
    check_midi(built)
    energy = built["conductor"]["energy"]
    assert energy[-1] - energy[0] >= 0.5
    bar = 1920

    def per_bar(lane: str, b: int) -> list[dict[str, int]]:
        return [e for e in built["lanes"][lane] if b * bar <= e["tick"] < (b + 1) * bar]

    first, late = per_bar("drums", 0), per_bar("drums", len(energy) - 2)
    assert sum(e["velocity"] for e in late) / len(late) > sum(e["velocity"] for e in first) / len(first)
    assert len(late) > len(first)
    sparse = conduct({"prompt": "sparse ballad", "durationSec": 30})
    intense = conduct({"prompt": "intense ballad", "durationSec": 30})
    check_midi(sparse)
    check_midi(intense)
    assert max(sparse["conductor"]["energy"]) < min(intense["conductor"]["energy"])


def test_pedal_bass_holds_the_tonic() -> None:
    result = conduct({"prompt": "gospel ballad in Eb over a pedal", "durationSec": 20})
    check_midi(result)
    assert {e["pitch"] % 12 for e in result["lanes"]["bass"]} == {3}


@pytest.mark.parametrize(("request_", "field"), [
    ({"prompt": ""}, "prompt"),
    ({"prompt": "   "}, "prompt"),
    ({}, "prompt"),
    ({"prompt": 12}, "prompt"),
    ({"prompt": "x" * 2001}, "prompt"),
    ({"prompt": "swing", "durationSec": 4.9}, "durationSec"),
    ({"prompt": "swing", "durationSec": 901}, "durationSec"),
    ({"prompt": "swing", "durationSec": "60"}, "durationSec"),
    ({"prompt": "swing", "seed": 1.5}, "seed"),
    ({"prompt": "swing", "progression": 5}, "progression"),
    ({"prompt": "swing", "progression": ""}, "progression"),
    ({"prompt": "swing", "progression": "C D E F G"}, None),
    ({"prompt": "swing", "progression": "C D E F G |"}, "progression"),
])
def test_bad_requests(request_: dict[str, Any], field: str | None) -> None:
    if field is None:            # five chords without bar lines: five bars, fine
        result = conduct(request_)
        assert result["conductor"]["bars"] >= 5
        check_midi(result)
        return
    with pytest.raises(InvalidRequest) as err:
        conduct(request_)
    assert err.value.field == field
    assert err.value.to_dict()["error"]["code"] == "invalid_request"


def test_an_unparsable_chord_is_reported_with_its_index() -> None:
    with pytest.raises(InvalidChord) as err:
        conduct({"prompt": "swing", "progression": "C7 | F7 Hm7 | G7"})
    body = err.value.to_dict()["error"]
    assert (body["code"], body["symbol"], body["index"]) == ("invalid_chord", "Hm7", 2)


def test_a_fill_leads_into_each_new_chorus_when_the_band_is_playing_hard() -> None:
    # 40 s of shuffle is two whole choruses (24 bars at 144), never a chorus and a line
    result = conduct({"prompt": "intense shuffle blues in G", "durationSec": 40})
    check_midi(result)
    bars = result["conductor"]["bars"]
    assert bars >= 24
    toms = {43, 47, 50}
    tom_bars = {e["tick"] // 1920 for e in result["lanes"]["drums"] if e["pitch"] in toms}
    assert tom_bars == {b for b in range(11, bars - 1, 12)}


STYLE_WORDS = ("swing", "bossa nova", "ballad", "jazz waltz", "funk", "samba", "shuffle",
               "rock", "gospel", "modal vamp", "Dorian vamp", "minor blues", "rhythm changes")


@settings(max_examples=25, deadline=None)
@given(style=st.sampled_from(STYLE_WORDS),
       key=st.sampled_from(["", " in F", " in Bb minor", " in E-flat", " in F#", " in A"]),
       meter=st.sampled_from(["", " in 3/4", " in 6/8", " in 5/4", " in 2/2"]),
       feel=st.sampled_from(["", ", builds", ", intense", ", sparse", ", walking bass",
                             ", two-feel", ", pedal"]),
       duration=st.floats(min_value=5, max_value=90), seed=st.integers(0, 2**31))
def test_any_direction_gives_a_consistent_arrangement(style: str, key: str, meter: str,
                                                     feel: str, duration: float,
                                                     seed: int) -> None:
    result = conduct({"prompt": style + key + meter + feel, "durationSec": duration,
                      "seed": seed})
    check_midi(result)
    harmony_fits_the_chords(result)
    assert result["conductor"]["durationSec"] == pytest.approx(duration, rel=0.01)
    assert all(e["pitch"] in GM_DRUMS for e in result["lanes"]["drums"])


@pytest.mark.parametrize("prompt", [*STYLE_WORDS, "swing, pedal", "ballad over a pedal",
                                    "funk, walking bass", "jazz waltz in 3/4", "rock in 6/8"])
@pytest.mark.parametrize("progression", ["NC", "NC | NC NC", ["N.C.", "NC"]])
def test_a_progression_without_a_sounding_chord_is_played_by_the_drums(
        prompt: str, progression: str | list[str]) -> None:
    result = conduct({"prompt": prompt, "progression": progression, "durationSec": 20})
    check_midi(result)
    assert {lane: bool(notes) for lane, notes in result["lanes"].items()} == \
        {"harmony": False, "pattern": False, "bass": False, "drums": True}
    assert {c["symbol"] for c in result["chords"]} == {"NC"}


def test_autumn_leaves_conduct_passes_its_choruses_to_the_voicing(monkeypatch: Any) -> None:
    # conduct gave the voicing a flat list of chords: only cadences marked phrase starts, so
    # bill_evans could not move its register where a chorus starts again; now every chorus
    # (and each section of a form) starts a section of the chart the voicing reads
    from engine.conduct import operation
    seen: list[list[int]] = []
    real = operation.voice_progression

    def spy(chords: Any, style: str, low: int, high: int, **kw: Any) -> Any:
        seen.append(list(kw.get("starts", ())))
        return real(chords, style, low, high, **kw)
    monkeypatch.setattr(operation, "voice_progression", spy)
    leaves = "Cm7 | F7 | Bbmaj7 | Ebmaj7 | Am7b5 | D7 | Gm6 | Gm6"
    out = conduct({"prompt": "medium swing, 16 bars", "progression": leaves, "seed": 1,
                   "detail": "summary"})
    bars = [c["bar"] for c in out["chords"]]
    assert seen and [bars[i] for i in seen[0]] == [1, 9], (seen, bars)
