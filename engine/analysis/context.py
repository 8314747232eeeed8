"""A chart read in context (API.md 3.1, docs/analysis.md "A progression in context"): its key
(given, or found from the whole chart by ``keyfind``), its ii-V and ii-V-I brackets and how
each arrives, the key regions they make (tonicizations, modulations), the cadences home, the
form when it is a known one, and every chord's reading where it goes.

The idioms are data: ``ARRIVALS`` (how a bracket's dominant meets its target), ``FORMS``
(each form's landmarks, bar -> root above the tonic); one scan of the chart matches them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.analysis.chart import Chart, Placed
from engine.analysis.grid import FLAT_ROMAN, quality_class
from engine.analysis.keyfind import ChartChord, chart_keys, is_dominant, scale_weights
from engine.analysis.operations import analyze_chord, numeral_mark, primary_scale, role_of
from engine.analysis.readings import heard_as
from engine.analysis.scales import SCALES, chord_scales, kept_scales
from engine.chords import Chord, Key, parse_key, transpose_mask

# (target root - dominant root) % 12 -> how a dominant meets the chord after it
ARRIVALS = {5: "resolved", 11: "substitute", 2: "backdoor"}
# a form: its length in bars and its landmarks (bar -> root above the tonic, any one of)
FORMS: dict[str, tuple[tuple[int, ...], dict[int, tuple[int, ...]]]] = {
    "12-bar blues": ((12, 24), {1: (0,), 5: (5,), 7: (0, 4), 9: (7, 2)}),
    "rhythm changes": ((32,), {1: (0,), 17: (4,), 19: (9,), 21: (2,), 23: (7,)}),
}
# a chord in a summary: where it is, what it is, its numeral in context (and the primary scale
# in context, ``contextScale``); ~80 bytes a chord, so a 36-bar chart stays under 8 KB
SUMMARY_FIELDS = ("bar", "beat", "chord", "contextNumeral")
RUNNERS_UP = 3         # keyCandidates: the keys after the chart's
MODULATION_BARS = 4     # a region this long or longer is a modulation, shorter a tonicization


def _minor_ii(chord: Chord) -> bool:
    return "b3" in chord.intervals and "7" not in chord.intervals


def _tonic_like(chord: Chord) -> bool:
    return not is_dominant(chord) and ("3" in chord.intervals or "b3" in chord.intervals) \
        and not ("b5" in chord.intervals and "b3" in chord.intervals)


@dataclass(frozen=True)
class Bracket:
    kind: str               # ii-V-I, ii-V, V-I
    start: int              # index of its first chord
    dominant: int           # index of its dominant (the first, where it is held)
    held: int               # index of the dominant's last chord where it is held
    target: int | None      # index of the chord it meets (the first, across the end)
    arrives: str            # resolved, substitute, backdoor, deceptive
    turnaround: bool        # it leads from the end back to the top


def analyze_chart(chart: Chart, key: Key | None, summary: bool = False) -> dict[str, Any]:
    """The result of API.md 3.1 for a chart (``key`` None: found); ``summary``: each chord
    as ``SUMMARY_FIELDS`` and its primary context scale's name."""
    placed = chart.chords
    heard = [heard_as(p.chord) for p in placed]
    readings = chart_keys([ChartChord(p.bar, p.beat, h) for p, h in zip(placed, heard,
                                                                         strict=True)],
                          best=1 + RUNNERS_UP)
    found = key is None
    if key is None:
        key = parse_key(readings[0].name)
    runners = [r for r in readings if r.name != key.name][:RUNNERS_UP]
    brackets = find_brackets(heard)
    form = _form(chart, heard, key)
    # each chord's bracket: a dominant has one, and so has the ii before it (held or not)
    at = {j: b for b in brackets for j in range(b.start, b.held + 1)}
    entries = [_entry(i, p, key, heard, at.get(i), _blues_motion(i, heard, form))
               for i, p in enumerate(placed)]
    if summary:
        entries = [{**{f: e[f] for f in SUMMARY_FIELDS},
                    "contextScale": e["contextScales"][0]["name"]} for e in entries]
    return {
        "key": key.name,
        "keyFound": found,
        "keyCandidates": [{"key": r.name, "score": r.confidence} for r in runners],
        "regions": _regions(chart, heard, brackets, key),
        "brackets": [_bracket_dict(b, placed) for b in brackets],
        "cadences": _cadences(brackets, placed, heard, key),
        "form": None if form is None else {"name": form, "bars": chart.bars},
        "chords": entries,
    }


class InContext(NamedTuple):
    """What the voicing reads of a chord in its chart (``in_context``)."""

    scale: str          # the primary scale in context (``contextScales[0]`` of analyze)
    mask: int           # its pitch classes, absolute, on the root of the chord as heard
    arrival: bool       # a dominant before it resolves to it (down a fifth, or as a subV)
    phrase: bool        # a phrase starts on it (``phrase_starts``)


