"""``harmony compose FILE.json --op '{"op": ...}' ... [-o OUT.json]`` applies operations to a
composition file (a missing FILE starts a new one: the first operation is then ``create``) and
writes the result (default: back to FILE); ``harmony export FILE.json --format F [-o OUT]``
writes one export (MIDI and the iReal link as their bytes and text, the rest as text)."""

from __future__ import annotations

import argparse
import base64
import sys
from pathlib import Path
from typing import Any

import orjson

from engine.errors import HarmonyError

SUFFIX = {"midi": ".mid", "musicxml": ".musicxml", "ireal": ".txt", "chordpro": ".cho",
          "leadsheet": ".txt", "analysis": ".json"}


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("compose", help="apply composition operations to a composition file")
    p.add_argument("file", type=Path, help="the composition (JSON); a new one when missing")
    p.add_argument("--op", action="append", required=True, dest="ops", metavar="JSON",
                   help='an operation, e.g. \'{"op": "transpose", "key": "Eb"}\' (repeatable)')
    p.add_argument("--seed", type=int)
    p.add_argument("-o", "--output", type=Path, help="where to write (default: FILE)")
    p.set_defaults(run=cmd_compose)
    e = sub.add_parser("export", help="export a composition file (MIDI, MusicXML, iReal Pro, "
                                      "ChordPro, lead sheet, analysis)")
    e.add_argument("file", type=Path)
    e.add_argument("--format", required=True, choices=list(SUFFIX))
    e.add_argument("-o", "--output", type=Path, help="default: FILE with the format's suffix")
    e.set_defaults(run=cmd_export)


def _read(path: Path) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as e:
        raise ValueError(f"{path} is not JSON: {e}") from None


def _run(request: dict[str, Any]) -> dict[str, Any] | None:
    from engine import compose

    try:
        return compose(request)
    except HarmonyError as exc:
        sys.stdout.buffer.write(orjson.dumps(exc.to_dict(), option=orjson.OPT_INDENT_2) + b"\n")
        return None


def cmd_compose(ns: argparse.Namespace) -> int:
    operations = []
    for text in ns.ops:
        try:
            operations.append(orjson.loads(text))
        except orjson.JSONDecodeError as e:
            raise ValueError(f"--op {text!r} is not JSON: {e}") from None
    request: dict[str, Any] = {"operations": operations}
    if ns.file.exists():
        request["composition"] = _read(ns.file)
    if ns.seed is not None:
        request["seed"] = ns.seed
    answer = _run(request)
    if answer is None:
        return 1
    target = ns.output or ns.file
    target.write_bytes(orjson.dumps(answer["composition"], option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.buffer.write(orjson.dumps(answer["results"], option=orjson.OPT_INDENT_2) + b"\n")
    print(f"harmony: wrote {target}", file=sys.stderr)
    return 0


def cmd_export(ns: argparse.Namespace) -> int:
    answer = _run({"composition": _read(ns.file),
                   "operations": [{"op": "export", "formats": [ns.format]}]})
    if answer is None:
        return 1
    value = answer["results"][0][ns.format]
    target = ns.output or ns.file.with_suffix(SUFFIX[ns.format])
    if ns.format == "midi":
        target.write_bytes(base64.b64decode(value))
    elif isinstance(value, str):
        target.write_text(value if value.endswith("\n") else value + "\n")
    else:
        target.write_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")
    print(f"harmony: wrote {target}", file=sys.stderr)
    return 0
