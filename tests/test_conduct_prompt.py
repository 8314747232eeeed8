"""Reading directions and realising forms: the parts of conduct that need no chord parser."""

from __future__ import annotations

import pytest

from engine.chords.notes import parse_spelled
from engine.conduct import forms
from engine.conduct.midi import key_signature
from engine.conduct.prompt import STYLE_TEMPO, read_prompt
from engine.conduct.styles import GROOVES, generic_bass, generic_drums, groups


@pytest.mark.parametrize(("prompt", "expected"), [
    ("medium swing blues in F, 24 bars, walking bass",
     {"style": "swing", "tempo": 126, "tonic": "F", "mode": "major", "form": "blues",
      "bars": 24, "bass": "walk", "meter": (4, 4)}),
    ("bossa nova in Bb minor", {"style": "bossa_nova", "tonic": "Bb", "mode": "minor",
                                "tempo": STYLE_TEMPO["bossa_nova"]}),
    ("a ballad in E-flat, sparse", {"style": "ballad", "tonic": "Eb", "energy": 0.3}),
    ("jazz waltz in F#", {"style": "jazz_waltz", "tonic": "F#", "meter": (3, 4)}),
    ("waltz in D", {"style": "jazz_waltz", "meter": (3, 4)}),
    ("something in 3/4", {"style": "jazz_waltz", "meter": (3, 4)}),
    ("funky groove at 104 bpm, intense", {"style": "funk", "tempo": 104, "energy": 0.85}),
    ("latin tune, fast", {"style": "samba", "tempo": 208}),
    ("samba in G", {"style": "samba", "tonic": "G"}),
    ("slow shuffle blues in A", {"style": "shuffle_blues", "tempo": 66, "form": "blues"}),
    ("straight rock in G that builds", {"style": "rock_pop", "builds": True}),
    ("pop song in C# minor", {"style": "rock_pop", "tonic": "C#", "mode": "minor"}),
    ("gospel in Ab, laid back", {"style": "gospel", "tonic": "Ab", "energy": 0.45}),
    ("Dorian vamp", {"style": "modal_vamp", "tonic": "D", "mode": "dorian"}),
    ("a Phrygian modal vamp", {"style": "modal_vamp", "tonic": "E", "mode": "phrygian"}),
    ("modal vamp in G dorian", {"style": "modal_vamp", "tonic": "G", "mode": "dorian"}),
    ("funk in C lydian", {"style": "funk", "tonic": "C", "mode": "lydian"}),
    ("up-tempo rhythm changes in Bb", {"style": "swing", "tempo": 232,
                                       "form": "rhythm_changes", "tonic": "Bb"}),
    ("minor blues", {"form": "minor_blues", "mode": "minor", "tonic": "C"}),
    ("12-bar blues in Eb", {"form": "blues", "bars": None, "tonic": "Eb"}),
    ("AABA tune in G, 64 bars", {"form": "aaba", "bars": 64}),
    ("ii-V-I in D, two-feel", {"form": "ii_v_i", "bass": "two"}),
    ("ballad over a pedal", {"bass": "pedal"}),
    ("6/8 ballad in F", {"meter": (6, 8), "style": "ballad"}),
    ("in a minute I want 200 bpm", {"tonic": "C", "tempo": 200, "style": "swing"}),
    ("tempo 400 bpm", {"tempo": 320}),
    ("key of e-flat", {"tonic": "Eb"}),
    # the grooves people ask for (issue 38): were samba or swing without a word
    ("latin montuno in C", {"style": "son_montuno", "clave": 0}),
    ("salsa, 2-3 clave", {"style": "son_montuno", "clave": 1}),
    ("rumba clave 3-2", {"style": "rumba", "clave": 0}),
    ("afro-cuban 6/8", {"style": "afro_cuban_6_8", "meter": (6, 8)}),
    ("afro-cuban", {"style": "son_montuno"}), ("bembe in D minor", {"meter": (12, 8)}),
    ("reggae one drop", {"style": "reggae"}), ("hip hop beat", {"style": "hip_hop"}),
    ("New Orleans second line", {"style": "second_line"}), ("stride", {"style": "stride"}),
    ("ska in A", {"style": "reggae"}), ("slow blues", {"tempo": 66, "tempo_range": (45, 88)}),
    ("fast bebop, slap bass, brushes", {"tempo_range": (162, 275), "instruments": (
        ("drums", 40, "Brush kit"), ("bass", 36, "Slap Bass"))}),
])
def test_the_direction_is_read_as_the_words_ask(prompt: str, expected: dict) -> None:
    plan = read_prompt(prompt)
    for field, value in expected.items():
        got = getattr(plan, field)
        if field == "tonic":
            got = got.name
        assert got == value, f"{field} of {prompt!r}: {got!r} != {value!r}"


