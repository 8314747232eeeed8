"""``harmony render``: a prompt, a conduct result or a MIDI file to an audio file; and the audio
of ``harmony conduct --audio FILE``. The format follows the output's suffix unless ``--format``
says otherwise; the facts (without the audio) go to stdout as JSON. On a terminal a status line
on stderr counts the seconds of a long render."""

from __future__ import annotations

import argparse
import base64
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from engine.errors import HarmonyError

FORMATS = ("wav", "flac", "mp3")
SUFFIXES = {".wav": "wav", ".flac": "flac", ".mp3": "mp3"}


def add_parser(sub: Any) -> None:
    p = sub.add_parser("render", help="render a prompt, an arrangement or a MIDI file to audio")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("prompt", nargs="?", help="a conduct direction, e.g. 'slow blues in G'")
    source.add_argument("--midi", type=Path, help="a Standard MIDI File (format 0 or 1)")
    source.add_argument("--arrangement", type=Path, help="a conduct result (JSON)")
    p.add_argument("-o", "--output", type=Path, required=True, help="the audio file to write")
    add_audio_options(p)
    p.add_argument("--duration", type=float, help="seconds (with a prompt)")
    p.add_argument("--progression", help="your own changes (with a prompt)")
    p.add_argument("--seed", type=int, help="the arrangement's seed (with a prompt)")
    p.set_defaults(run=cmd_render)


def add_audio_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, help="default: the output's suffix, else wav")
    p.add_argument("--engine", choices=("auto", "soundfont", "basic"),
                   help="synthesiser (default auto: the SoundFont when one is installed)")
    p.add_argument("--sample-rate", type=int, choices=(22050, 44100, 48000))
    p.add_argument("--channels", type=int, choices=(1, 2))
    p.add_argument("--soundfont", help="a .sf2/.sf3 file (default: HARMONY_SOUNDFONT, else the "
                                      "system's General MIDI font)")


def cmd_render(ns: argparse.Namespace) -> int:
    if ns.prompt is not None:
        request: dict[str, Any] = {"prompt": ns.prompt, "durationSec": ns.duration,
                                   "progression": ns.progression, "seed": ns.seed}
    elif ns.midi is not None:
        request = {"midi": base64.b64encode(ns.midi.read_bytes()).decode("ascii")}
    else:
        try:
            arrangement = orjson.loads(ns.arrangement.read_bytes())
        except orjson.JSONDecodeError as e:
            raise ValueError(f"{ns.arrangement} is not JSON: {e}") from None
        request = {"arrangement": arrangement}
    return write_audio(request, ns)


def write_audio(request: dict[str, Any], ns: argparse.Namespace,
                output: Path | None = None, *, facts_on_stdout: bool = True) -> int:
    """Render ``request`` with the options of ``ns`` and write the file; 1 on an engine error
    (its body on stdout, as the other commands). ``harmony conduct --audio`` has printed its
    own JSON already: the facts then go to stderr as one line."""
    from engine.render import render_bytes

    target: Path = output or ns.output
    fmt = ns.format or SUFFIXES.get(target.suffix.lower(), "wav")
    request = {**request, "format": fmt, "engine": ns.engine, "sampleRate": ns.sample_rate,
               "channels": ns.channels}
    request = {k: v for k, v in request.items() if v is not None}
    try:
        with _Status(sys.stderr, f"rendering {target.name}"):
            audio, facts = render_bytes(request, soundfont=ns.soundfont)
    except HarmonyError as exc:
        _print(exc.to_dict())
        return 1
    target.write_bytes(audio)
    if facts_on_stdout:
        _print({"path": str(target), **facts})
    else:
        print(f"harmony: wrote {target} ({facts['durationSec']} s, {facts['engine']})",
              file=sys.stderr)
    return 0


def _print(data: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


class _Status:
    """On a terminal, 'rendering out.wav… 3 s' on stderr, updated each second until done."""

    def __init__(self, stream: Any, text: str) -> None:
        self.stream, self.text = stream, text
        self.active = bool(getattr(stream, "isatty", lambda: False)())
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self) -> _Status:
        if self.active:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.active:
            self._done.set()
            self._thread.join()
            self.stream.write("\r\033[K")
            self.stream.flush()

    def _tick(self) -> None:
        started = time.monotonic()
        while not self._done.wait(1.0):
            self.stream.write(f"\r{self.text}… {time.monotonic() - started:.0f} s")
            self.stream.flush()
