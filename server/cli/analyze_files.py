"""``harmony analyze-file FOLDER``: every MIDI and MusicXML file of a folder (and its
subfolders) read as an analysed chord chart, one row a file on stdout (JSONL or CSV, as
``harmony batch`` writes), progress on stderr; a file that fails is a row with its error."""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

import orjson

from engine.errors import HarmonyError
from engine.identify import MIDI_SUFFIXES, MUSICXML_SUFFIXES, music_request

MUSIC_SUFFIXES = MIDI_SUFFIXES + MUSICXML_SUFFIXES
COLUMNS = ("path", "key", "bars", "chords", "leadSheet", "error")


def music_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in MUSIC_SUFFIXES
                  and p.is_file())


def request_of(path: Path, key: str | None) -> dict[str, Any]:
    request: dict[str, Any] = music_request(path.read_bytes(), path.name)
    if key:
        request["key"] = key
    return request


def row_of(path: Path, key: str | None) -> dict[str, Any]:
    import engine

    try:
        result = engine.identify(request_of(path, key))
    except (HarmonyError, OSError) as exc:
        message = exc.message if isinstance(exc, HarmonyError) else str(exc)
        return {"path": str(path), "key": None, "bars": 0, "chords": 0, "leadSheet": None,
                "error": message}
    return {"path": str(path), "key": result["analysis"]["key"], "bars": len(result["chart"]),
            "chords": sum(len(bar) for bar in result["chart"]),
            "leadSheet": result["leadSheet"], "error": None}


def analyze_folder(folder: Path, key: str | None, fmt: str) -> int:
    files = music_files(folder)
    if not files:
        print(f"harmony: no MIDI or MusicXML file in {folder}", file=sys.stderr)
        return 2
    writer = csv.DictWriter(sys.stdout, COLUMNS) if fmt == "csv" else None
    if writer is not None:
        writer.writeheader()
    failed = 0
    for index, path in enumerate(files, start=1):
        row = row_of(path, key)
        failed += row["error"] is not None
        if writer is not None:
            writer.writerow(row)
        else:
            sys.stdout.write(orjson.dumps(row).decode() + "\n")
        sys.stdout.flush()
        print(f"[{index}/{len(files)}] {path}" + (f": {row['error']}" if row["error"] else ""),
              file=sys.stderr)
    print(f"harmony: {len(files)} files, {failed} failed", file=sys.stderr)
    return 1 if failed else 0
