"""The ``harmony`` command (API.md section 10): the parser of every command, and the errors a
command may end with, said in one line. Each command lives in its own module (``serve``,
``accounts``: accounts, keys, usage, vocab-gaps; ``operations``: the engine's operations;
``mcp_config``, ``render``, ``corpus``, ``compose``, ``batch``) and imports what it runs when
it runs: ``harmony batch`` starts without the HTTP and MCP service or a numba kernel. A run
that names its command builds that command's module's parsers only (``COMMANDS``), so it
imports neither the other commands' modules nor what their options need (the account store
for ``accounts``' plans, the HTTP settings for ``serve``'s); ``--help`` and anything else the
command line leaves unsure build them all."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from engine.version import GRID_VERSION, PACKAGE_VERSION
from server.cli.common import os_error

MODULES = ("serve", "accounts", "operations", "mcp_config", "render", "corpus", "compose",
           "batch")
"""The modules of ``server.cli`` that add commands, in the order ``--help`` lists them (each
has ``add_parser`` or ``add_parsers``)."""

COMMANDS = {
    "serve": "serve",
    "accounts": "accounts", "keys": "accounts", "usage": "accounts", "vocab-gaps": "accounts",
    "resolve": "operations", "identify": "operations", "analyze-file": "operations",
    "analyze": "operations", "voicing": "operations", "reharmonize": "operations",
    "conduct": "operations",
    "mcp-config": "mcp_config", "render": "render", "corpus": "corpus", "search": "corpus",
    "compose": "compose", "export": "compose", "batch": "batch",
}
"""Each command -> the module of ``MODULES`` that adds it (tests/test_cli.py checks the table
against the commands the modules add)."""


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(command_of(argv))
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
    store = sys.modules.get("server.accounts.store")  # not loaded: no store was opened
    if store is not None and isinstance(exc, store.StoreError):
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


def command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, when it is sure: the first word after the top-level
    ``--db`` options, if it is a command; None for anything else (``--help``, ``--version``, an
    abbreviated option, no command), which then gets the whole parser."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--db":
            i += 2
        elif word.startswith("--db="):
            i += 1
        else:
            return word if word in COMMANDS else None
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with ``command`` only the commands of its module."""
    parser = _Parser(prog="harmony", description="The harmony engine service.")
    parser.add_argument("--version", action="version",
                        version=f"harmony {PACKAGE_VERSION} (grid {GRID_VERSION})")
    # None: not given, so HARMONY_DB (read when the command runs) or harmony.db.
    parser.add_argument("--db", help="SQLite file or postgresql:// URL (env HARMONY_DB; default harmony.db)")
    sub = parser.add_subparsers(metavar="COMMAND")
    for name in MODULES if command is None else (COMMANDS[command],):
        module = importlib.import_module(f"server.cli.{name}")
        (getattr(module, "add_parsers", None) or module.add_parser)(sub)
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
    ("analyze-file", "file"): "a MIDI file (.mid) or a MusicXML file (.musicxml, .xml, "
                              "compressed .mxl), or a folder of them",
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
