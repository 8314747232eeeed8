"""``harmony corpus import PATH... [--out INDEX]`` and ``harmony search PATTERN ...``.

``import`` reads charts, iReal Pro exports and ChordPro files (with the project's own corpus
unless ``--no-shipped``), reports every song or chord it skipped on stderr, and writes an index
folder the service maps read-only (``HARMONY_CORPUS=INDEX``). ``search`` answers as
``POST /v2/search``, over ``--corpus`` (an index folder or files), else ``HARMONY_CORPUS``, else
the project's own corpus.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from engine.errors import HarmonyError


def add_parsers(sub: Any) -> None:
    corpus = sub.add_parser("corpus", help="build a searchable index of your chord charts")
    commands = corpus.add_subparsers(metavar="COMMAND")
    p = commands.add_parser("import", help="read charts (text, JSON, iReal Pro, ChordPro) "
                                           "and write an index folder")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    p.add_argument("--out", type=Path, default=Path("corpus-index"),
                   help="the index folder to write (default ./corpus-index)")
    p.add_argument("--no-shipped", dest="shipped", action="store_false",
                   help="leave out the project's own corpus")
    p.set_defaults(run=cmd_import)

    s = sub.add_parser("search", help="songs by chord pattern, numerals, title or likeness")
    s.add_argument("pattern", nargs="?", help="e.g. 'Dm7 G7 Cmaj7', 'ii7 V7 Imaj7', 'iv7 bVII7'")
    s.add_argument("--title", help="part of the title")
    s.add_argument("--key", help="only songs in this key")
    s.add_argument("--similar-to", help="a progression or a song id")
    s.add_argument("--exact", action="store_true", help="the exact qualities too")
    s.add_argument("--limit", type=int)
    s.add_argument("--offset", type=int)
    s.add_argument("--corpus", help="an index folder or chart files (default HARMONY_CORPUS, "
                                    "else the project's own corpus)")
    s.set_defaults(run=cmd_search)


def cmd_import(ns: argparse.Namespace) -> int:
    from engine.corpus import DATA, load_paths, write_index

    started = time.perf_counter()
    songs, problems = load_paths([*([DATA] if ns.shipped else []), *ns.paths])
    for p in problems.items:
        where = ", ".join(f"{k} {v}" for k, v in (("song", p.song and repr(p.song)),
                                                   ("bar", p.bar), ("chord", p.symbol and
                                                                    repr(p.symbol))) if v)
        print(f"harmony: skipped in {p.file}{': ' + where if where else ''}: {p.message}",
              file=sys.stderr)
    if not songs:
        print("harmony: no songs to index", file=sys.stderr)
        return 1
    write_index(songs, ns.out)
    _json({"index": str(ns.out), "songs": len(songs), "chords": sum(s.chords for s in songs),
           "skipped": len(problems.items),
           "seconds": round(time.perf_counter() - started, 3)})
    return 0


def cmd_search(ns: argparse.Namespace) -> int:
    from engine.corpus import corpus_index, search
    from server.api import corpus_paths

    spec = ns.corpus if ns.corpus is not None else os.environ.get("HARMONY_CORPUS", "")
    paths = corpus_paths(spec)
    index = corpus_index(paths) if paths else None
    request = {"pattern": ns.pattern, "title": ns.title, "key": ns.key,
               "similarTo": ns.similar_to, "exact": ns.exact or None, "limit": ns.limit,
               "offset": ns.offset}
    try:
        result = search({k: v for k, v in request.items() if v is not None}, index)
    except HarmonyError as exc:
        _json(exc.to_dict())
        return 1
    _json(result)
    return 0


def _json(data: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()
