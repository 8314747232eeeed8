"""The table identify reads (engine.identify.table, engine.identify.ranking) against the search
it replaced (tests/naive_identify.py), and the answers built from it (engine.identify.answer)
against the answers built one reading at a time from that search (tests/naive_identify_answer.py)
for every form of request: pitch classes, MIDI numbers, names with and without octave, mixed,
a bass given or sounded, in keys."""

from __future__ import annotations

import pytest

from engine.chords import parse, parse_key, parse_spelled
from engine.errors import InvalidRequest
from engine.identify import identify, identify_notes
from engine.identify.naming import DEFAULT_ROOTS, UNNAMED
from engine.identify.notes import NAMED, _read, read_note
from engine.identify.ranking import rank
from tests import naive_identify, naive_identify_answer

# every 41st set (a spread of sizes and of clusters no chord names), every bass and none
SETS = range(1, 4096, 41)
KEYS = ("C", "Am", "Eb", "F#")


@pytest.mark.parametrize("key", [None, *KEYS])
def test_the_table_ranks_every_bass_as_the_search_did(key: str | None) -> None:
    k = None if key is None else parse_key(key)
    for mask in SETS:
        for bass in [None, *range(12)]:
            if bass is not None and not mask >> bass & 1:
                continue
            assert rank(mask, bass, k) == naive_identify.rank(mask, bass, k), (mask, bass)


def test_b_d_f_a_the_cluster_c_db_d_and_c_e_g_a_rank_as_the_search_did() -> None:
    c = parse_key("C")
    for mask, bass in ((0b101000100100, None), (0b101000100100, 7), (0b111, 0), (0b1010010001, 9)):
        for key in (None, c):
            assert rank(mask | (0 if bass is None else 1 << bass), bass, key) == \
                naive_identify.rank(mask | (0 if bass is None else 1 << bass), bass, key)


FLAT = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
SHARP = ("C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B")
ODD = ("B#", "Db", "Ebb", "Eb", "Fb", "E#", "Gb", "F##", "G#", "Bbb", "A#", "Cb")


def _forms(mask: int) -> list[tuple[list[str | int], str | int | None]]:
    """A set as notes and a bass: pitch classes, MIDI numbers over the lowest, names with and
    without octave spelt three ways, numbers and names mixed, a bass outside the set."""
    pcs = [pc for pc in range(12) if mask >> pc & 1]
    low, rest = pcs[-1], pcs[:-1]
    return [
        ([60 + pc for pc in pcs], None),
        ([48 + low] + [60 + pc for pc in rest], None),
        ([FLAT[low] + "3"] + [FLAT[pc] + "4" for pc in rest], None),
        ([SHARP[pc] for pc in pcs], SHARP[low]),
        ([ODD[pc] + "4" for pc in rest] + [ODD[low] + "2"], None),
        ([FLAT[pc] if i % 2 else 60 + pc for i, pc in enumerate(pcs)], 36 + (low + 5) % 12),
        ([60 + pc for pc in pcs], ODD[(low + 2) % 12] + "2"),
    ]


@pytest.mark.parametrize("key", [None, *KEYS, "Cb", "D#m"])
def test_answers_are_the_naive_answers_for_every_form_of_request(key: str | None) -> None:
    """Every 29th set in each form of ``_forms``: the answer built from the packed rows, the
    heads and the spelling tables is the one built reading by reading from the search."""
    k = None if key is None else parse_key(key)
    for mask in range(1, 4096, 29):
        for notes, bass in _forms(mask):
            read = [read_note(n, "notes") for n in notes]
            low = None if any(n.midi is None for n in read) else min(read, key=lambda n: n.midi)
            sounding = read_note(bass, "bass") if bass is not None else low
            assert identify_notes(read, sounding, k) == \
                naive_identify_answer.answer(read, sounding, k), (notes, bass, key)


