"""What each tool of the operation table tells a model (its MCP ``description``): what it is
for, when to choose it rather than its neighbours, its main arguments and one example call.
OpenAPI keeps the operation's one-sentence summary (``Operation.description``)."""

from __future__ import annotations

TOOL_GUIDES: dict[str, str] = {
    "analyze_chord": (
        "Analyze one chord symbol in a key, as a jazz theory teacher would: roman numeral "
        "('ii7', 'V7/V', 'subV7'), harmonic function, whether it is diatonic or borrowed, and "
        "the scales to improvise over it (primary first, with avoid notes). Choose it to explain "
        "a chord's role in a key; for the notes of a chord with octaves and frequencies use "
        "resolve_chord, for notes to play on a piano use generate_voicing. Arguments: 'chord' "
        "(required), 'key' (default C; minor as 'Cm'). Example: {\"chord\": \"Dm7b5\", "
        "\"key\": \"Cm\"}."),
    "resolve_chord": (
        "Spell a chord symbol: its notes with octave (root position, a slash chord's bass "
        "first), MIDI numbers, frequencies in Hz, intervals and scales. Choose it to know what "
        "notes a symbol contains or to check that a symbol parses; it needs no key (use "
        "analyze_chord for the chord's role in a key). Arguments: 'chord' (required), 'octave' "
        "of the root (default 4), 'tuning' (A4 in Hz, default 440). Example: {\"chord\": "
        "\"G13\", \"octave\": 3}."),
    "identify_chord": (
        "Name the chord some notes make, as a jazz musician would: ranked readings, each a "
        "chord symbol with its root, bass and inversion, the notes it explains, the chord "
        "tones left out (a fifth, a rootless voicing's root) and, with a key, its roman "
        "numeral and function. Choose it when you have notes (played on a keyboard, typed by "
        "a user, read from a score) and want the symbol; for the notes of a symbol use "
        "resolve_chord. Arguments: 'notes' (names with or without octave, or MIDI numbers; "
        "the lowest note is the bass when every note has an octave) or 'pcs' (pitch classes "
        "0-11); 'bass' and 'key' optional. Example: {\"notes\": [\"E3\", \"G3\", \"B3\", "
        "\"D4\"], \"key\": \"C\"}."),
    "generate_voicing": (
        "Voice a chord, or a whole progression with the least total voice motion, as a jazz "
        "pianist would: notes with octave and MIDI numbers, lowest first. Choose it for what "
        "to play; for the plain chord tones use resolve_chord. Give either 'chord' (one "
        "symbol) or 'progression' (space-separated symbols or a list), not both. 'style': "
        "rootless (default), bill_evans, shell, triad, pad, guide_tones, guide_third, "
        "guide_seventh (one-note lines by step), drop2, drop3, quartal (So What voicings on "
        "minor chords, fourths elsewhere; any other name is an error). Colour tones follow "
        "where each chord goes. 'previous' (notes to lead from), 'range' ([low, high] MIDI; "
        "default 48-84, shell/pad roots down to E2, C2 in a stepwise run). Example: "
        "{\"progression\": \"Dm7 G7 Cmaj7\", \"style\": \"drop2\"}."),
    "reharmonize": (
        "Suggest jazz reharmonizations of a chord progression, at most one per technique "
        "(tritone substitution, ii-V insertion, modal interchange, secondary dominants, "
        "dominant chains, Coltrane changes, backdoor dominant, diminished passing chords, the "
        "related ii before each dominant), each with the new chords, what changed, a "
        "one-sentence explanation and its bars (each chord with its beat and beats, on the "
        "input's bars). Techniques respect each chord's role: the ii of a ii-V, arrivals and "
        "passing diminished chords are kept; a modal vamp gets no cadence. Choose it to vary "
        "existing changes; to arrange or play them use conduct_band. Arguments: 'progression' "
        "(required: string with '|' bar lines, or a list, a chord a bar), 'key' (default: "
        "the chart's key as the analysis finds it), 'techniques' (restrict to these). Example: {\"progression\": \"Dm7 G7 | Cmaj7\", "
        "\"key\": \"C\"}."),
    "conduct_band": (
        "Arrange a plain-English direction for a jazz band (piano or guitar, bass, drums): "
        "style, tempo, key, form, the chords played bar by bar and a lead sheet. Choose it to "
        "create a backing track or hear a form; to explain chords use analyze_chord. On MCP "
        "the default 'detail' is 'summary' (no note events, no MIDI: a few KB); pass 'detail': "
        "'full' for the four lanes' note events and the base64 MIDI file (about 150 KB for two "
        "minutes). Arguments: 'prompt' (required), 'durationSec' (5-900), 'progression' (your "
        "own changes, '|' marks bars), 'seed'. conductor.understood lists what each word "
        "chose, conductor.approximated what could not be honoured and what was played "
        "instead. Example: {\"prompt\": \"medium swing blues in F, walking bass\", "
        "\"durationSec\": 60}."),
    "search_corpus": (
        "Search a corpus of song charts by chord pattern (matched in every key, '?' any one "
        "chord), roman numerals (in songs whose key is known), title or likeness to a "
        "progression; answers songs with where the pattern occurs. Choose it to find tunes "
        "that use a progression; to analyze a progression use analyze_chord or reharmonize. "
        "Arguments: at least one of 'pattern', 'title', 'similarTo'; 'key', 'exact', 'limit' "
        "(default 10), 'offset'. Example: {\"pattern\": \"ii7 V7 Imaj7\", \"limit\": 5}."),
}