def test_understood_and_approximated_words() -> None:
    plan = read_prompt("ska in A with horns, organ, 3-2")
    assert plan.understood == (("ska", "style reggae"), ("organ", "harmony: Organ (GM program 16)"),
                               ("in A", "key A major"))
    assert [w for w, _ in plan.approximated] == ["ska", "horns", "3-2"]
    assert read_prompt("medium swing in F").approximated == ()


def test_defaults_when_the_words_say_nothing() -> None:
    plan = read_prompt("play something nice")
    assert (plan.style, plan.tempo, plan.tonic.name, plan.mode, plan.meter, plan.bass) == \
        ("swing", 140, "C", "major", (4, 4), None)
    assert not plan.style_given and not plan.key_given and not plan.tempo_given


@pytest.mark.parametrize(("numeral", "tonic", "symbol"), [
    ("bIImaj7", "F", "Gbmaj7"), ("bVII7", "D", "C7"), ("#ivo7", "F", "Bdim7"),
    ("iiø7", "Bb", "Cm7b5"), ("IV", "F#", "B"), ("bIII", "Eb", "Gb"), ("V7b9", "C", "G7b9"),
    ("vi7", "E", "C#m7"), ("I/V", "Ab", "Ab/Eb"), ("IV/I", "C", "F/C"), ("bVI7", "Bb", "Gb7"),
    ("i6", "C", "Cm6"), ("II", "F", "G"), ("III7", "Db", "F7"),
])
def test_numerals_are_realised_and_spelled_for_the_key(numeral: str, tonic: str,
                                                       symbol: str) -> None:
    assert forms.realise(numeral, parse_spelled(tonic)) == symbol


def test_every_form_realises_in_every_key() -> None:
    for name in forms.FORMS:
        for mode in ("major", "minor"):
            for tonic in ("C", "F", "Bb", "Eb", "F#", "C#", "Gb"):
                bars = forms.realise_form(name, mode, parse_spelled(tonic))
                assert bars and all(bar for bar in bars)


def test_a_named_mode_chooses_its_vamp_and_styles_have_forms() -> None:
    assert forms.choose_form(None, "swing", "phrygian") == "vamp_phrygian"
    assert forms.choose_form("blues", "shuffle_blues", "major") == "basic_blues"
    assert set(forms.STYLE_FORM) == set(GROOVES) == set(STYLE_TEMPO)


@pytest.mark.parametrize(("tonic", "mode", "key"), [
    ("F", "major", "F"), ("Bb", "minor", "Bbm"), ("D", "dorian", "C"), ("E", "phrygian", "C"),
    ("F", "lydian", "C"), ("G#", "major", "Ab"), ("F#", "major", "F#"), ("A", "minor", "Am"),
])
def test_key_signatures(tonic: str, mode: str, key: str) -> None:
    assert key_signature(parse_spelled(tonic), mode) == key


