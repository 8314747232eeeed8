"""The grooves people ask for (issue 38), each recognised by its defining pattern's onsets:
the son and rumba claves (3-2 and 2-3), cascara, bell and conga tumbao, the tumbao bass and the
piano montuno, the bembé bell of Afro-Cuban 6/8, reggae's one drop, hip-hop's boom bap, the
second line's clave-accented snare and Big Four, stride piano's left hand; brushes and slap
bass; what the words chose and what could not be honoured; tempo words within their range;
two compers that never double each other."""

from __future__ import annotations

import base64
import io
from functools import lru_cache
from typing import Any

import mido
import pytest

from engine.conduct import conduct
from engine.conduct.prompt import TEMPO_WORDS
from tests.test_conduct import check_midi, chord_spans, harmony_fits_the_chords

BAR = 1920
CLAVES, COWBELL, HIGH_TIMBALE, MUTE_CONGA, OPEN_CONGA = 75, 56, 65, 62, 63
KICK, SIDE_STICK, SNARE, BRUSH_TAP, BRUSH_SWIRL = 36, 37, 38, 38, 40
# Reference patterns, eighth notes of one bar (0 = beat 1, 1 = its "and", ...).
SON_3_2 = ({0, 3, 6}, {2, 4})
RUMBA_3_2 = ({0, 3, 7}, {2, 4})
CASCARA_3_2 = ({0, 2, 3, 5, 7}, {0, 2, 4, 5, 7})
MONTUNO_3_2 = ({1, 3, 5, 6}, {0, 2, 4, 7})
BEMBE_BELL = {0, 2, 4, 5, 7, 9, 11}                 # twelve eighths of a 12/8 bar


@lru_cache(maxsize=32)
def arrange(prompt: str, seconds: float = 40, seed: int = 0) -> dict[str, Any]:
    result = conduct({"prompt": prompt, "durationSec": seconds, "seed": seed})
    check_midi(result)
    return result


