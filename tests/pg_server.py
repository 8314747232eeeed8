"""A real PostgreSQL server for the tests, from Debian's ``postgresql`` package (``.ci/run``
installs it): ``initdb`` in a temporary folder, ``postgres`` listening on a unix socket there
only (no TCP), run as an unprivileged user when the tests run as root (PostgreSQL refuses
root), stopped by the process this module started. ``database()`` makes a fresh database for
one test."""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

USER = "harmony"
_COUNT = itertools.count()


def pg_bin() -> Path | None:
    """The folder of ``initdb`` and ``postgres`` (the newest installed), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _as_user() -> dict[str, Any]:
    return {"user": "nobody", "group": "nogroup"} if os.geteuid() == 0 else {}


class PgServer:
    """One server in ``root`` (its data folder and socket there); ``stop()`` and ``start()``
    again on the same data."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.process: subprocess.Popen[Any] | None = None

    def init(self) -> None:
        binaries = pg_bin()
        if binaries is None:
            raise FileNotFoundError("PostgreSQL's initdb was not found (Debian package "
                                    "postgresql)")
        os.chmod(self.root, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.root, "nobody", "nogroup")
        subprocess.run([str(binaries / "initdb"), "-D", str(self.data), "-U", USER,
                        "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120,
                       **_as_user())

    def start(self) -> None:
        binaries = pg_bin()
        assert binaries is not None
        root = self.root
        self.process = subprocess.Popen(
            [str(binaries / "postgres"), "-D", str(self.data), "-k", str(root), "-c",
             "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off", "-c", "max_connections=200"],
            stdout=subprocess.DEVNULL, stderr=(root / "server.log").open("a")
            if os.geteuid() != 0 else subprocess.DEVNULL, **_as_user())
        _wait_ready(root, self.process)

    def stop(self) -> None:
        """A fast shutdown (SIGINT): the clients' connections are cut, as in an outage."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@contextlib.contextmanager
def restartable_server() -> Iterator[PgServer]:
    """A server of its own, which a test may stop and start again."""
    server = PgServer(Path(tempfile.mkdtemp(prefix="harmony-pg-")))
    try:
        server.init()
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.root, ignore_errors=True)


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """Start a server; yields the socket folder (``host=`` of a connection string)."""
    with restartable_server() as server:
        yield str(server.root)


def _wait_ready(host: str | Path, process: subprocess.Popen[Any]) -> None:
    import psycopg

    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"postgres exited with {process.returncode}")
        try:
            with psycopg.connect(f"postgresql://{USER}@/postgres?host={host}", connect_timeout=2):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def database(host: str) -> str:
    """A new, empty database on the server: its connection string."""
    import psycopg

    name = f"t{os.getpid()}_{next(_COUNT)}"
    with psycopg.connect(f"postgresql://{USER}@/postgres?host={host}", autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    return f"postgresql://{USER}@/{name}?host={host}"
