"""The request schemas of the schema table (``server.api.schemas``), one per operation."""

from __future__ import annotations

from engine.analysis import TUNING_RANGE
from engine.compose import MAX_SECTIONS as COMPOSE_MAX_SECTIONS
from engine.compose import OPERATIONS as COMPOSE_OPERATIONS
from engine.identify import MAX_NOTES
from engine.requests import MAX_PREVIOUS, MAX_PROGRESSION, MAX_PROMPT, MAX_SYMBOL
from server.api.schema_blocks import (
    CHORD,
    FIRST_WORD,
    INT64,
    KEY,
    KEY_CONTEXT,
    NOT_BLANK,
    NOT_ONLY_BAR_LINES,
    PROGRESSION,
    PROGRESSION_STRING,
    SPACE,
    _array,
    _int,
    _num,
    _object,
    _or_null,
    _progression_list,
    _request,
    _str,
)

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
