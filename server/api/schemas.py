"""The one schema table: every operation's route, MCP tool name, description and JSON Schemas.

REST validation (``server.api.calls``), ``GET /openapi.json`` and the MCP tools all read
``OPERATIONS``, so the documented, validated and declared shapes cannot drift apart. The engine
function is looked up by name when it is called, so this module imports before every operation
has landed in ``engine``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import jsonschema

import engine
from engine.analysis import TUNING_RANGE
from engine.compose import MAX_SECTIONS as COMPOSE_MAX_SECTIONS
from engine.compose import OPERATIONS as COMPOSE_OPERATIONS
from engine.identify import MAX_NOTES
from engine.requests import MAX_PREVIOUS, MAX_PROGRESSION, MAX_PROMPT, MAX_SYMBOL

JSON = dict[str, Any]
EngineFunction = Callable[[JSON], JSON]

# ---------------------------------------------------------------- building blocks


def _str(description: str, **extra: Any) -> JSON:
    return {"type": "string", "description": description, **extra}


def _int(description: str, **extra: Any) -> JSON:
    return {"type": "integer", "description": description, **extra}


def _num(description: str, **extra: Any) -> JSON:
    return {"type": "number", "description": description, **extra}


def _array(items: JSON, description: str, **extra: Any) -> JSON:
    return {"type": "array", "items": items, "description": description, **extra}


def _object(properties: JSON, required: list[str] | None = None, description: str = "",
            **extra: Any) -> JSON:
    schema: JSON = {"type": "object"}
    if description:
        schema["description"] = description
    schema["properties"] = properties
    if required:
        schema["required"] = required
    schema.update(extra)
    return schema


def _request(properties: JSON, required: list[str] | None = None, description: str = "",
             **extra: Any) -> JSON:
    """A request body: an object of these fields and no other (API.md 0: a field the operation
    does not take is ``invalid_request`` naming it; the engine says so first)."""
    return _object(properties, required, description, additionalProperties=False, **extra)


def _or_null(schema: JSON) -> JSON:
    """An optional request field: null is read as absent (``engine.requests``), so the schema
    says so too, and REST may leave validation to the engine (``Operation.engine_checks``)."""
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    kind = schema["type"]
    nullable = {**schema, "type": [*(kind if isinstance(kind, list) else [kind]), "null"]}
    if "enum" in schema:
        nullable["enum"] = [*schema["enum"], None]
    return nullable


NULLABLE_STR = {"type": ["string", "null"]}

# What the engine refuses is refused here too, and the other way round (property-tested in
# tests/test_server_schemas.py): a blank string, a progression of bar lines only, an integer
# outside 64 bits. JSON Schema's "integer" admits 4.0, and so do the engine's readers.
NOT_BLANK = r"\S"
# Python's str.strip and str.split (the engine's) take these for spaces besides what \s is in
# every regex dialect.
SPACE = r"\s\x1c-\x1f\x85"
INT64 = {"minimum": -(2**63), "maximum": 2**63 - 1}

# A chord symbol starts with its root letter (after spaces): the engine refuses anything else,
# so the schema says so and a schema-driven client sends no '0' (issue 35, schemathesis).
ROOT_FIRST = rf"^[{SPACE}]*[A-G]"
CHORD = _str("A chord symbol, e.g. 'Dm7b5', 'G7(b9,#11)', 'C/E': a root A-G first.",
             minLength=1, maxLength=MAX_SYMBOL, pattern=ROOT_FIRST)
KEY = _or_null(_str("The key: a tonic ('C', 'F#', 'Bb'); minor as 'Cm', 'C-' or 'C minor'. "
                    "Modes are refused. Default 'C'.", maxLength=MAX_SYMBOL))
KEY_CONTEXT = {**KEY, "description": "Alias of 'key'."}
# A chord is what holds a character other than whitespace and '|': the engine splits the string
# form on both and trims list items, so " |" in a list is a bar line too.
NOT_ONLY_BAR_LINES = r"[^\s|]"
# Each chord of a progression starts with its root letter (or is NC / N.C. where the operation
# takes one): the string form's words, split at spaces and '|' as the engine splits them, and
# each item of the list form (a '|' item is a bar line). Words are separated by at least one
# space or bar line, so the expression never backtracks over a word.
_WORD = rf"(?:[A-G]|N)[^{SPACE}|]*"
CHORD_WORDS = rf"^[{SPACE}|]*{_WORD}(?:[{SPACE}|]+{_WORD})*[{SPACE}|]*$"
# conduct's list items hold a bar or more: the first word of each, if any, starts with a root
# (schemathesis's coverage phase stalled on the whole-item expression)
FIRST_WORD = rf"^[{SPACE}|]*(?:[A-G]|N|$)"
CHORD_ITEM = rf"^[{SPACE}]*(?:[A-G]|N|\|[{SPACE}]*$)"
PROGRESSION_STRING: JSON = {"type": "string", "pattern": CHORD_WORDS}


def _progression_list(item_pattern: str) -> JSON:
    return {"type": "array", "items": {"type": "string", "pattern": item_pattern},
            "minItems": 1, "maxItems": MAX_PROGRESSION,
            "contains": {"pattern": NOT_ONLY_BAR_LINES}}


PROGRESSION = {
    "description": "Chord symbols: one string, whitespace separated ('|' bar lines are "
                   f"ignored), or a list of symbols; at most {MAX_PROGRESSION} chords.",
    "anyOf": [PROGRESSION_STRING, _progression_list(CHORD_ITEM)],
}

SCALE = _object({
    "name": _str("Scale name, lower case ('dorian', 'altered', ...)."),
    "character": _str("One sentence on the scale's sound."),
    "priority": {"type": "string", "enum": ["primary", "secondary"]},
    "notes": _array({"type": "string"}, "Spelled notes starting on the chord's root."),
    "avoid": _array({"type": "string"}, "Avoid notes over this chord."),
}, ["name", "character", "priority", "notes", "avoid"])
SCALES = _array(SCALE, "Scales for improvising over the chord, primary first.")

# The fields resolve and analyze share, in the contract's order.
CHORD_FIELDS: JSON = {
    "chord": _str("The symbol as given."),
    "root": _str("Spelled root."),
    "quality": _str("Canonical quality suffix ('' is the major triad)."),
    "name": _str("Plain-English name."),
    "bass": {**NULLABLE_STR, "description": "Bass note of a slash chord, else null."},
    "intervals": _array({"type": "string"}, "Degree labels from the root ('1', 'b3', ...)."),
    "semitones": _array({"type": "integer"}, "Semitones above the root."),
}

# ---------------------------------------------------------------- requests

CHART = {
    "description": "A chart to read in context, in place of 'chord': a string with '|' bar "
                   "lines and spaces between a bar's chords, optionally with section labels "
                   "and '||' ('A: Dm7 G7 | Cmaj7 || B: ...'), or a list of bars (each a list "
                   f"of symbols or a string of them) or of symbols (a chord a bar); at most "
                   f"{MAX_PROGRESSION} chords. 'key' is then optional: found from the chart.",
    "anyOf": [{"type": "string", "pattern": NOT_ONLY_BAR_LINES},
              {"type": "array", "minItems": 1, "maxItems": MAX_PROGRESSION,
               "items": {"anyOf": [{"type": "string"},
                                   {"type": "array", "items": {"type": "string"}}]}}],
}
ANALYZE_REQUEST = _request({
    "chord": _or_null({**CHORD, "description": "One chord symbol to analyze, e.g. 'Dm7b5'. "
                       "Give either 'chord' or 'progression'."}),
    "progression": _or_null(CHART),
    "key": {**KEY, "description": KEY["description"] + " With a progression, absent: the "
            "key is found from the whole chart."},
    "keyContext": KEY_CONTEXT,
    "detail": _or_null(_str("With a progression: 'full' (every chord with all the "
                            "single-chord fields) or 'summary' (each chord's numeral and "
                            "primary scale in context). Default 'full' on REST and "
                            "Python, 'summary' for the MCP tool.", enum=["full", "summary"])),
}, oneOf=[  # exactly one of them, null being absent
    {"required": ["chord"], "properties": {"chord": {"type": "string"}}},
    {"required": ["progression"], "properties": {"progression": {"not": {"type": "null"}}}},
])

RESOLVE_REQUEST = _request({
    "chord": CHORD,
    "octave": _or_null(_int("Octave of the root (C4 = MIDI 60); every note must stay within "
                            "MIDI 0..127 (B#-2 is MIDI 0, Cb10 already 131). Default 4.",
                            minimum=-2, maximum=9)),
    "tuning": _or_null(_num("Frequency of A4 in Hz. Default 440.", minimum=TUNING_RANGE[0],
                            maximum=TUNING_RANGE[1])),
}, ["chord"])

IDENTIFY_NOTE = {"type": ["string", "integer"], "minimum": 0, "maximum": 127}
IDENTIFY_REQUEST = _request({
    "notes": _or_null(_array(IDENTIFY_NOTE, "The notes: names with or without octave ('E3', "
                             "'Bb', 'F#4') or MIDI numbers (integers 0-127). With every note "
                             "pitched (an octave or a MIDI number), the lowest is the bass. Give "
                             "either 'notes' or 'pcs'.", minItems=1, maxItems=MAX_NOTES)),
    "pcs": _or_null(_array({"type": "integer", "minimum": 0, "maximum": 11},
                           "Pitch classes 0-11 (C = 0), in place of 'notes'.", minItems=1,
                           maxItems=MAX_NOTES)),
    "bass": _or_null({**IDENTIFY_NOTE, "description": "The bass note (a name or a MIDI "
                      "number); it sounds with the notes. Default: the lowest note when every "
                      "note has an octave, else none."}),
    "key": {**KEY, "description": "The key, for each reading's numeral and function, and to "
            "read a rootless voicing on its dominant ('B D F A' in C is G9). Default: none."},
    "keyContext": KEY_CONTEXT,
    "midi": _or_null(_str("A Standard MIDI File, base64 (at most 1 MiB), in place of 'notes': "
                          "read as music (drums ignored), answered as a chart.")),
    "musicxml": _or_null(_str("A MusicXML file's text (partwise, at most 1 MiB), in place of "
                              "'notes': read by its notes, or by its <harmony> symbols where "
                              "it has none.")),
}, description="The notes of one chord to name, or a file to read as a chart.")

VOICING_STYLES = ["rootless", "bill_evans", "shell", "triad", "pad", "guide_tones",
                  "guide_third", "guide_seventh", "drop2", "drop3", "quartal"]
MIDI_NOTE = {"type": "integer", "minimum": 0, "maximum": 127}
# Base64 of a Standard MIDI File: it starts with 'MThd' ('TVRoZ' in base64); the alphabet and
# '=' only, with spaces and line breaks anywhere (MIME, PEM), which the engine leaves out.
_B64_GAP = r"[ \t\r\n]*"
SMF_BASE64 = ("^" + _B64_GAP + _B64_GAP.join("TVRoZ") + r"[A-Za-z0-9+/= \t\r\n]*$")

# Alternatives (chord or progression; render's three sources) are a top-level oneOf/anyOf here,
# for REST's validation and OpenAPI; the MCP tools list these schemas projected onto what every
# assistant accepts (``server.mcp.portable``: no top-level oneOf/anyOf, which the Anthropic API
# refuses), where they are optional properties the engine checks.
VOICING_REQUEST = _request({
    "chord": _or_null({**CHORD, "description": "One chord to voice, e.g. 'Cmaj7'. Give "
                       "either 'chord' or 'progression'."}),
    "progression": _or_null({**PROGRESSION, "description": str(PROGRESSION["description"]) +
                             " Voiced as a whole with the least total motion; give either "
                             "'chord' or 'progression'."}),
    "style": _or_null(_str("Voicing style. Default 'rootless'; any other name is refused.",
                           enum=VOICING_STYLES)),
    "previous": _or_null(_array({"type": ["string", "integer"]},
                                "The previous voicing, as note names with octave ('E3') or MIDI "
                                "numbers, to lead from with the least motion.",
                                maxItems=MAX_PREVIOUS)),
    "range": _or_null(_array(MIDI_NOTE, "Lowest and highest MIDI note of the upper voices. "
                             "Default [48, 84], with shell and pad roots down to E2 (40), "
                             "and on to C2 (36) where a stepwise bass line walks on; a given "
                             "range bounds every note.",
                             minItems=2, maxItems=2)),
}, oneOf=[  # exactly one of them, null being absent
    {"required": ["chord"], "properties": {"chord": {"type": "string"}}},
    {"required": ["progression"], "properties": {"progression": {"not": {"type": "null"}}}},
])

TECHNIQUES = ["tritone_sub", "ii_v_insertion", "modal_interchange", "secondary_dominants",
              "dominant_chain", "coltrane_changes", "backdoor", "diminished_passing",
              "related_ii"]

REHARMONIZE_PROGRESSION = {
    **PROGRESSION,
    "description": "Chord symbols: one string with '|' bar lines (a bar's chords share it, the "
                   "first ones longer; section labels 'A:' and '||' allowed; without any '|' "
                   "each chord is a bar), or a list of symbols (a chord a bar); at most "
                   f"{MAX_PROGRESSION} chords, at most 4 in a bar.",
}

REHARMONIZE_KEY = {**KEY, "description": "The key: a tonic ('C', 'F#', 'Bb'); minor as 'Cm', "
                   "'C-' or 'C minor'. Modes are refused. Absent: the chart's key as the "
                   "progression analysis finds it (Autumn Leaves: 'Gm')."}

REHARMONIZE_REQUEST = _request({
    "progression": REHARMONIZE_PROGRESSION,
    "key": REHARMONIZE_KEY,
    "keyContext": KEY_CONTEXT,
    "techniques": _or_null(_array({"type": "string", "enum": TECHNIQUES},
                                  "Restrict to these techniques. Default: all.")),
}, ["progression"])

CONDUCT_REQUEST = _request({
    "prompt": _str("What to play, in English: style, tempo, key, form, feel, e.g. 'medium "
                   "swing blues in F, 24 bars, walking bass'.", minLength=1,
                   maxLength=MAX_PROMPT, pattern=NOT_BLANK),
    "durationSec": _or_null(_num("Length of the arrangement in seconds (5-900); the tempo is "
                                 "fitted.", minimum=5, maximum=900)),
    "progression": _or_null({**PROGRESSION,  # a list item may hold a bar or more
                             "anyOf": [PROGRESSION_STRING, _progression_list(FIRST_WORD)],
                             "description": "Your own changes to arrange ('|' marks bars)."}),
    "seed": _or_null(_int("Seed for the arrangement's choices (64-bit). Default 0.", **INT64)),
    "detail": _or_null(_str("'full': the result with the four lanes' note events and the MIDI "
                            "file; 'summary': without 'lanes' and 'midi' (a few KB). Default "
                            "'full' on REST and Python, 'summary' for the MCP tool.",
                            enum=["full", "summary"])),
}, ["prompt"])

RENDER_OPTIONS = {
    "format": _or_null(_str("Audio format. Default wav (or the type the Accept header prefers).",
                            enum=["wav", "flac", "mp3"])),
    "sampleRate": _or_null(_int("Samples per second. Default 44100.",
                                enum=[22050, 44100, 48000])),
    "channels": _or_null(_int("1 mono, 2 stereo (default).", enum=[1, 2])),
    "engine": _or_null(_str("Synthesiser: soundfont (the server's General MIDI SoundFont), basic "
                            "(built in) or auto (default: soundfont when one is installed).",
                            enum=["auto", "soundfont", "basic"])),
}
RENDER_REQUEST = _request({
    "prompt": _or_null(CONDUCT_REQUEST["properties"]["prompt"]),
    **{k: v for k, v in CONDUCT_REQUEST["properties"].items() if k not in ("prompt", "detail")},
    "arrangement": _or_null(_object({"midi": _str("Base64 SMF of the arrangement.",
                                                  pattern=SMF_BASE64)}, ["midi"],
                                    "A conduct result (its midi and conductor are read).")),
    "midi": _or_null(_str("Base64 of a Standard MIDI File, format 0 or 1.",
                          contentEncoding="base64", minLength=1, pattern=SMF_BASE64)),
    **RENDER_OPTIONS,
}, None, "Exactly one of: a conduct request (prompt), an arrangement (a conduct result), or "
    "midi.", anyOf=[{"required": ["prompt"]}, {"required": ["arrangement"]}, {"required": ["midi"]}])

SEARCH_REQUEST = _request({
    "pattern": _or_null(_str("Chord symbols ('Dm7 G7 Cmaj7', matched in every key) or roman "
                             "numerals ('ii7 V7 Imaj7', in songs whose key is known); '?' is "
                             "any one chord.", maxLength=4 * MAX_PROGRESSION)),
    "title": _or_null(_str("A part of the title, case- and accent-insensitive.",
                           maxLength=200)),
    "key": _or_null(_str("Only songs in this key ('F', 'Dm').", maxLength=MAX_SYMBOL)),
    "similarTo": _or_null(_str("A progression in chord symbols, or a song id: songs ranked by "
                               "how much of them moves like it.",
                               maxLength=4 * MAX_PROGRESSION)),
    "exact": _or_null({"type": "boolean",
                       "description": "The pattern's exact qualities too, not only their "
                                      "families. Default false."}),
    "limit": _or_null(_int("Results per page (1-100). Default 10.", minimum=1, maximum=100)),
    "offset": _or_null(_int("Results to skip. Default 0.", minimum=0, maximum=10**9)),
}, None, "At least one of pattern, title or similarTo.", anyOf=[
    {"required": [name], "properties": {name: {"type": "string", "pattern": rf"[^{SPACE}]"}}}
    for name in ("pattern", "title", "similarTo")])

COMPOSITION = {"type": "object", "description": "A composition (API.md 13): version, meta, "
               "sections, form, tracks. The client keeps it; the service stores nothing.",
               # its outline, as engine.compose.ir.check reads it first (the rest it checks)
               "required": ["version", "meta", "sections", "form", "tracks"],
               "properties": {"version": {"const": 1}, "meta": {"type": "object"},
                              "sections": {"type": "array", "maxItems": COMPOSE_MAX_SECTIONS},
                              "form": {"type": "array", "items": {"type": "string"}},
                              "tracks": {"type": "array"}}}
COMPOSE_REQUEST = _request({
    "composition": _or_null(COMPOSITION),
    "operations": _array({"type": "object", "properties": {"op": _str(
        ", ".join(COMPOSE_OPERATIONS) + ".", enum=list(COMPOSE_OPERATIONS))}, "required": ["op"]},
        "Operations applied in order (at most 64); each carries its own arguments.",
        minItems=1, maxItems=64),
    "seed": _or_null(_int("Seed of the arrangements' choices (64-bit).", **INT64)),
}, ["operations"], anyOf=[  # without a composition, the first operation creates one
    {"required": ["composition"], "properties": {"composition": {"type": "object"}}},
    {"properties": {"operations": {"prefixItems": [{"properties": {"op": {"const": "create"}}}]}}},
])

# ---------------------------------------------------------------- results

ANALYZE_RESULT = _object({
    "chord": CHORD_FIELDS["chord"],
    "key": _str("The key, canonical ('C', 'Cm')."),
    **{k: v for k, v in CHORD_FIELDS.items() if k != "chord"},
    "notes": _array({"type": "string"}, "Spelled notes, root first."),
    "pcs": _array({"type": "integer"}, "Pitch classes of the notes (C = 0)."),
    "degree": _int("Scale degree (1-7) of the root's letter in the key."),
    "numeral": _str("Roman numeral in jazz practice ('ii7', 'V7/V', 'bVImaj7')."),
    "inversion": {"type": ["integer", "null"],
                  "description": "0 root position, 1-3 for a bass on the 3rd/5th/7th, "
                                 "4-6 for one on the 9th/11th/13th, null for a non-chord bass."},
    "function": _str("Harmonic function with a qualifier ('dominant, tritone substitute of V7')."),
    "diatonic": {"type": "boolean", "description": "Every chord tone is in the key's scale."},
    "borrowed": {"type": "boolean", "description": "Taken from a parallel mode of the tonic."},
    "source": {**NULLABLE_STR, "description": "Where a non-diatonic chord comes from."},
    "scales": SCALES,
}, ["chord", "key", "root", "quality", "name", "bass", "intervals", "semitones", "notes", "pcs",
    "degree", "numeral", "inversion", "function", "diatonic", "borrowed", "source", "scales"])

RESOLVE_RESULT = _object({
    **CHORD_FIELDS,
    "notes": _array({"type": "string"}, "Note names with octave ('G4'), bass first."),
    "midi": _array(MIDI_NOTE, "MIDI numbers of the notes."),
    "frequencies": _array({"type": "number"}, "Frequencies in Hz (3 decimals)."),
    "scales": SCALES,
}, [*CHORD_FIELDS, "notes", "midi", "frequencies", "scales"])

IDENTIFY_READING = _object({
    "symbol": _str("The chord symbol, canonical ('Cmaj7/E')."),
    "root": _str("Spelled root."),
    "quality": _str("Canonical quality suffix ('' is the major triad)."),
    "bass": {**NULLABLE_STR, "description": "Bass of a slash reading, else null."},
    "inversion": {"type": ["integer", "null"], "description": "0 root position, 1..3 the "
                  "bass on the 3rd/5th/7th, 4..6 on the 9th/11th/13th, null a bass outside "
                  "the chord."},
    "rootless": {"type": "boolean", "description": "The root is not among the notes (a "
                 "rootless voicing: the bass player's note)."},
    "explains": _array({"type": "string"}, "The notes given that the reading names."),
    "omitted": _array({"type": "string"}, "Chord tones not given (a fifth, a rootless "
                      "voicing's root)."),
    "added": _array({"type": "string"}, "Notes given that the reading does not name (a "
                    "nearest reading of a set no chord names)."),
    "numeral": _str("With a key: the roman numeral, as analyze gives it."),
    "function": _str("With a key: the harmonic function, as analyze gives it."),
}, ["symbol", "root", "quality", "bass", "inversion", "rootless", "explains", "omitted",
    "added"])
IDENTIFY_RESULT = _object({
    "notes": _array({"type": "string"}, "The notes as given (names, or MIDI numbers as text)."),
    "bass": {**NULLABLE_STR, "description": "The bass read: 'bass', else the lowest note, "
             "else null."},
    "readings": _array(IDENTIFY_READING, "Up to five readings, best first, as musicians name "
                       "chords: root position before a slash reading, the bass deciding (C6 "
                       "over C, Am7 over A)."),
    "chart": _array(_array(_object({
        "symbol": _str("The chord."), "beat": _int("Its first beat in the bar (1-based)."),
        "beats": _int("Beats it lasts.")}, ["symbol", "beat", "beats"]), "A bar's chords."),
        "With a file: its bars, each a list of chords."),
    "analysis": {"type": "object", "description": "With a file: the chart in context, as "
                 "analyze answers a progression (key found, regions, brackets, cadences)."},
    "leadSheet": _str("With a file: the chart as text, four bars a line."),
}, ["notes", "bass", "readings"])

ONE_VOICING = _object({
    "chord": _str("The symbol as given."),
    "style": _str("The style used."),
    "notes": _array({"type": "string"}, "Note names with octave, lowest first."),
    "midi": _array(MIDI_NOTE, "MIDI numbers, lowest first."),
    "omitted": _array({"type": "string"}, "Chord tones left out."),
    "voiceLeading": _int("Semitones moved from 'previous' (0 without it)."),
    "guideTonesKept": {"type": ["boolean", "null"],
                       "description": "Third and seventh kept from the previous chord."},
}, ["chord", "style", "notes", "midi", "omitted", "voiceLeading", "guideTonesKept"])

VOICING_RESULT = {
    "type": "object",
    "description": "One voicing for 'chord', or 'voicings' for a 'progression'.",
    "anyOf": [
        ONE_VOICING,
        _object({
            "voicings": _array(ONE_VOICING, "One voicing per chord."),
            "totalVoiceLeading": _int("Total semitones moved across the progression."),
        }, ["voicings", "totalVoiceLeading"]),
    ],
}

CONTEXT_FIELDS: JSON = {
    "bar": _int("Bar (1-based)."),
    "beat": _num("Beat (1-based)."),
}
CHART_RESULT = _object({
    "key": _str("The key the chart is read in, canonical ('Eb', 'Cm')."),
    "keyFound": {"type": "boolean", "description": "The key was found from the chart (no "
                 "'key' given)."},
    "keyCandidates": _array(_object({"key": _str("A key."), "score": _num("Its confidence "
                            "(0-1).")}, ["key", "score"]), "The runners-up, best first."),
    "regions": _array(_object({
        "key": _str("The region's key ('C', 'Ebm')."), "start": _int("First bar."),
        "end": _int("Last bar."),
        "kind": {"type": "string", "enum": ["home", "tonicization", "modulation"],
                 "description": "The home key (the whole chart), a tonicization (under four "
                                "bars) or a modulation."}}, ["key", "start", "end", "kind"]),
        "Key regions: the home key, then each key a bracket arrives in away from home."),
    "brackets": _array(_object({
        "kind": {"type": "string", "enum": ["ii-V-I", "ii-V", "V-I"],
                 "description": "The idiom."},
        "bar": _int("Bar of its first chord."), "beat": _num("Beat of its first chord."),
        "chords": _array({"type": "string"}, "Its chords (the ii and the V, or the V)."),
        "target": {**NULLABLE_STR, "description": "The chord it meets."},
        "arrives": {"type": "string", "enum": ["resolved", "substitute", "backdoor",
                                               "deceptive"],
                    "description": "How its dominant meets the target."},
        "turnaround": {"type": "boolean", "description": "It leads from the end back to "
                                                        "the top."},
    }, ["kind", "bar", "beat", "chords", "target", "arrives", "turnaround"]),
        "ii-V and ii-V-I brackets, and lone dominants that resolve."),
    "cadences": _array(_object({
        "bar": _int("Bar of the arrival."), "beat": _num("Beat of the arrival."),
        "kind": {"type": "string", "enum": ["authentic", "tritone substitute", "backdoor"],
                 "description": "How the tonic is reached."},
        "chords": _array({"type": "string"}, "The chords, the tonic last."),
    }, ["bar", "beat", "kind", "chords"]), "Arrivals on the home tonic."),
    "form": {"type": ["object", "null"], "description": "A known form ('12-bar blues', "
             "'rhythm changes', or the labelled sections' letters such as 'AABA'), or null.",
             "properties": {"name": _str("The form."), "bars": _int("Bars.")}},
    "chords": _array({"type": "object", "description": "The single-chord fields of analyze, "
                      "with 'bar' and 'beat', then 'contextNumeral', 'contextFunction' and "
                      "'contextScales': the chord read where it goes.",
                      "properties": {**CONTEXT_FIELDS,
                                     "contextNumeral": _str("The numeral in context "
                                                            "('ii7/IV', 'V7/bII')."),
                                     "contextFunction": _str("The function in context."),
                                     "contextScales": SCALES,
                                     "contextScale": _str("detail 'summary': the primary "
                                                          "scale in context.")},
                      "required": ["bar", "beat", "chord", "contextNumeral"]},
                     "Every chord of the chart, in order."),
}, ["key", "keyFound", "keyCandidates", "regions", "brackets", "cadences", "form", "chords"])

REHARMONIZE_RESULT = _object({
    "key": _str("The key, canonical."),
    "progression": _array({"type": "string"}, "The input chords."),
    "alternatives": _array(_object({
        "technique": {"type": "string", "enum": TECHNIQUES},
        "progression": _array({"type": "string"}, "The new chords."),
        "changes": _array(_object({
            "index": _int("Position in the input."),
            "from": _str("The input chord."),
            "to": _array({"type": "string"}, "The chords that replace it."),
        }, ["index", "from", "to"]), "What changed."),
        "explanation": _str("One sentence naming the chords."),
        "bars": _array(_array(_object({
            "symbol": _str("The chord."),
            "beat": _num("Where it starts in the bar, 1-based (may be a half or quarter)."),
            "beats": _num("How long it lasts in this bar."),
        }, ["symbol", "beat", "beats"]), "One bar: its chords in order; their beats sum to "
                                         "4."),
            "The alternative on the input's bars (as many bars): an inserted chord shares its "
            "host's time, a Coltrane cycle the ii-V's; a chord held over a bar line is written "
            "again in the next bar."),
    }, ["technique", "progression", "changes", "explanation", "bars"]),
        "At most one per technique, in the fixed order of techniques (tritone_sub, "
        "ii_v_insertion, modal_interchange, secondary_dominants, dominant_chain, "
        "coltrane_changes, backdoor, diminished_passing, related_ii); each with its "
        "'technique', 'progression', 'changes' ({index, from, to}), 'explanation' and 'bars' "
        "(the alternative on the input's bars: each bar a list of {symbol, beat, beats} summing "
        "to 4 beats; an inserted chord shares its host's time, a Coltrane cycle the ii-V's). "
        "Every chord is spelled by its function in the key (Cbmaj7, bVI of Eb)."),
}, ["key", "progression", "alternatives"])

NOTE_EVENT = _object({
    "tick": {"type": "integer", "minimum": 0},
    "duration": {"type": "integer", "minimum": 0},
    "pitch": MIDI_NOTE,
    "velocity": MIDI_NOTE,
}, ["tick", "duration", "pitch", "velocity"])
LANE = _array(NOTE_EVENT, "Note events at 480 ticks per quarter.")

CONDUCT_RESULT = _object({
    "conductor": _object({
        "tempo": _num("Beats per minute."),
        "key": _str("Key."),
        "mode": _str("Mode."),
        "timeSignature": _str("Time signature, e.g. '4/4'."),
        "bars": _int("Number of bars."),
        "style": _str("Style."),
        "swing": _num("Share of each beat taken by its first eighth (0.5 straight)."),
        "durationSec": _num("Length in seconds."),
        "energy": _array({"type": "number", "minimum": 0, "maximum": 1}, "Energy per bar."),
        "ending": {"type": "string", "enum": ["tonic", "added", "open"],
                   "description": "How the piece ends: on the home tonic as written ('tonic'), "
                                  "with bars added after the user's progression to bring it "
                                  "home ('added'), or open where the progression ends ('open': "
                                  "the prompt asked for a vamp or a loop, or durationSec "
                                  "leaves no room for an ending)."},
        "understood": _array(_object({"words": _str("Words of the prompt."),
                                      "chose": _str("What they chose.")}, ["words", "chose"]),
                             "Each word of the direction that chose something, and what."),
        "approximated": _array(_object({"words": _str("Words of the prompt (or "
                                                      "'durationSec N')."),
                                        "instead": _str("What was done instead.")},
                                       ["words", "instead"]),
                               "Each word the band could not honour as asked, and what it "
                               "did instead; empty when none."),
    }, ["tempo", "key", "mode", "timeSignature", "bars", "style", "swing", "durationSec",
        "energy", "ending", "understood", "approximated"]),
    "chords": _array(_object({"bar": {"type": "integer"}, "beat": {"type": "number"},
                              "symbol": {"type": "string"}}, ["bar", "beat", "symbol"]),
                     "The changes played."),
    "leadSheet": _str("Chord symbols per bar, four bars a line."),
    "lanes": _object({"harmony": LANE, "pattern": LANE, "bass": LANE, "drums": LANE},
                     ["harmony", "pattern", "bass", "drums"]),
    "ppq": {"type": "integer", "const": 480},
    "midi": _str("Base64 of a Standard MIDI File, format 1.", contentEncoding="base64"),
}, ["conductor", "chords", "leadSheet", "ppq"], "With detail 'full' (REST's default) also "
    "'lanes' and 'midi'; with 'summary' (the MCP tool's default) without them.")

RENDER_RESULT = _object({
    "format": _str("wav, flac or mp3."),
    "sampleRate": _int("Samples per second."),
    "channels": _int("1 or 2."),
    "durationSec": _num("Length of the audio in seconds (the MIDI's plus the release tail)."),
    "engine": _str("The synthesiser that rendered: soundfont or basic."),
    "soundfont": {"type": ["string", "null"], "description": "The SoundFont's file name."},
    "sha256": _str("SHA-256 of the audio bytes, hex."),
    "audio": _str("Base64 of the audio file.", contentEncoding="base64"),
}, ["format", "sampleRate", "channels", "durationSec", "engine", "soundfont", "sha256", "audio"])

SEARCH_RESULT = _object({
    "total": _int("Songs found."),
    "results": _array(_object({
        "id": _str("The song's id (usable in similarTo)."),
        "title": _str("Title."), "composer": _str("Composer."),
        "key": {"type": ["string", "null"], "description": "Key, when known."},
        "source": _str("The file the song came from."),
        "score": _num("Occurrences of the pattern, and/or likeness (0-1)."),
        "matches": _array(_object({
            "section": _str("Section label."), "bar": _int("Bar (1-based, in the song)."),
            "beat": _num("Beat of the first chord (1-based)."),
            "chords": _array({"type": "string"}, "The chords matched, as written."),
            "numerals": _array({"type": ["string", "null"]},
                               "Their numerals in the song's key (null: key unknown)."),
        }, ["section", "bar", "beat", "chords", "numerals"]), "Where the pattern occurs."),
    }, ["id", "title", "composer", "key", "source", "score", "matches"]),
        "Songs, by score, then title, then id."),
}, ["total", "results"])

COMPOSE_RESULT = _object({
    "composition": COMPOSITION,
    "results": _array({}, "One result per operation (an export's result holds its formats)."),
}, ["composition", "results"])

ERROR = _object({
    "error": _object({
        "code": _str("Error code (API.md section 9)."),
        "message": _str("What went wrong."),
        "symbol": _str("The chord symbol that failed (invalid_chord)."),
        "index": _int("Position inside a progression (invalid_chord)."),
        "field": _str("The request field at fault (invalid_request)."),
        "retryAfter": _int("Seconds to wait (rate_limited, quota_exceeded)."),
    }, ["code", "message"]),
}, ["error"])

# ---------------------------------------------------------------- the table


@dataclass(frozen=True)
class Operation:
    """One engine operation as every surface sees it."""

    name: str                 # engine function name, e.g. "analyze"
    path: str                 # REST route, e.g. "/v2/analyze"
    tool: str                 # MCP tool name, e.g. "analyze_chord"
    description: str          # one sentence
    request_schema: JSON
    result_schema: JSON
    impl: EngineFunction | None = None  # tests inject a function; else engine.<name>
    # The engine refuses every request the schema refuses (property-tested in
    # tests/test_server_schemas.py), so REST skips jsonschema: 19 µs a call measured.
    engine_checks: bool = False
    # Answers kept per worker, by the request's exact bytes (0: none). The engine is
    # deterministic, so a kept answer is the same bytes it would compute; errors are never kept.
    cache: int = 0
    # The body cap of its route when it is not the service's 64 KiB (render, compose: 1 MiB).
    max_body: int | None = None
    # One of the tools of the hosted /mcp (API.md 8.1, and identify_chord, 17); the others are tools of the stdio
    # servers only (8.3) and REST routes.
    hosted_tool: bool = True
    # Marked x-unstable in OpenAPI (API.md 11): render and compose.
    unstable: bool = False

    @property
    def available(self) -> bool:
        """True once the engine function has landed (or one was injected)."""
        return self.impl is not None or callable(getattr(engine, self.name, None))

    @property
    def function(self) -> EngineFunction:
        """The engine function, looked up now (AttributeError while it has not landed)."""
        if self.impl is not None:
            return self.impl
        fn: EngineFunction = getattr(engine, self.name)
        return fn

    @cached_property
    def validator(self) -> jsonschema.protocols.Validator:
        """A compiled validator of ``request_schema`` (built once per process)."""
        cls = jsonschema.validators.validator_for(self.request_schema)
        cls.check_schema(self.request_schema)
        return cls(self.request_schema)


def _op(name: str, tool: str, description: str, request: JSON, result: JSON,
        **options: Any) -> Operation:
    return Operation(name, f"/v2/{name}", tool, description, request, result, **options)


LARGE_BODY = 1 << 20  # API.md 9: render and compose bodies may be 1 MiB


OPERATIONS: dict[str, Operation] = {op.name: op for op in (
    _op("analyze", "analyze_chord",
        "Analyze a chord in a key (roman numeral, function, borrowing, the scales to play), or "
        "a whole chart in context (key found, regions, ii-V brackets, cadences, form).",
        ANALYZE_REQUEST, {"type": "object", "description": "One chord's analysis, or with "
                          "'progression' the chart in context.",
                          "anyOf": [ANALYZE_RESULT, CHART_RESULT]},
        engine_checks=True, cache=4096),
    _op("resolve", "resolve_chord",
        "Spell a chord symbol: notes with octave, MIDI numbers, frequencies and scales.",
        RESOLVE_REQUEST, RESOLVE_RESULT, engine_checks=True, cache=4096),
    _op("identify", "identify_chord",
        "Name the chord some notes make: ranked chord symbols with root, bass and inversion, "
        "the notes each explains or leaves out, and with a key the numeral and function.",
        IDENTIFY_REQUEST, IDENTIFY_RESULT, engine_checks=True, max_body=LARGE_BODY),
    _op("voicing", "generate_voicing",
        "Voice a chord or a whole progression in a jazz style with the least voice motion.",
        VOICING_REQUEST, VOICING_RESULT, engine_checks=True),
    _op("reharmonize", "reharmonize",
        "Suggest reharmonizations of a progression, one per applicable jazz technique.",
        REHARMONIZE_REQUEST, REHARMONIZE_RESULT, engine_checks=True),
    _op("conduct", "conduct_band",
        "Arrange a prompt for a jazz band: form, changes, four MIDI lanes and a MIDI file.",
        CONDUCT_REQUEST, CONDUCT_RESULT, engine_checks=True),
    _op("render", "render_audio",
        "Render an arrangement (a prompt, a conduct result or a MIDI file) to audio.",
        RENDER_REQUEST, RENDER_RESULT, max_body=LARGE_BODY, hosted_tool=False, unstable=True),
    _op("search", "search_corpus",
        "Search a corpus of songs by chord pattern (any key), roman numerals, title or likeness.",
        SEARCH_REQUEST, SEARCH_RESULT, hosted_tool=False),
    _op("compose", "compose",
        "Apply composition operations (create, sections, form, reharmonize, voice, arrange, "
        "notes, transpose, export) to a composition the client keeps.",
        COMPOSE_REQUEST, COMPOSE_RESULT, max_body=LARGE_BODY, hosted_tool=False, unstable=True),
)}

BY_PATH: dict[str, Operation] = {op.path: op for op in OPERATIONS.values()}
BY_TOOL: dict[str, Operation] = {op.tool: op for op in OPERATIONS.values()}
