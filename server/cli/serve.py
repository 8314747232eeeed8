"""``harmony serve``: its flags, the settings from the environment and the flags, the checks
made before anything is created (the database held by no live server, the port free), the first start's
``local`` key, and granian started on the app factory."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from server.cli.common import bounded
from server.http import PROFILES, Settings, parse_origins


def add_parser(sub: Any) -> None:
    # Flags default to None (not given): the environment's settings apply (Settings.from_env).
    serve = sub.add_parser("serve", help="run the REST and MCP service on granian")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=bounded(1, 65535), default=8000)
    serve.add_argument("--workers", type=bounded(1, 256),
                       help="granian worker processes (env HARMONY_WORKERS; default 1; "
                            "make serve passes WORKERS=2)")
    serve.add_argument("--profile", choices=PROFILES,
                       help="local or hosted (env HARMONY_PROFILE; default local)")
    serve.add_argument("--no-auth", dest="auth", action="store_const", const=False,
                       help="accept calls without a key, count nothing (local profile only; "
                            "env HARMONY_NO_AUTH=1)")
    serve.add_argument("--cors-origins",
                       help="comma-separated browser origins allowed (env HARMONY_CORS_ORIGINS)")
    serve.add_argument("--flood-per-minute", type=bounded(1, 10**9),
                       help="requests a minute allowed from one IP address "
                            "(env HARMONY_FLOOD_PER_MINUTE; default 6000)")
    serve.add_argument("--no-store-bodies", dest="store_bodies", action="store_const",
                       const=False, help="keep no request bodies in the log "
                                         "(env HARMONY_STORE_BODIES=0)")
    serve.add_argument("--retention-days", type=bounded(0, 100_000),
                       help="days request bodies are kept (env HARMONY_RETENTION_DAYS; "
                            "default 30)")
    serve.add_argument("--log-days", type=bounded(1, 100_000),
                       help="days log rows are kept, then deleted (env HARMONY_LOG_DAYS; "
                            "default 90)")
    serve.set_defaults(run=cmd_serve)


def serve_settings(ns: argparse.Namespace, env: Mapping[str, str] | None = None) -> Settings:
    """The environment's settings (HARMONY_*, from ``env``, default ``os.environ``), overridden
    by the flags actually given (``--db`` included)."""
    origins = None if ns.cors_origins is None else parse_origins(ns.cors_origins)
    return Settings.from_env(env, db_path=ns.db, profile=ns.profile, auth=ns.auth,
                             cors_origins=origins, flood_per_minute=ns.flood_per_minute,
                             workers=ns.workers, store_bodies=ns.store_bodies,
                             retention_days=ns.retention_days, log_days=ns.log_days)


def bootstrap(settings: Settings) -> None:
    """Create or migrate the schema before the workers start; on the first start with an
    empty store (and keys required), make the ``local`` account and print its key once."""
    from server.accounts import open_store

    store = open_store(settings.db_path)
    try:
        if settings.auth and not store.has_keys():
            if "local" not in {name for name, _ in store.accounts()}:
                store.create_account("local", "developer")
            key_id, secret = store.create_key("local")
            print(f"harmony: created account 'local' (developer plan) with key {key_id}; "
                  "the key is shown once:", file=sys.stderr)
            print(secret, flush=True)
    finally:
        store.close()


def cmd_serve(ns: argparse.Namespace) -> int:
    from granian import Granian
    from granian.constants import Interfaces, Loops

    from server.accounts import local_path

    settings = serve_settings(ns)
    local = local_path(settings.db_path)   # this machine's own files (PostgreSQL: state dir)
    lock = _hold_database(local)  # kept open (and locked) while the server runs
    _check_port(ns.host, ns.port)
    bootstrap(settings)  # after both checks: a refused start prints no key it then forgets
    os.environ.update(settings.to_env())
    # /metrics adds up the counts of every worker (prometheus_client's multiprocess mode):
    # each worker writes its samples to memory-mapped files in this directory, emptied now so
    # a restart starts from zero. Set before granian starts the workers, which read it.
    from server.accounts import MULTIPROC_ENV, reset_metrics_dir

    os.environ[MULTIPROC_ENV] = str(reset_metrics_dir(local))
    # Each setting measured with bench/load.py (2 workers, wrk, 2-core shared machine, 2-5
    # runs interleaved with the default; docs/granian-settings.md has the table). Left at
    # granian's defaults, no gain beyond the noise: runtime_mode (auto = st for RSGI, mt no better;
    # mt for WSGI, st slower),
    # runtime_threads=2, http=1-only, backpressure 32 or 4096 (default backlog/workers),
    # task_impl=rust (experimental; faster /health, not analyze). blocking_threads must be 1
    # for RSGI (granian refuses more).
    # WSGI (local profile): one thread hand-over a request, 1.4-1.9x RSGI's throughput here;
    # RSGI (hosted): a client holding its body back costs a task, not a thread
    # (server.http.wsgi; docs/request-path.md).
    wsgi = settings.served_interface == "wsgi"
    Granian("server.http:make_wsgi_app" if wsgi else "server.http:make_app",
            address=ns.host, port=ns.port,
            interface=Interfaces.WSGI if wsgi else Interfaces.RSGI,
            blocking_threads=settings.request_threads if wsgi else None,
            websockets=False,  # no route of the service is a websocket
            # uvloop, named rather than "auto" (which would prefer rloop when present): over
            # the asyncio loop, analyze p50 0.333 ms against 0.395 ms (mean of 5 runs, lower in
            # all 5), 14.8k against 12.9k req/s, server CPU 106 against 124 µs/req; /health
            # p50 0.168 against 0.228 ms.
            loop=Loops.uvloop,
            workers=settings.workers, factory=True, log_access=False,
            # A crashed worker is started again (granian stops on a crash loop: two deaths
            # within 5.5 s); costs nothing on the request path (same figures as without it).
            respawn_failed_workers=True,
            workers_kill_timeout=30).serve()
    lock.close()
    return 0


def _hold_database(db_path: str) -> Any:
    """Lock ``DB.lock`` for this server's life: a second ``harmony serve`` on the same
    database (which would empty the first one's metrics folder and share its counters) is
    refused while the first lives; the lock goes with the process, however it ends."""
    import fcntl

    path = Path(db_path).resolve()
    handle = open(f"{path}.lock", "a+")  # noqa: SIM115 (held for the server's life)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        owner = handle.read().strip() or "another process"
        handle.close()
        raise ValueError(f"the database {path} is served by a live harmony serve ({owner}); "
                         "stop it, or give this one its own: --db OTHER.db") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}")
    handle.flush()
    return handle


def _check_port(host: str, port: int) -> None:
    """One line, not granian's traceback, when the address is taken."""
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ValueError(f"cannot serve on {host}:{port}: {exc.strerror or exc}; pick "
                             f"another port with --port {port + 1} (make serve PORT="
                             f"{port + 1})") from None