def test_every_note_read_by_lookup_is_what_the_reader_reads() -> None:
    # engine.identify.notes.NAMED (built from letters and octaves) against the parser
    assert len(NAMED) > 500
    for value, note in NAMED.items():
        assert note == _read(value, "notes"), value


def test_every_quality_on_every_default_root_is_spelled_as_parse_spells_it() -> None:
    """naming.UNNAMED (built from the quality tables without parsing) against ``parse``: the
    symbol, tones, their names (b5 and #11 share a pitch class in C11b5#11), the set, and the
    inversion over every bass."""
    for root, chords in enumerate(UNNAMED):
        for chord in chords:
            parsed = parse(chord.symbol)
            assert (parsed.canonical, parsed.root.name, parsed.quality) == \
                (chord.symbol, chord.root, chord.quality)
            assert parsed.pcs == chord.pcs and parsed.mask == chord.mask
            assert chord.tones == {pc: parse_spelled(n)
                                   for pc, n in zip(parsed.pcs, parsed.notes, strict=True)}
            assert all(chord.names[pc] == (chord.tones[pc].name if pc in chord.tones
                                           else DEFAULT_ROOTS[pc].name) for pc in range(12))
            assert parsed.root.pc == root
            for bass in (0, 4, 7, 10, (root + 6) % 12):
                slash = parse(f"{chord.symbol}/{DEFAULT_ROOTS[bass].name}")
                assert slash.inversion == chord.inversions[bass]


def test_requests_read_by_the_plain_path_answer_as_the_full_request() -> None:
    # identify()'s short path for {"pcs"/"notes": [...], "bass": ..., "key": ...} answers as
    # the full one, in the order the notes are given, with a bass in or out of the set or a
    # MIDI number; anything else (a bool, 12, a string that does not read) takes the full path
    # and its error
    from engine.identify.operation import _identify, identify
    for mask in range(1, 4096, 7):
        pcs = [p for p in range(12) if mask >> p & 1]
        midi = [48 + p + 12 * (i % 3) for i, p in enumerate(pcs)]
        names = [SHARP[p] + str(3 + i % 3) for i, p in enumerate(pcs)]
        for request in ({"pcs": pcs}, {"pcs": pcs[::-1], "bass": pcs[-1]},
                        {"pcs": pcs, "bass": (pcs[0] + 5) % 12}, {"pcs": pcs, "bass": 60},
                        {"notes": midi}, {"notes": midi[::-1], "bass": 40},
                        {"notes": names, "key": "Eb"}, {"notes": names[::-1], "bass": "Gb2"},
                        {"notes": [FLAT[p] for p in pcs], "bass": 41, "key": "F#m"},
                        {"notes": [*names[1:], " e4", "60"]}):
            assert identify(request) == _identify(request)
    for bad in ({"pcs": [0, 4, 12]}, {"pcs": [0, True]}, {"pcs": [0, 4], "bass": 128},
                {"pcs": []}, {"notes": [60, 128]}, {"notes": [60, 64], "bass": -1},
                {"notes": ["C4", True]}, {"notes": ["C4", "H4"]}, {"notes": ["C4"], "bass": "Q"},
                {"notes": ["C4", ["E4"]]}):
        with pytest.raises(InvalidRequest) as raised:
            identify(bad)
        assert raised.value.field in ("pcs", "notes", "bass")


def test_an_answer_asked_again_is_the_same_fresh_answer() -> None:
    # each answer is built fresh from heads kept per chord and key: a caller changing one
    # changes no later answer; True and 64.0 equal 1 and 64 as dict keys but are not notes
    from engine.identify.operation import _identify, identify
    request = {"notes": ["F3", "A3", "C4", 62], "key": "C"}
    first = identify(request)
    for _ in range(3):
        again = identify(request)
        assert again == first == _identify(request) and again is not first
        again["readings"][0]["explains"].append("X")
        again["readings"][0]["numeral"] = again["readings"][1]["symbol"] = "X"
        again["notes"].append("Y")
    assert identify({"notes": ["F3", "A3", "C4", 62], "key": "C"}) == first
    with pytest.raises(InvalidRequest):
        identify({"notes": ["F3", "A3", "C4", True], "key": "C"})
    for _ in range(3):
        identify({"notes": ["C4", 1], "bass": 1})
    with pytest.raises(InvalidRequest):
        identify({"notes": ["C4", True], "bass": 1})
    with pytest.raises(InvalidRequest):
        identify({"notes": ["C4", 1], "bass": True})