@pytest.mark.parametrize("meter", [(5, 4), (7, 8), (6, 8), (2, 4), (12, 8)])
def test_grooves_exist_for_any_meter(meter: tuple[int, int]) -> None:
    units = sum(groups(meter))
    assert units == meter[0]
    for groove in GROOVES.values():
        assert all(len(r) == units for r in generic_drums(groove, meter).values())
    assert len(generic_bass(meter)) == units


@pytest.mark.parametrize(("numeral", "tonic", "symbol"), [
    ("bII7", "Db", "D7"), ("#ivo7", "F#", "Cdim7"), ("IV", "Gb", "Cb"), ("bVI7", "Gb", "D7"),
    ("iii7", "A#", "Dm7"),
])
def test_awkward_roots_are_respelled(numeral: str, tonic: str, symbol: str) -> None:
    assert forms.realise(numeral, parse_spelled(tonic)) == symbol


@pytest.mark.parametrize(("prompt", "mode"), [
    ("swing in C M", "major"), ("swing in Cm", "minor"), ("swing in C minor", "minor"),
    ("swing in C major", "major"), ("swing in the key of c m", "minor"),
])
def test_major_and_minor_marks_read_as_key_names_do(prompt: str, mode: str) -> None:
    # A capital M is major in key and chord names (engine.chords.keys reads "CM" so too).
    assert read_prompt(prompt).mode == mode


@pytest.mark.parametrize(("prompt", "tonic", "mode"), [
    # "in" / "key of" in any case
    ("In F, a medium swing", "F", "major"), ("Blues In Bb", "Bb", "major"),
    ("IN Eb minor, a ballad", "Eb", "minor"), ("Key Of G, bossa", "G", "major"),
    # a minor key written as in key names: "-", "m", "min"
    ("in Bb-", "Bb", "minor"), ("swing in F#m", "F#", "minor"), ("Bb- blues", "Bb", "minor"),
    ("F#m shuffle", "F#", "minor"), ("swing in D min", "D", "minor"),
    # "<tonic> major|minor|<mode>" anywhere
    ("D minor ballad", "D", "minor"), ("A minor blues", "A", "minor"),
    ("Ab major gospel", "Ab", "major"), ("E-flat minor ballad", "Eb", "minor"),
    ("C# minor funk", "C#", "minor"), ("Cb major ballad", "Cb", "major"),
    ("E Phrygian vamp in 6/8", "E", "phrygian"), ("slow Gb Lydian vamp", "Gb", "lydian"),
    # "<tonic> <style or form>"
    ("F blues", "F", "major"), ("Eb bossa nova", "Eb", "major"), ("Gb blues", "Gb", "major"),
    ("A-flat blues", "Ab", "major"), ("medium G funk, intense", "G", "major"),
    ("Db rhythm changes", "Db", "major"),
    # "in X" wins over a tonic elsewhere
    ("A ballad in Eb", "Eb", "major"),
    # ... and takes the mode of a "<tonic> <mode>" phrase only when it names the same tonic
    # (these were F minor and C phrygian)
    ("D minor feel, in F", "F", "major"), ("D minor ballad in F", "F", "major"),
    ("E Phrygian ballad in C", "C", "major"), ("Bb minor ballad in Bb", "Bb", "minor"),
    ("minor ballad in F", "F", "minor"), ("in E, phrygian", "E", "phrygian"),
])
def test_key_phrases(prompt: str, tonic: str, mode: str) -> None:
    plan = read_prompt(prompt)
    assert (plan.tonic.name, plan.mode, plan.key_given) == (tonic, mode, True), prompt


@pytest.mark.parametrize("prompt", [
    "a medium swing", "A ballad, sparse", "A blues", "a minor blues", "Am I able to swing?",
    "in a minute I want 200 bpm", "a phrygian modal vamp", "bebop at 200 bpm", "A funk tune",
])
def test_no_key_is_read_from_an_article_or_a_word(prompt: str) -> None:
    assert not read_prompt(prompt).key_given, prompt
