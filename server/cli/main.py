"""The ``harmony`` command (API.md section 10): the parser of every command, and the errors a
command may end with, said in one line. Each command lives in its own module (``serve``,
``accounts``: accounts, keys, usage, vocab-gaps; ``operations``: the engine's operations;
``mcp_config``, ``render``, ``corpus``, ``compose``, ``batch``) and imports what it runs when
it runs: ``harmony batch`` starts without the HTTP and MCP service or a numba kernel."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from engine.version import GRID_VERSION, PACKAGE_VERSION
from server.cli import accounts as accounts_cli
from server.cli import batch as batch_cli
from server.cli import compose as compose_cli
from server.cli import corpus as corpus_cli
from server.cli import mcp_config as mcp_config_cli
from server.cli import operations as operations_cli
from server.cli import render as render_cli
from server.cli import serve as serve_cli
from server.cli.common import os_error


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        code: int = args.run(args)
        return code
    except Exception as exc:
        said = _said(exc, args)
        if said is None:
            raise
        print(f"harmony: {said}", file=sys.stderr)
        return 1


def _said(exc: Exception, args: argparse.Namespace) -> str | None:
    """The one line of an error a user can act on (None: a bug, its traceback shown)."""
    from server.accounts import StoreError  # here: most commands never open the store

    if isinstance(exc, StoreError):
        # say which database was read: "no account named 'x'" alone leaves one guessing
        from server.http import env_db_path

        where = "" if "no database at" in str(exc) else \
            f" (in {Path(getattr(args, 'db', None) or env_db_path()).resolve()})"
        return f"{exc}{where}"
    if isinstance(exc, ValueError):
        return str(exc)
    if isinstance(exc, OSError):  # a file that cannot be read or written, a port in use
        return os_error(exc)
    return None


class _Parser(argparse.ArgumentParser):
    """argparse with its errors on one line (the usage is one ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _accept_db_on_every_command(parser: argparse.ArgumentParser, top: bool = True) -> None:
    """API.md writes ``harmony serve --db PATH``: every command also takes ``--db`` after its
    name (SUPPRESS keeps the top-level value when it is not given there)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _accept_db_on_every_command(child, top=False)
            return
    if not top:
        parser.add_argument("--db", default=argparse.SUPPRESS,
                            help="SQLite file or postgresql:// URL (also accepted before the command)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="harmony", description="The harmony engine service.")
    parser.add_argument("--version", action="version",
                        version=f"harmony {PACKAGE_VERSION} (grid {GRID_VERSION})")
    # None: not given, so HARMONY_DB (read when the command runs) or harmony.db.
    parser.add_argument("--db", help="SQLite file or postgresql:// URL (env HARMONY_DB; default harmony.db)")
    sub = parser.add_subparsers(metavar="COMMAND")
    serve_cli.add_parser(sub)
    accounts_cli.add_parsers(sub)
    operations_cli.add_parsers(sub)
    mcp_config_cli.add_parser(sub)
    render_cli.add_parser(sub)
    corpus_cli.add_parsers(sub)
    compose_cli.add_parsers(sub)
    batch_cli.add_parser(sub)
    _accept_db_on_every_command(parser)
    _describe(parser, ())
    return parser


# Help of the options whose parser line leaves it out: (command..., option or argument).
HELP: dict[tuple[str, ...], str] = {
    ("serve", "host"): "address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)",
    ("serve", "port"): "port to listen on (default 8000)",
    ("name",): "the account's name",
    ("plan",): "free, builder, theory_pro, developer, licence or enterprise",
    ("per_minute",): "calls a minute",
    ("per_month",): "calls a month",
    ("account",): "the account's name",
    ("key_id",): "the key's id (harmony keys list shows them)",
    ("days",): "days back from today (default 30)",
    ("json",): "print JSON instead of a table",
    ("limit",): "how many (default: search 10, vocab-gaps 20)",
    ("offset",): "results to skip (paging)",
    ("chord",): "a chord symbol, e.g. Dm7b5, G7(b9,#11), C/E",
    ("octave",): "octave of the root (default 4)",
    ("identify", "notes"): "the notes: names with or without octave (E3, Bb) or MIDI numbers",
    ("identify", "bass"): "the bass note (default: the lowest, when every note has an octave)",
    ("identify", "key"): "the key, for numerals and functions (default: none)",
    ("analyze-file", "file"): "a MIDI file (.mid) or a MusicXML file (.musicxml, .xml), or a "
                              "folder of them",
    ("analyze-file", "key"): "the key (default: found from the chart)",
    ("analyze-file", "json"): "print the whole answer as JSON (chart, analysis, lead sheet)",
    ("analyze-file", "format"): "for a folder: jsonl (default) or csv, one row a file",
    ("tuning",): "frequency of A4 in Hz (default 440)",
    ("key",): "the key, e.g. F or Dm (default C)",
    ("progression",): "chord symbols, '|' between bars",
    ("techniques",): "a technique to try (repeatable; default all eight)",
    ("prompt",): "what to play, in English: style, tempo, key, form, feel",
    ("sample_rate",): "22050, 44100 (default) or 48000",
    ("channels",): "1 or 2 (default 2)",
    ("seed",): "seed of the arrangement's choices",
    ("file",): "the composition file (JSON)",
    ("format",): "the export's format",
}


def _describe(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
    """Fill the help of every option from ``HELP`` (by command and name, else by name)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                _describe(child, (*path, name))
        elif not action.help:
            action.help = HELP.get((*path[:1], action.dest)) or HELP.get((action.dest,))


if __name__ == "__main__":
    sys.exit(main())
