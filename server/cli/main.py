"""The ``harmony`` command (API.md section 10): serve, accounts, keys, usage, vocab-gaps, and the
engine operations with JSON out."""

from __future__ import annotations

import argparse
import base64
import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import orjson

from engine.errors import HarmonyError
from engine.version import GRID_VERSION, PACKAGE_VERSION
from engine.voicing import STYLE_NAMES
from server.accounts import (
    LINK_SECONDS,
    PLANS,
    USAGE_GROUPS,
    SignIn,
    Store,
    StoreError,
    is_postgres,
    open_store,
)
from server.cli import compose as compose_cli
from server.cli import corpus as corpus_cli
from server.cli import render as render_cli
from server.cli.mcp_config import CLIENTS
from server.cli.mcp_config import config as mcp_config
from server.cli.serve import cmd_serve
from server.http import PROFILES, env_db_path, env_log_days

Command = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        code: int = args.run(args)
        return code
    except StoreError as exc:
        # say which database was read: "no account named 'x'" alone leaves one guessing
        where = "" if "no database at" in str(exc) else \
            f" (in {Path(getattr(args, 'db', None) or env_db_path()).resolve()})"
        print(f"harmony: {exc}{where}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"harmony: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file that cannot be read or written, a port in use
        print(f"harmony: {_os_error(exc)}", file=sys.stderr)
        return 1


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

    # Flags default to None (not given): the environment's settings apply (Settings.from_env).
    serve = sub.add_parser("serve", help="run the REST and MCP service on granian")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_bounded(1, 65535), default=8000)
    serve.add_argument("--workers", type=_bounded(1, 256),
                       help="granian worker processes (env HARMONY_WORKERS; default 1; "
                            "make serve passes WORKERS=2)")
    serve.add_argument("--profile", choices=PROFILES,
                       help="local or hosted (env HARMONY_PROFILE; default local)")
    serve.add_argument("--no-auth", dest="auth", action="store_const", const=False,
                       help="accept calls without a key, count nothing (local profile only; "
                            "env HARMONY_NO_AUTH=1)")
    serve.add_argument("--cors-origins",
                       help="comma-separated browser origins allowed (env HARMONY_CORS_ORIGINS)")
    serve.add_argument("--flood-per-minute", type=_bounded(1, 10**9),
                       help="requests a minute allowed from one IP address "
                            "(env HARMONY_FLOOD_PER_MINUTE; default 6000)")
    serve.add_argument("--no-store-bodies", dest="store_bodies", action="store_const",
                       const=False, help="keep no request bodies in the log "
                                         "(env HARMONY_STORE_BODIES=0)")
    serve.add_argument("--retention-days", type=_bounded(0, 100_000),
                       help="days request bodies are kept (env HARMONY_RETENTION_DAYS; "
                            "default 30)")
    serve.add_argument("--log-days", type=_bounded(1, 100_000),
                       help="days log rows are kept, then deleted (env HARMONY_LOG_DAYS; "
                            "default 90)")
    serve.set_defaults(run=cmd_serve)

    accounts = sub.add_parser("accounts", help="create accounts, change plans").add_subparsers()
    a = accounts.add_parser("create")
    a.add_argument("name")
    a.add_argument("--plan", choices=list(PLANS), default="free")
    a.set_defaults(run=lambda ns: _done(_store(ns, create=True).create_account, ns.name, ns.plan,
                                        said=f"created account {ns.name!r} ({ns.plan} plan)"))
    a = accounts.add_parser("set-plan")
    a.add_argument("name")
    a.add_argument("plan", choices=list(PLANS))
    a.set_defaults(run=lambda ns: _done(_store(ns).set_plan, ns.name, ns.plan))
    a = accounts.add_parser("set-limits", help="enterprise: limits of this account")
    a.add_argument("name")
    a.add_argument("--per-minute", type=int, required=True)
    a.add_argument("--per-month", type=int, required=True)
    a.set_defaults(run=lambda ns: _done(_store(ns).set_limits, ns.name, ns.per_minute,
                                        ns.per_month))
    a = accounts.add_parser("login-link", help="print a one-time sign-in link to the account "
                                               "page (valid 15 minutes, used once)")
    a.add_argument("name")
    a.add_argument("--base-url", default="http://127.0.0.1:8000",
                   help="where the service is reached from the user's browser (default "
                        "http://127.0.0.1:8000)")
    a.set_defaults(run=cmd_login_link)
    a = accounts.add_parser("list")
    a.set_defaults(run=lambda ns: _json([{"name": n, "plan": p} for n, p in
                                         _store(ns).accounts()]))

    keys = sub.add_parser("keys", help="create, list, rotate, revoke API keys").add_subparsers()
    k = keys.add_parser("create", help="print a new key (alone on stdout; shown once)")
    k.add_argument("account")
    k.set_defaults(run=lambda ns: _secret(*_store(ns).create_key(ns.account)))
    k = keys.add_parser("list")
    k.add_argument("account", nargs="?")
    k.set_defaults(run=lambda ns: _json(_store(ns).list_keys(ns.account)))
    k = keys.add_parser("rotate", help="revoke a key and print its replacement")
    k.add_argument("key_id")
    k.set_defaults(run=lambda ns: _secret(*_store(ns).rotate_key(ns.key_id)))
    k = keys.add_parser("revoke")
    k.add_argument("key_id")
    k.set_defaults(run=lambda ns: _done(_store(ns).revoke_key, ns.key_id))

    usage = sub.add_parser("usage", help="volumes, p50/p95 latency and error rates per key")
    usage.add_argument("--account")
    usage.add_argument("--days", type=_bounded(1, 100_000), default=30,
                       help="the last N days (default 30), within the log's HARMONY_LOG_DAYS")
    usage.add_argument("--by", choices=USAGE_GROUPS, default="key",
                       help="one row per key (default), per UTC day or per operation: the "
                            "account page's figures")
    usage.add_argument("--json", action="store_true")
    usage.set_defaults(run=cmd_usage)

    gaps = sub.add_parser("vocab-gaps", help="the most frequent symbols that failed to parse")
    gaps.add_argument("--limit", type=int, default=20)
    gaps.add_argument("--json", action="store_true")
    gaps.set_defaults(run=cmd_vocab_gaps)

    add_operation_parsers(sub)
    m = sub.add_parser("mcp-config", help="print what an MCP client needs to start a harmony "
                                          "stdio server (absolute paths) or reach a hosted "
                                          "/mcp, in the client's own format")
    m.add_argument("--client", choices=CLIENTS, default="claude-desktop",
                   help="the client whose format to print (claude-code: a command line)")
    which = m.add_mutually_exclusive_group()
    which.add_argument("--conductor", action="store_const", dest="server",
                       const="harmony-conductor", help="the conductor (render, play, search)")
    which.add_argument("--compose", action="store_const", dest="server",
                       const="harmony-compose", help="the composer (compose_* tools)")
    m.add_argument("--url", help="proxy to this running service instead of the engine "
                                 "in-process (HARMONY_BASE_URL)")
    m.add_argument("--http", help="the hosted service's URL: the client talks to its /mcp over "
                                  "streamable HTTP (no local process)")
    m.add_argument("--key", help="the API key for --url (SERVICE_API_KEY) or --http (the "
                                 "Authorization header)")
    m.set_defaults(run=cmd_mcp_config, server="harmony-mcp")
    render_cli.add_parser(sub)
    corpus_cli.add_parsers(sub)
    compose_cli.add_parsers(sub)
    try:
        batch_cli = importlib.import_module("server.cli.batch")
    except ModuleNotFoundError:
        batch_cli = None  # lands with the batch analysis issue
    if batch_cli is not None:
        batch_cli.add_parser(sub)
        batch = sub.choices.get("batch")
        if batch is not None and batch.get_default("run") is None:
            batch.set_defaults(run=batch_cli.run)
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