def in_context(chart: Chart, key: Key | None = None) -> list[InContext]:
    """Per chord of ``chart`` (key None: found), the part of ``analyze_chart`` the voicing
    needs (API.md 5: colour tones agree with the primary scale in context; bill_evans keeps
    its register on an arrival), without building analyze's dicts."""
    placed = chart.chords
    heard = [heard_as(p.chord) for p in placed]
    if key is None:
        key = parse_key(chart_keys([ChartChord(p.bar, p.beat, h)
                                    for p, h in zip(placed, heard, strict=True)])[0].name)
    brackets = find_brackets(heard)
    form = _form(chart, heard, key)
    # each chord's bracket, as analyze_chart finds it
    at = {j: b for b in brackets for j in range(b.start, b.held + 1)}
    # an arrival: the chord a dominant resolves to, down a fifth or (its subV) a half step,
    # whatever its quality (the register holds into a Dm7b5 as into a Cmaj7)
    arrivals = {i + 1 for i in range(len(heard) - 1) if is_dominant(heard[i])
                and ARRIVALS.get((heard[i + 1].root.pc - heard[i].root.pc) % 12)
                in ("resolved", "substitute")}
    phrases = phrase_starts(chart, heard, brackets, key)
    out = []
    for i, p in enumerate(placed):
        _, _, hint = _in_context(i, key, heard, at.get(i), _blues_motion(i, heard, form))
        if hint is None:
            name = primary_scale(p.chord, key)
        else:
            name = kept_scales(heard[i], quality_class(heard[i]), hint, False)[0]["name"]
        out.append(InContext(name, transpose_mask(SCALES[name].mask, heard[i].root.pc),
                             i in arrivals, i in phrases))
    return out


def phrase_starts(chart: Chart, heard: Sequence[Chord], brackets: Sequence[Bracket],
                  home: Key) -> set[int]:
    """The chords a phrase starts on: the first of each section of the chart, and the first
    after each cadence home (``_cadence_brackets``), once its arrival has been held
    (``Dm7 G7 | Cmaj7 | Cmaj7 | Em7``: the Em7). Where a pianist may move his register
    (docs/voicing.md)."""
    first = _held_from(heard)
    starts = {i for i, p in enumerate(chart.chords)
              for s in chart.sections if p.bar == s.first_bar
              and (i == 0 or chart.chords[i - 1].bar < s.first_bar)}
    for b in _cadence_brackets(brackets, heard, home):
        assert b.target is not None
        after = b.target + 1
        while after < len(heard) and first[after] == first[b.target]:
            after += 1
        if after < len(heard):
            starts.add(after)
    return starts


def _blues_motion(i: int, heard: Sequence[Chord], form: str | None) -> bool:
    """Chord ``i`` is a blues's I7: the form is a blues, or it moves to IV7 (API.md 3.1)."""
    if form is not None and "blues" in form:
        return True
    following = heard[(i + 1) % len(heard)]
    return is_dominant(following) and (following.root.pc - heard[i].root.pc) % 12 == 5


def find_brackets(heard: Sequence[Chord]) -> list[Bracket]:
    """Every dominant with what it meets: with the minor ii a fourth below it before it, a
    ii-V (ii-V-I when it resolves); alone, a V-I when it resolves (or a substitute's). A chord
    held over several bars counts once (``Dm7 | Dm7 | G7 | G7 | C``: one ii-V-I)."""
    n = len(heard)
    first = _held_from(heard)
    out = []
    for i, chord in enumerate(heard):
        if not is_dominant(chord) or first[i] != i:
            continue
        end = i
        while end + 1 < n and first[end + 1] == i:
            end += 1
        t = end + 1 if end + 1 < n else (0 if n > 2 and first[0] != first[i] else None)
        has_ii = i > 0 and _minor_ii(heard[i - 1]) and \
            (chord.root.pc - heard[i - 1].root.pc) % 12 in (5, 11)
        arrives = "deceptive"
        if t is not None:
            arrives = ARRIVALS.get((heard[t].root.pc - chord.root.pc) % 12, "deceptive")
            if arrives != "deceptive" and not _tonic_like(heard[t]) and not is_dominant(heard[t]):
                arrives = "deceptive"
        if not has_ii and arrives not in ("resolved", "substitute"):
            continue  # a lone dominant that goes nowhere expected: no bracket
        if has_ii:
            kind = "ii-V-I" if arrives in ("resolved", "substitute", "backdoor") \
                and t is not None and not is_dominant(heard[t]) else "ii-V"
        else:
            kind = "V-I"
        out.append(Bracket(kind, first[i - 1] if has_ii else i, i, end, t, arrives,
                           t is not None and t < i))
    return out