def steps(result: dict[str, Any], lane: str, bar: int, per_bar: int = 8,
          pitch: int | None = None) -> set[int]:
    """The grid steps (``per_bar`` to a bar) where ``lane`` starts a note in ``bar``, the swing
    undone; only ``pitch`` when given."""
    swing = result["conductor"]["swing"]
    num, den = (int(x) for x in result["conductor"]["timeSignature"].split("/"))
    bar_ticks = 480 * 4 * num // den
    swung = round(480 * swing)
    out = set()
    for e in result["lanes"][lane]:
        if pitch is not None and e["pitch"] != pitch:
            continue
        tick = e["tick"] - bar * bar_ticks
        if not 0 <= tick < bar_ticks:
            continue
        if swing != 0.5 and den == 4 and tick % 480 == swung:
            tick += 240 - swung
        if tick * per_bar % bar_ticks == 0:
            out.add(tick * per_bar // bar_ticks)
    return out


@pytest.mark.parametrize(("prompt", "clave"), [
    ("salsa in C", SON_3_2), ("son montuno in G, 3-2", SON_3_2),
    ("latin montuno in F", SON_3_2), ("salsa in C, 2-3 clave", SON_3_2[::-1]),
    ("rumba in D minor", RUMBA_3_2), ("rumba clave 2-3 in A", RUMBA_3_2[::-1]),
])
def test_the_clave_plays_its_two_bars_in_the_asked_direction(prompt: str,
                                                              clave: tuple[set[int], ...]) -> None:
    result = arrange(prompt)
    assert result["conductor"]["style"] in ("son_montuno", "rumba")
    for bar in range(6):
        assert steps(result, "drums", bar, pitch=CLAVES) == clave[bar % 2], (prompt, bar)


def test_the_son_s_cascara_bell_and_congas() -> None:
    result = arrange("salsa in C")
    for bar in range(6):
        assert steps(result, "drums", bar, pitch=HIGH_TIMBALE) == CASCARA_3_2[bar % 2]
        assert steps(result, "drums", bar, pitch=COWBELL) == {0, 2, 4, 6}
        assert 2 in steps(result, "drums", bar, pitch=MUTE_CONGA)       # the slap on 2
        assert steps(result, "drums", bar, pitch=OPEN_CONGA) == {6, 7}  # open tones 4, 4&


def test_the_tumbao_bass_anticipates_the_next_chord_on_four() -> None:
    result = arrange("salsa in C", 60)
    spans = chord_spans(result)
    bars = result["conductor"]["bars"]
    for bar in range(1, bars - 2):
        got = steps(result, "bass", bar)
        assert {3, 6} <= got and 0 not in got, (bar, got)       # 2& and 4, beat 1 silent
        ponche = next(e for e in result["lanes"]["bass"] if e["tick"] == bar * BAR + 1440)
        nxt = next(s for s in spans if s[0] == (bar + 1) * BAR)
        from engine.chords.symbols import parse
        assert ponche["pitch"] % 12 == parse(nxt[2]).root.pc
        assert ponche["tick"] + ponche["duration"] > (bar + 1) * BAR      # held over the bar


def test_the_piano_plays_a_montuno_in_octaves() -> None:
    result = arrange("salsa in C")
    harmony_fits_the_chords(result)
    for bar in range(1, 6):
        assert steps(result, "harmony", bar) == MONTUNO_3_2[bar % 2], bar
    by_tick: dict[int, list[int]] = {}
    for e in result["lanes"]["harmony"]:
        by_tick.setdefault(e["tick"], []).append(e["pitch"])
    assert all(len(p) == 2 and p[1] - p[0] == 12 for p in
               (sorted(v) for t, v in by_tick.items() if t < 6 * BAR))


def test_afro_cuban_6_8_rings_the_bembe_bell() -> None:
    result = arrange("afro-cuban 6/8 in D minor")
    assert result["conductor"]["style"] == "afro_cuban_6_8"
    assert result["conductor"]["timeSignature"] == "6/8"
    for bar in range(0, 6, 2):   # the bell's twelve eighths over two bars of 6/8
        bell = steps(result, "drums", bar, 6, COWBELL) | {
            6 + s for s in steps(result, "drums", bar + 1, 6, COWBELL)}
        assert bell == BEMBE_BELL
    twelve = arrange("afro-cuban in 12/8")
    assert steps(twelve, "drums", 1, 12, COWBELL) == BEMBE_BELL


def test_reggae_drops_one_beat_three() -> None:
    result = arrange("reggae in G")
    assert result["conductor"]["style"] == "reggae"
    for bar in range(1, 6):
        assert steps(result, "drums", bar, pitch=KICK) == {4}
        assert steps(result, "drums", bar, pitch=SIDE_STICK) == {4}
        assert steps(result, "pattern", bar) == {2, 6}            # the skank on 2 and 4


def test_hip_hop_is_boom_bap() -> None:
    result = arrange("hip hop in F minor")
    assert result["conductor"]["style"] == "hip_hop"
    for bar in (0, 1, 2, 4, 5, 6):   # bar 4 of the loop ends on a fill
        assert steps(result, "drums", bar, 16, KICK) == {0, 7, 10}
        assert steps(result, "drums", bar, 16, SNARE) == {4, 12}


def test_the_second_line_snare_accents_the_clave_and_the_kick_hits_the_big_four() -> None:
    result = arrange("second line in Bb", 60)
    assert result["conductor"]["style"] == "second_line"
    for bar in range(0, 6):
        snares = sorted((e["tick"], e["velocity"]) for e in result["lanes"]["drums"]
                        if e["pitch"] == SNARE and bar * BAR <= e["tick"] < (bar + 1) * BAR)
        loud = max(v for _, v in snares)
        assert steps(result, "drums", bar, pitch=SNARE) == set(range(8))   # running eighths
        accents = {k for k, (_, v) in enumerate(snares) if v == loud}
        assert accents <= SON_3_2[bar % 2] and accents, (bar, accents)
        kicks = steps(result, "drums", bar, pitch=KICK)
        assert kicks == ({0, 3} if bar % 2 == 0 else {2, 6})          # the Big Four: bar 2, 4


def test_stride_piano_left_hand_on_one_and_three_chords_on_two_and_four() -> None:
    result = arrange("stride piano in Ab", 45)
    assert result["conductor"]["style"] == "stride"
    midi = mido.MidiFile(file=io.BytesIO(base64.b64decode(result["midi"])))
    programs = {m.channel: m.program for t in midi.tracks for m in t if m.type == "program_change"}
    assert programs[2] == 0                                       # the left hand is a piano
    spans = chord_spans(result)
    for bar in range(1, result["conductor"]["bars"] - 1):
        changes = {(s[0] - bar * BAR) // 240 for s in spans if bar * BAR <= s[0] < (bar + 1) * BAR}
        assert steps(result, "bass", bar) - changes == {0, 4} - changes
        assert steps(result, "harmony", bar) == {2, 6}, bar


def programs_of(result: dict[str, Any]) -> dict[int, int]:
    midi = mido.MidiFile(file=io.BytesIO(base64.b64decode(result["midi"])))
    return {m.channel: m.program for t in midi.tracks for m in t if m.type == "program_change"}


def test_brushes_choose_the_brush_kit_and_its_pattern() -> None:
    result = arrange("ballad in F with brushes")
    assert programs_of(result)[9] == 40
    for bar in range(1, 6):
        assert steps(result, "drums", bar, pitch=BRUSH_SWIRL) == {0, 4}
        assert steps(result, "drums", bar, pitch=BRUSH_TAP) == {0, 2, 3, 4, 6, 7}
    assert programs_of(arrange("ballad in F"))[9] == 0
    waltz = arrange("jazz waltz, brushes")
    assert programs_of(waltz)[9] == 40 and steps(waltz, "drums", 1, 6, BRUSH_SWIRL) == {0}


@pytest.mark.parametrize(("prompt", "program"), [
    ("funk in E, slap bass", 36), ("bossa nova, fretless", 35), ("hip hop, synth bass", 38),
])
def test_bass_words_choose_the_bass(prompt: str, program: int) -> None:
    assert programs_of(arrange(prompt))[2] == program


@pytest.mark.parametrize(("prompt", "style"), [
    ("latin montuno", "son_montuno"), ("salsa", "son_montuno"),
    ("afro-cuban 6/8", "afro_cuban_6_8"), ("reggae", "reggae"), ("hip hop", "hip_hop"),
    ("second line", "second_line"), ("stride", "stride"), ("latin", "samba"),
])
def test_each_style_word_is_understood_not_replaced(prompt: str, style: str) -> None:
    c = arrange(prompt)["conductor"]
    assert c["style"] == style
    assert next(u["words"] for u in c["understood"] if u["chose"] == f"style {style}") in prompt
    assert c["approximated"] == []


def test_what_was_understood_and_what_could_not_be_honoured() -> None:
    c = arrange("ska in A with trumpets, slap bass and brushes, fast")["conductor"]
    words = {u["words"]: u["chose"] for u in c["understood"]}
    assert words["ska"] == "style reggae"
    assert words["slap bass"].startswith("bass: Slap Bass")
    assert words["brushes"].startswith("drums: Brush kit")
    assert words["in A"] == "key A major" and words["fast"].startswith("tempo 208")
    instead = {a["words"]: a["instead"] for a in c["approximated"]}
    assert set(instead) == {"ska", "trumpets"}
    assert "reggae" in instead["ska"] and "no lane" in instead["trumpets"]
    # a meter the style has no groove for is said too
    c = arrange("bossa nova in 7/8")["conductor"]
    assert [a["words"] for a in c["approximated"]] == ["7/8"]


TEMPO_PROMPTS = ["slow blues", "fast bebop", "medium swing", "up-tempo rhythm changes",
                 "very slow ballad", "medium-up swing blues", "slow bossa nova", "fast samba"]


@pytest.mark.parametrize("seconds", [10, 30, 60, 90, 180])
@pytest.mark.parametrize("prompt", TEMPO_PROMPTS)
def test_a_tempo_word_is_honoured_within_ten_percent_of_its_range(prompt: str,
                                                                 seconds: float) -> None:
    c = conduct({"prompt": prompt, "durationSec": seconds, "detail": "summary"})["conductor"]
    word, (lo, hi) = next((w, r) for w, _, r in TEMPO_WORDS
                          if w.split("|")[0].replace("[ -]", "-").replace("?", "") in
                          prompt.replace(" ", "-") or w in prompt)
    assert 0.9 * lo <= c["tempo"] <= 1.1 * hi, (prompt, seconds, c["tempo"], word)
    if abs(c["durationSec"] - seconds) > 0.01 * seconds:
        assert c["approximated"][-1]["words"] == f"durationSec {seconds:g}"


def test_slow_blues_and_fast_bebop_for_a_minute() -> None:
    slow = conduct({"prompt": "slow blues", "durationSec": 60})["conductor"]
    fast = conduct({"prompt": "fast bebop", "durationSec": 60})["conductor"]
    assert 45 <= slow["tempo"] <= 88 and 162 <= fast["tempo"] <= 275
    assert slow["durationSec"] == fast["durationSec"] == 60


def doubled(result: dict[str, Any]) -> int:
    """Pattern-lane notes sounding a pitch the harmony lane sounds at the same moment."""
    harmony = result["lanes"]["harmony"]
    return sum(any(h["pitch"] == p["pitch"] and h["tick"] < p["tick"] + p["duration"]
                   and p["tick"] < h["tick"] + h["duration"] for h in harmony)
               for p in result["lanes"]["pattern"])


@pytest.mark.parametrize("prompt", ["bossa nova in F", "medium swing in Bb", "samba in C",
                                    "straight rock in G", "funk in E", "reggae in G",
                                    "ballad in Eb", "jazz waltz in F"])
def test_two_compers_never_double_each_other(prompt: str) -> None:
    result = arrange(prompt, 60)
    assert doubled(result) == 0


def test_the_bossa_guitar_plays_under_the_electric_piano() -> None:
    result = arrange("bossa nova in F", 60)
    under = [p for p in result["lanes"]["pattern"]
             if any(h["tick"] <= p["tick"] < h["tick"] + h["duration"]
                    for h in result["lanes"]["harmony"])]
    assert under
    below = sum(all(p["pitch"] < h["pitch"] for h in result["lanes"]["harmony"]
                    if h["tick"] <= p["tick"] < h["tick"] + h["duration"]) for p in under)
    assert below / len(under) > 0.9


@pytest.mark.parametrize("key", ["F", "Db", "E minor"])
@pytest.mark.parametrize(("prompt", "style"), [
    ("salsa", "son_montuno"), ("rumba, 2-3", "rumba"), ("afro-cuban 6/8", "afro_cuban_6_8"),
    ("reggae", "reggae"), ("hip hop", "hip_hop"), ("second line", "second_line"),
    ("stride piano", "stride"), ("swing with brushes and slap bass", "swing"),
])
def test_every_new_groove_in_several_keys(prompt: str, style: str, key: str) -> None:
    result = conduct({"prompt": f"{prompt} in {key}", "durationSec": 25, "seed": 7})
    c = result["conductor"]
    assert (c["style"], c["key"], c["mode"]) == (style, key.split()[0],
                                                  "minor" if "minor" in key else "major")
    check_midi(result)
    harmony_fits_the_chords(result)
    lanes = ("harmony", "bass", "drums") if style == "stride" else tuple(result["lanes"])
    assert all(result["lanes"][lane] for lane in lanes)
    assert all(35 <= e["pitch"] <= 81 for e in result["lanes"]["drums"])
    assert all(28 <= e["pitch"] <= 55 for e in result["lanes"]["bass"])
