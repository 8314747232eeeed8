"""The engine's operations as commands, JSON out: ``resolve``, ``identify``, ``analyze-file``,
``analyze``, ``voicing``, ``reharmonize`` and ``conduct``. The engine is imported when one of
them runs."""

from __future__ import annotations

import argparse
import base64
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.errors import HarmonyError
from engine.voicing import STYLE_NAMES
from server.cli import render as render_cli
from server.cli.common import os_error, print_json

Command = Callable[[argparse.Namespace], int]


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("resolve", help="spell a chord: notes, MIDI, frequencies")
    p.add_argument("chord")
    p.add_argument("--octave", type=int)
    p.add_argument("--tuning", type=float)
    p.set_defaults(run=_operation("resolve", lambda ns: {"chord": ns.chord, "octave": ns.octave,
                                                          "tuning": ns.tuning}))
    p = sub.add_parser("identify", help="name the chord some notes make: C E G Bb D -> C9")
    p.add_argument("notes", nargs="+")
    p.add_argument("--bass")
    p.add_argument("--key")
    p.set_defaults(run=_operation("identify", lambda ns: {
        "notes": [int(n) if n.isdigit() else n for n in ns.notes], "bass": ns.bass,
        "key": ns.key}))
    p = sub.add_parser("analyze-file", help="a MIDI or MusicXML file to an analysed chord chart")
    p.add_argument("file", type=Path)
    p.add_argument("--key")
    p.add_argument("--json", action="store_true")
    p.add_argument("--format", choices=["jsonl", "csv"], default="jsonl")
    p.set_defaults(run=_analyze_file)
    p = sub.add_parser("analyze", help="a chord in a key: numeral, function, scales")
    p.add_argument("chord")
    p.add_argument("--key")
    p.set_defaults(run=_operation("analyze", lambda ns: {"chord": ns.chord, "key": ns.key}))
    p = sub.add_parser("voicing", help="voice a chord or a progression")
    p.add_argument("chord", nargs="?")
    p.add_argument("--progression")
    p.add_argument("--style", type=_style, help="one of " + ", ".join(STYLE_NAMES)
                   + " (default rootless)")
    p.add_argument("--previous", help="previous voicing, e.g. 'E3 G3 B3 D4'")
    p.set_defaults(run=_operation("voicing", lambda ns: {
        "chord": ns.chord, "progression": ns.progression, "style": ns.style,
        "previous": ns.previous.split() if ns.previous else None}))
    p = sub.add_parser("reharmonize", help="reharmonizations of a progression")
    p.add_argument("progression", help="chords, '|' between bars (without any, a chord a bar)")
    p.add_argument("--key")
    p.add_argument("--technique", action="append", dest="techniques")
    p.set_defaults(run=_operation("reharmonize", lambda ns: {
        "progression": ns.progression, "key": ns.key, "techniques": ns.techniques}))
    p = sub.add_parser("conduct", help="arrange a prompt for a band (JSON, and --midi FILE)")
    p.add_argument("prompt")
    p.add_argument("--duration", type=float, help="length in seconds (5-900); the tempo is "
                                                  "fitted to it")
    p.add_argument("--progression", help="your own changes, '|' between bars")
    p.add_argument("--seed", type=int, help="seed of the arrangement's choices (default 0)")
    p.add_argument("--midi", type=Path, help="also write the Standard MIDI File here")
    p.add_argument("--audio", type=Path, help="also render it to this audio file "
                                              "(.wav, .flac or .mp3)")
    p.add_argument("--json", action="store_true",
                   help="with --midi or --audio, still print the whole answer as JSON (by "
                        "default the lead sheet and the conductor's facts)")
    render_cli.add_audio_options(p)
    p.set_defaults(run=_operation("conduct", lambda ns: {
        "prompt": ns.prompt, "durationSec": ns.duration, "progression": ns.progression,
        "seed": ns.seed}))


def _analyze_file(ns: argparse.Namespace) -> int:
    """``harmony analyze-file song.mid``: the lead sheet and the key (``--json``: the whole
    identify answer). A .mid/.midi/.smf file is sent as MIDI, anything else as MusicXML (a
    compressed .mxl unpacked: ``engine.identify.music_request``). A
    folder: one row per music file in it (JSONL or CSV, as ``harmony batch``), progress on
    stderr."""
    import engine
    from engine.identify import music_request

    if ns.file.is_dir():
        from server.cli.analyze_files import analyze_folder
        return analyze_folder(ns.file, ns.key, ns.format)
    try:
        data = ns.file.read_bytes()
    except OSError as exc:
        print(f"harmony: cannot read {ns.file}: {os_error(exc)}", file=sys.stderr)
        return 2
    try:
        request: dict[str, Any] = music_request(data, ns.file.name)
        if ns.key:
            request["key"] = ns.key
        result = engine.identify(request)
    except HarmonyError as exc:
        print_json(exc.to_dict())
        return 1
    if ns.json:
        print_json(result)
    else:
        analysis = result["analysis"]
        print(f"key: {analysis['key']}" + (f" (form {analysis['form']})" if analysis.get("form")
                                           else ""))
        print(result["leadSheet"])
    return 0


def _operation(name: str, request: Callable[[argparse.Namespace], dict[str, Any]]) -> Command:
    def run(ns: argparse.Namespace) -> int:
        import engine

        function = getattr(engine, name, None)
        if function is None:
            print(f"harmony: the {name} operation is not available yet", file=sys.stderr)
            return 2
        body = {k: _text(v) for k, v in request(ns).items() if v is not None}
        try:
            result = function(body)
        except HarmonyError as exc:
            print_json(exc.to_dict())
            return 1
        to_file = name == "conduct" and (ns.midi is not None or ns.audio is not None)
        if to_file and not ns.json:
            # the files hold the music: the terminal gets what a person reads
            print(result["leadSheet"])
            print_json(result["conductor"])
        else:
            print_json(result)
        if name == "conduct" and ns.midi is not None:
            try:
                ns.midi.write_bytes(base64.b64decode(result["midi"]))
            except OSError as exc:
                print(f"harmony: cannot write the MIDI file: {os_error(exc)}", file=sys.stderr)
                return 1
            print(f"harmony: wrote {ns.midi}", file=sys.stderr)
        if name == "conduct" and ns.audio is not None:
            return render_cli.write_audio({"arrangement": result}, ns, ns.audio,
                                          facts_on_stdout=False)
        return 0
    return run


def _text(value: Any) -> Any:
    """An argument as the engine should see it: bytes of the command line that are not UTF-8
    (kept by Python as lone surrogates, which no JSON can hold) become U+FFFD, so a symbol
    such as b'C\\xff7' is an invalid_chord answer like any other."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if isinstance(value, list):
        return [_text(v) for v in value]
    return value


def _style(text: str) -> str:
    """A voicing style: an unknown one is a usage error listing the styles (API.md 5)."""
    if text not in STYLE_NAMES:
        raise argparse.ArgumentTypeError(f"no voicing style {text!r}; the styles are "
                                         f"{', '.join(STYLE_NAMES)}")
    return text
