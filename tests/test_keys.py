"""Keys (API.md §2): tonics, minor spellings, default C, modes refused with the parent key."""

from __future__ import annotations

import re

import pytest

from engine.chords.keys import parse_key
from engine.errors import InvalidKey


@pytest.mark.parametrize(("text", "name", "mode"), [
    ("C", "C", "major"), ("F#", "F#", "major"), ("Bb", "Bb", "major"), ("B♭", "Bb", "major"),
    ("C major", "C", "major"), ("Cmaj", "C", "major"), ("Cm", "Cm", "minor"),
    ("C-", "Cm", "minor"), ("C minor", "Cm", "minor"), ("Dmin", "Dm", "minor"),
    ("Ebm", "Ebm", "minor"), ("  G#m ", "G#m", "minor"), ("CM", "C", "major"),
])
def test_keys_read(text: str, name: str, mode: str) -> None:
    key = parse_key(text)
    assert (key.name, key.mode) == (name, mode)


def test_default_key_is_c() -> None:
    assert parse_key(None).name == "C"
    assert parse_key("").name == "C"


def test_scales_are_spelled() -> None:
    assert [n.name for n in parse_key("F#").scale] == ["F#", "G#", "A#", "B", "C#", "D#", "E#"]
    assert [n.name for n in parse_key("Ebm").scale] == ["Eb", "F", "Gb", "Ab", "Bb", "Cb", "Db"]
    assert [n.name for n in parse_key("Am").scale] == ["A", "B", "C", "D", "E", "F", "G"]


@pytest.mark.parametrize(("text", "parent"), [
    ("Bb lydian", "use key F"), ("D dorian", "use key C"), ("E phrygian", "use key C"),
    ("G mixolydian", "use key C"), ("B locrian", "use key C"), ("F# lydian", "use key C#"),
    ("A aeolian", "use key Am"), ("C ionian", "use key C"), ("Eb Dorian", "use key Db"),
])
def test_modes_are_refused_with_the_parent_key(text: str, parent: str) -> None:
    with pytest.raises(InvalidKey) as err:
        parse_key(text)
    assert parent in err.value.message
    assert err.value.to_dict()["error"]["code"] == "invalid_key"


@pytest.mark.parametrize("text", ["H", "Cmaj7", "C blues", "7", "C##m#", "do"])
def test_bad_keys_are_invalid_key(text: str) -> None:
    with pytest.raises(InvalidKey):
        parse_key(text)


@pytest.mark.parametrize(("text", "key"), [("A harmonic minor", "Am"), ("C melodic minor", "Cm"),
                                           ("F# Harmonic Minor", "F#m")])
def test_harmonic_and_melodic_minor_point_to_the_minor_key(text: str, key: str) -> None:
    with pytest.raises(InvalidKey) as err:
        parse_key(text)
    message = err.value.message
    assert f"use key {key}" in message
    assert "same notes" not in message  # A harmonic minor does not have A minor's notes
    assert "harmonic and melodic forms as its own" in message


@pytest.mark.parametrize(("text", "instead"), [
    ("Cbb", "use Bb"), ("Gx", "use A"), ("C##m", "use Dm"), ("Fbb", "use Eb"),
    ("G## minor", "use Am"), ("B𝄫", "use A"),  # "use A minor" before: Am is the key's name
])
def test_double_accidental_keys_are_refused(text: str, instead: str) -> None:
    with pytest.raises(InvalidKey, match="double accidental") as err:
        parse_key(text)
    assert instead in err.value.message
    parse_key(instead.removeprefix("use "))  # the key named is one that is read


# The whole key is read before it is refused, so that the hint names a key that is read:
# these said "use A dorian" (itself refused), "use Bb foo" and "use Bb" (for a lowercase
# tonic, whose major/minor ambiguity went unmentioned) before.
@pytest.mark.parametrize(("text", "hint", "keys"), [
    ("Gx dorian", "mode", ["G"]), ("gx dorian", "mode", ["G"]), ("Fb locrian", "mode", ["F"]),
    ("Cb locrian", "mode", ["C"]), ("B# lydian", "mode", ["G"]),
    ("Cbb foo", "cannot read", []), ("Gx blues", "cannot read", []),
    ("cbb", "ambiguous", ["Bb", "Bbm"]), ("gx", "ambiguous", ["A", "Am"]),
])
def test_a_refused_key_names_keys_that_are_read(text: str, hint: str, keys: list[str]) -> None:
    with pytest.raises(InvalidKey, match=hint) as err:
        parse_key(text)
    message = err.value.message
    named = re.findall(r"use key (\S+) \(|write (\S+) for major or (\S+) for minor", message)
    assert sorted(k for group in named for k in group if k) == sorted(keys), message
    for key in keys:
        assert parse_key(key).name == key


@pytest.mark.parametrize("text", ["c", "f#", "bb", " eb "])
def test_bare_lowercase_tonic_is_refused_as_ambiguous(text: str) -> None:
    with pytest.raises(InvalidKey, match="ambiguous") as err:
        parse_key(text)
    name = text.strip()[0].upper() + text.strip()[1:]
    assert f"write {name} for major or {name}m for minor" in err.value.message


@pytest.mark.parametrize(("text", "name"), [
    ("c minor", "Cm"), ("cm", "Cm"), ("c-", "Cm"), ("c major", "C"), ("f#m", "F#m"),
    ("C–", "Cm"), ("C−", "Cm"), ("Cb", "Cb"), ("C#", "C#"), ("Gb", "Gb"),
])
def test_lowercase_with_a_mode_word_and_dash_minor_read(text: str, name: str) -> None:
    assert parse_key(text).name == name
