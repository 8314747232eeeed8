"""``compose`` (API.md 13): apply a list of operations to a composition the client keeps.

    compose({"composition"?, "operations": [{"op": name, ...arguments}], "seed"?})
        -> {"composition", "results": [one per operation]}

Operations run in order on the result of the one before, on a private copy: a failing one stops
the request with its error, whose details add ``operation`` (its index) and the ``field``
inside it (``operations[2].section``), and nothing of the request is applied. ``OPERATIONS``
is the table of the ten: each one's function, a sentence and the JSON Schema of its arguments
(the MCP tools ``compose_<op>`` are built from it).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from engine.compose import chords_ops, music_ops
from engine.compose.export import FORMATS, analysis, chordpro, leadsheet, midi
from engine.compose.ir import Composition, check, new_composition
from engine.compose.ireal import ireal
from engine.compose.musicxml import musicxml
from engine.errors import HarmonyError, InvalidRequest
from engine.requests import require_object

MAX_OPERATIONS = 64
# The work of a request, bounded before and while it runs (issue 35: 64 exports of a 39k-event
# composition ran 206 s and answered ~0.9 GB). Every operation ends with a check of the whole
# composition (0.6 us an event: 64 operations on 39,000 events took 1.5 s): at most MAX_WORK
# events checked across a request's operations (~2.5 s); an export writes each note of the form as it plays (a section played
# 16 times, 16 times): at most MAX_EXPORT_NOTES notes a MIDI or MusicXML export (~32 us a
# note in MIDI; a samba arranged over the 1,024 bars a composition may hold plays ~80,000);
# each format exported once a request; and at most MAX_ANSWER_BYTES of exports and
# composition in the answer.
MAX_WORK = 4_000_000
MAX_EXPORT_NOTES = 120_000
MAX_ANSWER_BYTES = 16 << 20
Function = Callable[[Composition, dict[str, Any]], tuple[Composition, Any]]
EXPORTERS: dict[str, Callable[[Composition], Any]] = {
    "midi": midi, "musicxml": musicxml, "ireal": lambda comp: ireal(comp)[0],
    "chordpro": chordpro,
    "leadsheet": leadsheet, "analysis": analysis}


def export_formats(args: dict[str, Any]) -> list[str]:
    """The formats an export operation asks for (each at most once)."""
    formats = args.get("formats") or ["leadsheet"]
    if isinstance(formats, str):
        formats = [formats]
    if not isinstance(formats, list) or any(f not in EXPORTERS for f in formats):
        raise InvalidRequest(f"'formats' must list some of {', '.join(FORMATS)}",
                             field="formats")
    twice = next((f for i, f in enumerate(formats) if f in formats[:i]), None)
    if twice is not None:
        raise InvalidRequest(f"'formats' lists {twice} twice; each format is exported at "
                             "most once a request", field="formats")
    return formats


def export(comp: Composition, args: dict[str, Any]) -> tuple[Composition, dict[str, Any]]:
    formats = export_formats(args)
    if not comp["form"]:
        raise InvalidRequest("the composition has no form to export", field="formats")
    for fmt in formats:
        played = _played_notes(comp, melody_only=fmt == "musicxml")
        if fmt in ("midi", "musicxml") and played > MAX_EXPORT_NOTES:
            raise InvalidRequest(f"a {fmt} export of this form writes {played:,} notes (each "
                                 "section's notes as often as the form plays it); an export "
                                 f"writes at most {MAX_EXPORT_NOTES:,}", field="formats")
    result: dict[str, Any] = {}
    for fmt in formats:
        if fmt == "ireal":   # with what iReal Pro could not write as it was
            result["ireal"], result["irealChanges"] = ireal(comp)
        else:
            result[fmt] = EXPORTERS[fmt](comp)
    return comp, result


def _played_notes(comp: Composition, melody_only: bool) -> int:
    plays: dict[str, int] = {}
    for sid in comp["form"]:
        plays[sid] = plays.get(sid, 0) + 1
    return sum(len(rows) * plays.get(sid, 0) for track in comp["tracks"]
               if not melody_only or track["role"] == "melody"
               for sid, rows in track["events"].items())


def _events(comp: Composition) -> int:
    return sum(len(rows) for track in comp["tracks"] for rows in track["events"].values())


def _size(result: Any) -> int:
    """The bytes an operation's result adds to the answer (exports are what is large)."""
    if isinstance(result, dict):
        return sum(len(v) if isinstance(v, str) else len(orjson.dumps(v))
                   for v in result.values())
    return 0