def test_the_heads_kept_per_key_stay_bounded_and_answers_do_not_change(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each key keeps its readings' heads (numeral and function set) as it reads them; over
    every key at most ``MAX_HEADS``, then all are read again: the answers stay the same."""
    from engine.identify import roles
    requests = [{"notes": [48 + bass] + [60 + p for p in range(12) if mask >> p & 1],
                 "key": key} for mask in range(1, 4096, 97) for bass in (0, 7)
                for key in ("C", "F#m", "Ab")]
    expected = [identify(r) for r in requests]
    monkeypatch.setattr(roles, "MAX_HEADS", 50)
    monkeypatch.setattr(roles, "_heads_kept", 0)
    for kept in (*roles._KEPT.values(), *roles._BY_TEXT.values()):
        kept.heads[:] = [None] * len(kept.heads)
    for request, answer in zip(requests, expected, strict=True):
        assert identify(request) == answer
        held = {id(h) for kept in (*roles._KEPT.values(), *roles._BY_TEXT.values())
                for h in kept.heads if h is not None}
        assert len(held) <= 50


def test_role_parts_table_is_role_parts_for_every_quality_mode_and_root() -> None:
    """analyze's ``role_parts_table`` (identify reads it at import) gives, for every quality
    of the vocabulary, mode and root above the tonic, the interpretation, diatonic flag and
    tension source ``role_parts`` gives one chord at a time."""
    from engine.analysis import class_of_labels, role_parts, role_parts_table
    from engine.chords import transpose_mask
    from engine.identify.vocabulary import VOCABULARY
    classes = [class_of_labels(e.labels) for e in VOCABULARY]
    index, diatonic, tension = role_parts_table(classes, [e.mask for e in VOCABULARY])
    assert index.shape == (2, 12, len(VOCABULARY))
    for mode in (0, 1):
        for offset in range(12):
            for entry, e in enumerate(VOCABULARY):
                one = role_parts(mode, 0, offset, classes[entry],
                                 transpose_mask(e.mask, offset), e.quality.canonical)
                assert one[1:] == (index[mode, offset, entry], diatonic[mode, offset, entry],
                                   tension[mode, offset, entry]), (mode, offset, e.suffix)


def test_giant_steps_keys_read_roles_shared_by_mode_as_analyze_reads_them() -> None:
    """engine.identify.roles keeps a numeral per mode, interval and quality, shared by every
    key of the mode (Giant Steps' B, G and Eb; and their minors): each chord on each root a
    key spells, read in one key after another, has analyze's own numeral and function; and in
    B and G#m every quality on every spelled root (Cbb to B##), each slot read from
    ``role_parts`` the first time."""
    from engine.analysis import role_in_key
    from engine.identify.naming import spelt
    from engine.identify.roles import key_roles, role_head
    from engine.identify.vocabulary import VOCABULARY
    for name in ("B", "G", "Eb", "G#m", "Em", "Cm"):
        key = parse_key(name)
        roles = key_roles(key)
        every = name in ("B", "G#m")
        for at in range(35) if every else sorted(set(roles.roots)):
            for entry in range(0, len(VOCABULARY), 1 if every else 7):
                chord = spelt(at, entry)
                read = role_in_key(chord.spelled, chord.mask, VOCABULARY[entry].labels,
                                   chord.quality, key)
                head = role_head(chord, roles)
                assert (head["numeral"], head["function"]) == (read.numeral, read.function), \
                    (name, chord.symbol)
                assert head == {**chord.head, "numeral": read.numeral,
                                "function": read.function}
