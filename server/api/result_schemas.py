"""The result schemas of the schema table (``server.api.schemas``), one per operation, and the
error body."""

from __future__ import annotations

from server.api.request_schemas import COMPOSITION, MIDI_NOTE, TECHNIQUES
from server.api.schema_blocks import (
    CHORD_FIELDS,
    JSON,
    NULLABLE_STR,
    SCALES,
    _array,
    _int,
    _num,
    _object,
    _str,
)

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