def _copy(comp: Composition) -> Composition:
    """A private copy of a checked composition: through orjson, 10 x faster than
    ``copy.deepcopy`` (20 against 200 ms for 39,000 events) and the same plain JSON values;
    ``deepcopy`` for what orjson cannot write (the Python surface may hold anything)."""
    try:
        copied: Composition = orjson.loads(orjson.dumps(comp))
    except (orjson.JSONEncodeError, TypeError):
        return copy.deepcopy(comp)
    return copied


def _s(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _i(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "integer", "description": description, **extra}


def _n(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "number", "description": description, **extra}


SECTION = _s("A section id, e.g. 'A'.")
PROGRESSION = _s("Chord symbols, '|' between bars, e.g. 'Dm7 G7 | Cmaj7'.")
CHORDS = {"type": "array", "description": "Chords as {bar, beat, symbol} (1-based).",
          "items": {"type": "object", "properties": {
              "bar": _i("Bar, 1-based."), "beat": _n("Beat, 1-based."),
              "symbol": _s("Chord symbol.")}, "required": ["bar", "beat", "symbol"]}}
FORM = {"type": "array", "items": {"type": "string"},
        "description": "Section ids in the order they play, e.g. ['A', 'A', 'B', 'A']."}
META = {"title": _s("Title."), "composer": _s("Composer."),
        "key": _s("Key, e.g. 'F' or 'Dm'."), "tempo": _n("Beats per minute.", minimum=20,
                                                        maximum=400),
        "timeSignature": _s("e.g. '4/4'."), "style": _s("An arrangement style of conduct, "
                                                        "e.g. 'swing', 'bossa_nova'."),
        "swing": _n("Share of a beat its first eighth takes (0.5 straight).")}


@dataclass(frozen=True)
class Op:
    name: str
    function: Function
    description: str
    arguments: dict[str, Any]
    required: tuple[str, ...] = ()

    @property
    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": self.arguments}
        if self.required:
            schema["required"] = list(self.required)
        return schema


OPERATIONS: dict[str, Op] = {op.name: op for op in (
    Op("create", chords_ops.create, "Start a composition: title, key, tempo, time signature, "
       "style, and optionally labelled changes ('A: Dm7 G7 | Cmaj7 || B: ...') and a form.",
       {**META, "progression": PROGRESSION, "form": FORM}),
    Op("add_section", chords_ops.add_section, "Add a section (bars or a progression) and place "
       "it in the form after a section, once or more.",
       {"id": SECTION, "name": _s("Its name."), "bars": _i("Bars.", minimum=1, maximum=1024),
        "progression": PROGRESSION, "after": SECTION, "times": _i("Times in a row.",
                                                                   minimum=1, maximum=64),
        "timeSignature": _s("Its own time signature."), "tempo": _n("Its own tempo."),
        "key": _s("Its own key.")}, ("id",)),
    Op("set_chords", chords_ops.set_chords, "Replace a section's chords.",
       {"section": SECTION, "progression": PROGRESSION, "chords": CHORDS}, ("section",)),
    Op("set_form", chords_ops.set_form, "Set the form, and the tempo, time signature or key "
       "of the whole piece or of one section on.",
       {"form": FORM, "from": SECTION, "tempo": META["tempo"],
        "timeSignature": META["timeSignature"], "key": META["key"]}),
    Op("reharmonize", chords_ops.reharmonize, "Apply one reharmonization technique to a "
       "section or a range of its bars; the explanation is the result.",
       {"section": SECTION, "technique": _s("One of the techniques of reharmonize, e.g. "
                                            "'tritone_sub', 'backdoor'."),
        "bars": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                 "description": "[first, last] bars of the section."}},
       ("section", "technique")),
    Op("voice", music_ops.voice, "Write the harmony track of the named sections (default: "
       "all) in a voicing style, led smoothly across sections in form order.",
       {"sections": {"type": "array", "items": {"type": "string"},
                     "description": "Section ids."},
        "style": _s("A voicing style, e.g. 'rootless', 'drop2', 'shell'.")}),
    Op("arrange", music_ops.arrange, "Write pattern, bass and drums for a style over the form.",
       {"style": META["style"], "seed": _i("Seed of the arrangement's choices.")}),
    Op("add_notes", music_ops.add_notes, "Add notes (a melody, a fill) to a track of a "
       "section, in bar/beat or ticks.",
       {"section": SECTION, "track": _s("Track id (default: the role's name)."),
        "role": _s("melody (default), harmony, pattern, bass or drums."),
        "notes": {"type": "array", "description": "Notes: {bar, beat, duration (beats), "
                  "pitch, velocity} or [tick, duration, pitch, velocity]."}},
       ("section", "notes")),
    Op("transpose", chords_ops.transpose, "Transpose by semitones or to a key: chords "
       "respelled in the new key, notes moved.",
       {"semitones": _i("Semitones (-48..48).", minimum=-48, maximum=48),
        "key": _s("The new key.")}),
    Op("export", export, "Export as MIDI, MusicXML, an iReal Pro link, ChordPro, a lead sheet "
       "or a chord-by-chord analysis.",
       {"formats": {"type": "array", "items": {"type": "string", "enum": list(FORMATS)},
                    "description": "Formats to export (default leadsheet)."}}),
)}