def _held_from(heard: Sequence[Chord]) -> list[int]:
    """For each chord, the index where the same chord (same symbol) began to be held."""
    first: list[int] = []
    for i, chord in enumerate(heard):
        held = i > 0 and chord.symbol == heard[i - 1].symbol
        first.append(first[i - 1] if held else i)
    return first


def _bracket_dict(b: Bracket, placed: Sequence[Placed]) -> dict[str, Any]:
    chords = [placed[i].symbol for i in range(b.start, b.dominant + 1)]
    return {"kind": b.kind, "bar": placed[b.start].bar, "beat": placed[b.start].beat,
            "chords": chords, "target": None if b.target is None else placed[b.target].symbol,
            "arrives": b.arrives, "turnaround": b.turnaround}


def _key_of_chord(chord: Chord) -> Key:
    return parse_key(chord.root.name + ("m" if "b3" in chord.intervals else ""))


def _regions(chart: Chart, heard: Sequence[Chord], brackets: Sequence[Bracket],
             home: Key) -> list[dict[str, Any]]:
    """The home key over the whole chart, then each key a bracket arrives in away from home:
    from the bracket's first chord through the chords that stay in that key's scale."""
    placed = chart.chords
    spans: list[tuple[str, int, int]] = []
    for b in brackets:
        if b.target is None or b.turnaround or b.arrives == "deceptive" \
                or not _tonic_like(heard[b.target]):
            continue
        local = _key_of_chord(heard[b.target])
        if local.tonic.pc == home.tonic.pc and local.mode == home.mode:
            continue
        following = heard[b.target + 1] if b.target + 1 < len(heard) else None
        if following is not None and is_dominant(following) and \
                (following.root.pc - local.tonic.pc) % 12 == 5:
            continue  # the target is the ii of the next ii-V: passed through, not a key
        weights, home_weights = scale_weights(local.mode), scale_weights(home.mode)
        last = b.target
        while last + 1 < len(heard):
            tones = heard[last + 1].pcs[:3]
            if not all(weights[(pc - local.tonic.pc) % 12] > 0 for pc in tones) or \
                    all(home_weights[(pc - home.tonic.pc) % 12] > 0 for pc in tones):
                break  # outside the local key, or back in the home key's
            last += 1
        start, end = placed[b.start].bar, placed[last].bar
        if spans and spans[-1][0] == local.name and start <= spans[-1][2] + 1:
            spans[-1] = (local.name, spans[-1][1], max(end, spans[-1][2]))
        else:
            spans.append((local.name, start, end))
    regions = [{"key": home.name, "start": 1, "end": chart.bars, "kind": "home"}]
    regions += [{"key": name, "start": s, "end": e,
                 "kind": "modulation" if e - s + 1 >= MODULATION_BARS else "tonicization"}
                for name, s, e in spans]
    return regions


def _cadences(brackets: Sequence[Bracket], placed: Sequence[Placed], heard: Sequence[Chord],
              home: Key) -> list[dict[str, Any]]:
    """Arrivals on the home tonic: ii-V-I or V-I, plain, by the tritone substitute or by the
    backdoor."""
    out = []
    for b in _cadence_brackets(brackets, heard, home):
        assert b.target is not None
        kind = {"resolved": "authentic", "substitute": "tritone substitute",
                "backdoor": "backdoor"}[b.arrives]
        out.append({"bar": placed[b.target].bar, "beat": placed[b.target].beat, "kind": kind,
                    "chords": [placed[i].symbol for i in range(b.start, b.target + 1)]})
    return out


def _cadence_brackets(brackets: Sequence[Bracket], heard: Sequence[Chord],
                      home: Key) -> list[Bracket]:
    """The brackets that arrive on the home tonic (``_cadences``)."""
    out = []
    for b in brackets:
        if b.target is None or b.arrives == "deceptive" or b.turnaround:
            continue
        target = heard[b.target]
        if target.root.pc != home.tonic.pc or not _tonic_like(target) or \
                ("b3" in target.intervals) != (home.mode == "minor"):
            continue
        out.append(b)
    return out


def _form(chart: Chart, heard: Sequence[Chord], key: Key) -> str | None:
    """A known form by its landmarks (``FORMS``), else the labelled sections' letters
    (``AABA``, ``ABAC``) when the chart named them, else None."""
    first_in_bar: dict[int, Chord] = {}
    for p, h in zip(chart.chords, heard, strict=True):
        first_in_bar.setdefault(p.bar, h)
    for name, (lengths, marks) in FORMS.items():
        if chart.bars not in lengths:
            continue
        if all(b in first_in_bar and (first_in_bar[b].root.pc - key.tonic.pc) % 12 in roots
               for b, roots in marks.items()):
            return name
    labels = [s.label for s in chart.sections]
    if chart.labelled and 2 <= len(labels) <= 8 and all(len(x) == 1 for x in labels):
        return "".join(labels)
    return None