def add_operation_parsers(sub: Any) -> None:
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
    identify answer). A .mid/.midi/.smf file is sent as MIDI, anything else as MusicXML. A
    folder: one row per music file in it (JSONL or CSV, as ``harmony batch``), progress on
    stderr."""
    import engine

    if ns.file.is_dir():
        from server.cli.analyze_files import analyze_folder
        return analyze_folder(ns.file, ns.key, ns.format)
    try:
        data = ns.file.read_bytes()
    except OSError as exc:
        print(f"harmony: cannot read {ns.file}: {_os_error(exc)}", file=sys.stderr)
        return 2
    if ns.file.suffix.lower() in (".mid", ".midi", ".smf"):
        request: dict[str, Any] = {"midi": base64.b64encode(data).decode()}
    else:
        request = {"musicxml": data.decode("utf-8", "replace")}
    if ns.key:
        request["key"] = ns.key
    try:
        result = engine.identify(request)
    except HarmonyError as exc:
        _json(exc.to_dict())
        return 1
    if ns.json:
        _json(result)
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
            _json(exc.to_dict())
            return 1
        to_file = name == "conduct" and (ns.midi is not None or ns.audio is not None)
        if to_file and not ns.json:
            # the files hold the music: the terminal gets what a person reads
            print(result["leadSheet"])
            _json(result["conductor"])
        else:
            _json(result)
        if name == "conduct" and ns.midi is not None:
            try:
                ns.midi.write_bytes(base64.b64decode(result["midi"]))
            except OSError as exc:
                print(f"harmony: cannot write the MIDI file: {_os_error(exc)}", file=sys.stderr)
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


def _os_error(exc: OSError) -> str:
    where = f": {exc.filename}" if exc.filename is not None else ""
    return f"{exc.strerror or exc}{where}"


def cmd_mcp_config(ns: argparse.Namespace) -> int:
    """The client's configuration (``server.cli.mcp_config``), with the executable's absolute
    path (so it works from anywhere, without activating the virtual environment)."""
    command = str(Path(sys.executable).parent / ns.server)
    made = mcp_config(ns.client, command, ns.server, url=ns.url, key=ns.key, http=ns.http)
    if isinstance(made, str):
        print(made)
        return 0
    return _json(made)


def cmd_login_link(ns: argparse.Namespace) -> int:
    """The link alone on stdout (the token is kept hashed: it cannot be printed again)."""
    token = SignIn(_store(ns)).issue_link(ns.name)
    print(f"harmony: sign-in link for {ns.name!r}, valid {LINK_SECONDS // 60} minutes, "
          "once; give it to its user only:", file=sys.stderr)
    print(f"{ns.base_url.rstrip('/')}/account/login?token={token}", flush=True)
    return 0


def cmd_usage(ns: argparse.Namespace) -> int:
    kept = env_log_days()
    if ns.days > kept:
        print(f"harmony: the log keeps {kept} days (HARMONY_LOG_DAYS); usage reads those",
              file=sys.stderr)
    rows = _store(ns).usage(ns.account, min(ns.days, kept), ns.by)
    if ns.json:
        return _json(rows)
    if ns.by == "key":
        print(f"{'key':<18} {'account':<16} ", end="")
    else:
        print(f"{ns.by:<18} ", end="")
    print(f"{'calls':>8} {'errors':>7} {'err%':>6} {'p50 µs':>8} {'p95 µs':>8}")
    for r in rows:
        if ns.by == "key":
            print(f"{r['key'] or '(no key)':<18} {r['account'] or '-':<16} ", end="")
        else:
            print(f"{r[ns.by] or '-':<18} ", end="")
        print(f"{r['calls']:>8} {r['errors']:>7} {100 * r['errorRate']:>6.1f} "
              f"{r['p50Us']:>8} {r['p95Us']:>8}")
    return 0


def cmd_vocab_gaps(ns: argparse.Namespace) -> int:
    rows = _store(ns).vocab_gaps(ns.limit)
    if ns.json:
        return _json(rows)
    for r in rows:
        print(f"{r['count']:>8}  {r['symbol']}")
    return 0


def _style(text: str) -> str:
    """A voicing style: an unknown one is a usage error listing the styles (API.md 5)."""
    if text not in STYLE_NAMES:
        raise argparse.ArgumentTypeError(f"no voicing style {text!r}; the styles are "
                                         f"{', '.join(STYLE_NAMES)}")
    return text


def _bounded(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number within [low, high] (a clean usage error otherwise)."""
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not within {low}..{high}")
        return value
    read.__name__ = "number"
    return read


def _store(ns: argparse.Namespace, create: bool = False) -> Store:
    """The database of ``--db`` / ``HARMONY_DB`` / ``harmony.db``. Only ``serve`` and
    ``accounts create`` make one: every other command refuses a missing file, naming it,
    rather than leave an empty database behind where it was run."""
    path = env_db_path() if ns.db is None else ns.db
    if is_postgres(path):
        return open_store(path)
    if not create and not Path(path).exists():
        raise StoreError(f"no database at {Path(path).resolve()} (harmony serve or harmony "
                         "accounts create makes one; --db PATH or HARMONY_DB picks another)")
    return Store(path)


def _done(action: Callable[..., object], *args: object, said: str | None = None) -> int:
    action(*args)
    if said:
        print(f"harmony: {said}", file=sys.stderr)
    return 0


def _secret(key_id: str, secret: str) -> int:
    print(f"harmony: key {key_id} (shown once, store it now)", file=sys.stderr)
    print(secret, flush=True)
    return 0


def _json(data: Any) -> int:
    sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