def apply(comp: Composition | None, operations: list[Any]) -> tuple[Composition, list[Any]]:
    """Run ``operations`` on a copy of ``comp``; errors carry ``operation`` and ``field``.
    The request's work is bounded first (``MAX_WORK``: operations x events; each format
    exported once) and as it runs (the events the operations make, ``MAX_ANSWER_BYTES``)."""
    _bound(comp, operations)
    current = _copy(comp) if comp is not None else new_composition()
    results = []
    work = answer = 0
    for i, operation in enumerate(operations):
        try:
            if not isinstance(operation, dict):
                raise InvalidRequest("an operation is an object with 'op'", field="")
            name = operation.get("op")
            op = OPERATIONS.get(name) if isinstance(name, str) else None
            if op is None:
                raise InvalidRequest(f"'op' must be one of {', '.join(OPERATIONS)}", field="op")
            args = {k: v for k, v in operation.items() if k != "op"}
            current, result = op.function(current, copy.deepcopy(args))
            check(current)
            work += _events(current)
            if work > MAX_WORK:
                raise InvalidRequest(f"the operations so far checked {work:,} events (each "
                                     "operation checks every event of the composition); a "
                                     f"request checks at most {MAX_WORK:,}: send fewer "
                                     "operations a request")
            answer += _size(result)
            if answer > MAX_ANSWER_BYTES:
                raise InvalidRequest(f"the exports so far make {answer:,} bytes; an answer "
                                     f"holds at most {MAX_ANSWER_BYTES:,} bytes of them: "
                                     "export in separate requests")
        except HarmonyError as error:
            field = error.details.get("field")
            error.details["operation"] = i
            error.details["field"] = f"operations[{i}]" + (f".{field}" if field else "")
            if hasattr(error, "field"):
                error.field = error.details["field"]
            raise
        results.append(result)
    return current, results


def _bound(comp: Composition | None, operations: list[Any]) -> None:
    """Refuse before any work: more operations x events than ``MAX_WORK``, or a format
    exported twice."""
    try:
        events = _events(comp) if comp is not None else 0
    except (AttributeError, KeyError, TypeError):
        events = 0  # not a composition: the check refuses it, naming the field
    if len(operations) * events > MAX_WORK:
        raise InvalidRequest(f"{len(operations)} operations on a composition of {events:,} "
                             f"events check {len(operations) * events:,} events; a request "
                             f"checks at most {MAX_WORK:,} (operations x events): send fewer "
                             "operations a request", field="operations")
    exported: set[str] = set()
    for i, operation in enumerate(operations):
        if not isinstance(operation, dict) or operation.get("op") != "export":
            continue
        try:
            formats = export_formats(operation)
        except HarmonyError:
            continue  # refused with its index when the operation runs
        again = next((f for f in formats if f in exported), None)
        if again is not None:
            raise InvalidRequest(f"operations[{i}] exports {again} again; each format is "
                                 "exported at most once a request",
                                 field=f"operations[{i}].formats")
        exported.update(formats)


COMPOSE_FIELDS = ("composition", "operations", "seed")


def compose(request: Any) -> dict[str, Any]:
    req = require_object(request, COMPOSE_FIELDS)
    comp = req.get("composition")
    if comp is not None:
        try:
            check(comp)
        except HarmonyError as error:
            field = error.details.get("field")
            error.details["field"] = "composition" + (f".{field}" if field else "")
            raise
    operations = req.get("operations")
    if not isinstance(operations, list) or not operations:
        raise InvalidRequest("field 'operations' must be a non-empty list", field="operations")
    if len(operations) > MAX_OPERATIONS:
        raise InvalidRequest(f"at most {MAX_OPERATIONS} operations a request",
                             field="operations")
    if comp is None and (not isinstance(operations[0], dict)
                         or operations[0].get("op") != "create"):
        raise InvalidRequest("without a composition the first operation must be 'create'",
                             field="composition")
    seed = req.get("seed")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InvalidRequest("field 'seed' must be an integer", field="seed")
        operations = [{"seed": seed, **o} if isinstance(o, dict) and o.get("op") == "arrange"
                      else o for o in operations]
    final, results = apply(comp, operations)
    return {"composition": final, "results": results}