def _entry(i: int, p: Placed, key: Key, heard: Sequence[Chord], bracket: Bracket | None,
           blues: bool) -> dict[str, Any]:
    """The single-chord fields, then the reading in context."""
    single = analyze_chord(p.chord, key)
    numeral, function, scale = _in_context(i, key, heard, bracket, blues)
    chord = heard[i]
    if numeral is None:
        numeral, function = single["numeral"], single["function"]
        scales = single["scales"]
    else:
        scales = chord_scales(chord, quality_class(chord), scale)
    return {"bar": p.bar, "beat": p.beat, **single, "contextNumeral": numeral,
            "contextFunction": function, "contextScales": scales}


def _in_context(i: int, key: Key, heard: Sequence[Chord], b: Bracket | None,
                blues: bool) -> tuple[str | None, str | None, str | None]:
    """(numeral, function, scale) where the context reads chord ``i`` (its bracket ``b``'s
    dominant or ii) otherwise than alone, else Nones."""
    chord = heard[i]
    if b is None:
        return None, None, None
    if b.dominant <= i <= b.held:
        if b.target is None or b.arrives == "deceptive":
            return None, None, None
        return _dominant_reading(chord, heard[b.target], key, b.arrives,
                                 blues and b.start == b.dominant)
    if b.arrives == "backdoor":
        return None, None, None  # iv7 of the backdoor ii-V, as read alone
    aimed = heard[b.target] if b.target is not None and \
        b.arrives in ("resolved", "substitute") else None
    return _ii_reading(chord, heard[b.dominant], aimed, key)


def _target_numeral(target: Chord, key: Key) -> str:
    """The numeral of the chord a bracket aims at, without its quality mark (``IV``, ``bII``,
    ``ii``)."""
    numeral = role_of(target, key).numeral
    mark = numeral_mark(target.quality)
    if "/" not in numeral and mark and numeral.endswith(mark):
        return numeral[: -len(mark)]
    if "/" not in numeral:
        return numeral
    offset = (target.root.pc - key.tonic.pc) % 12
    roman = FLAT_ROMAN[offset]
    return roman.lower() if "b3" in target.intervals else roman


def _dominant_reading(chord: Chord, target: Chord, key: Key, arrives: str, blues: bool
                      ) -> tuple[str | None, str | None, str | None]:
    """A dominant read by where it goes. ``blues``: the chart is a blues or the I7 moves to
    IV7 without a ii before it (an I7 with its ii, bar 4 of a bebop blues or bar 5 of rhythm
    changes, is V7/IV)."""
    role = role_of(chord, key)
    offset = (target.root.pc - key.tonic.pc) % 12
    if role.role == "blues" and blues:
        return None, None, None  # the blues's I7 (and its I7-IV7 motion) stays the tonic
    if offset == 0:
        return None, None, None  # into the tonic: the key's own dominant, as read alone
    if role.target_offset == offset and role.role in ("secondary", "tritone", "backdoor"):
        return None, None, None  # read alone as what it does here
    name = _target_numeral(target, key)
    mark = numeral_mark(chord.quality)
    minor_target = "b3" in target.intervals
    if arrives == "substitute":
        return (f"subV{mark}/{name}", f"dominant, tritone substitute of V7/{name}",
                "lydian dominant")
    if arrives == "backdoor":
        return (f"bVII{mark}/{name}", f"dominant, backdoor dominant of {name}",
                "lydian dominant")
    return (f"V{mark}/{name}", f"dominant, secondary dominant of {name}",
            "phrygian dominant" if minor_target else "mixolydian")


def _ii_reading(chord: Chord, dominant: Chord, aimed: Chord | None, key: Key
                ) -> tuple[str | None, str | None, str | None]:
    """The ii of a ii-V aimed away from the tonic: ``ii7/IV`` (Misty's bar 2), dorian;
    ``iiø7/ii``, locrian. The aim is the chord it arrives at, else the one a fifth below its
    V (a half step below a ii-subV's)."""
    aim = (dominant.root.pc - 7) % 12
    if (dominant.root.pc - chord.root.pc) % 12 == 11:
        aim = (dominant.root.pc - 1) % 12  # ii-subV
    offset = (aim - key.tonic.pc) % 12
    if offset == 0:
        return None, None, None  # the key's own ii-V: as read alone
    half = "b5" in chord.intervals
    if aimed is not None and aimed.root.pc == aim:
        target = _target_numeral(aimed, key)
    else:  # aimed at nothing heard: the numeral by its root, minor after a half-diminished ii
        roman = FLAT_ROMAN[offset]
        target = roman.lower() if half else roman
    mark = numeral_mark(chord.quality)
    return (f"ii{mark}/{target}", f"predominant, ii of the ii-V to {target}",
            "locrian" if half else "dorian")
