"""The store on PostgreSQL (``HARMONY_DB=postgresql://...``, issue 20): accounts, keys, plans,
sign-in links and sessions, the request log and vocabulary gaps, shared by every machine that
points at the same database.

``PgStore`` is ``Store`` with another connection underneath: the SQL of ``Store`` (and of
``server.accounts.signin``) is written once, with ``?`` placeholders, and runs here through
``_Conn``, which turns them into psycopg's ``%s``. What PostgreSQL spells differently lives
here: its schema (``MIGRATIONS``, versioned like SQLite's and applied at start under an
advisory lock, so machines starting together migrate once) and the log rows' insert (COPY).

Connections come from a psycopg_pool ``ConnectionPool`` made per process (a granian worker
forked after the store was opened makes its own). A read borrows a connection for one
statement (autocommit); ``write()`` borrows one for a transaction.

Outages (issue 35): the pool checks a connection before lending it (a PostgreSQL restarted
under it leaves broken connections, which are then replaced instead of failing a request), a
borrower waits ``POOL_TIMEOUT`` at most (the request path's key lookups wait far less:
``server.accounts.auth``), a new connection gives up after ``CONNECT_TIMEOUT``, and the pool's
reconnection attempts back off to ``RECONNECT_DELAY`` at most (psycopg_pool's own doubling went
to 32 s and more, so a database back after a minute's outage was used only tens of seconds
later). ``outage_errors`` names the exceptions that mean "the store cannot answer".

Files a machine still keeps for itself (the shared counters of its workers, its metrics
folder, the ``harmony serve`` lock) live under ``local_path``: ``HARMONY_STATE_DIR`` (default:
the working directory) joined with a name derived from the database address, so two
``harmony serve`` on one machine share a database only if given different state folders.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from server.accounts.copytext import copy_text
from server.accounts.store import LogRow, Store

# Each entry migrates the schema from version i to i + 1, as sqlite_schema.MIGRATIONS does for SQLite
# (same tables, same meaning, same steps: 3 adds the partial index that 5 drops); never edit one
# that has shipped.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE accounts (
        id BIGSERIAL PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        plan TEXT NOT NULL,
        per_minute BIGINT,
        per_month BIGINT,
        created DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE keys (
        id TEXT PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES accounts(id),
        prefix TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created DOUBLE PRECISION NOT NULL,
        revoked DOUBLE PRECISION,
        replaced_by TEXT
    );
    CREATE TABLE counters (
        name TEXT PRIMARY KEY,
        count BIGINT NOT NULL,
        expires DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE request_log (
        id BIGSERIAL PRIMARY KEY,
        ts DOUBLE PRECISION NOT NULL,
        key_id TEXT,
        surface TEXT NOT NULL,
        operation TEXT,
        status INTEGER NOT NULL,
        error TEXT,
        latency_us BIGINT NOT NULL,
        body BYTEA
    );
    CREATE INDEX request_log_ts ON request_log(ts);
    CREATE TABLE vocab_gaps (
        symbol TEXT PRIMARY KEY,
        count BIGINT NOT NULL,
        last_seen DOUBLE PRECISION NOT NULL
    )
    """,
    """
    CREATE TABLE meta (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    INSERT INTO meta VALUES ('instance', md5(random()::text || clock_timestamp()::text));
    CREATE TABLE month_usage (
        account_id BIGINT NOT NULL,
        month TEXT NOT NULL,
        count BIGINT NOT NULL,
        version BIGINT NOT NULL,
        PRIMARY KEY (account_id, month)
    )
    """,
    """
    CREATE INDEX request_log_bodies ON request_log(ts) WHERE body IS NOT NULL
    """,
    """
    ALTER TABLE keys ADD COLUMN last_used DOUBLE PRECISION;
    CREATE TABLE login_links (
        hash TEXT PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES accounts(id),
        expires DOUBLE PRECISION NOT NULL,
        used DOUBLE PRECISION
    );
    CREATE TABLE sessions (
        hash TEXT PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES accounts(id),
        created DOUBLE PRECISION NOT NULL,
        expires DOUBLE PRECISION NOT NULL
    )
    """,
    """
    DROP INDEX request_log_bodies
    """,
)
_MIGRATION_LOCK = 0x6861726D  # pg_advisory_xact_lock key: "harm"
POOL_SIZE = 4
COPY_ROWS = 4096          # request-log rows a write of the COPY (bodies: at most 32 MiB)
POOL_TIMEOUT = 5.0        # seconds a borrower waits for a connection (psycopg_pool: 30)
CONNECT_TIMEOUT = 2       # seconds a new connection may take (libpq's least)
RECONNECT_DELAY = 1.0     # seconds between reconnection attempts, at most


def outage_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that mean the store could not answer (not a bug in a request): SQLite's
    OperationalError (locked, I/O) and, once psycopg is loaded, its OperationalError (a lost
    or refused connection; psycopg_pool's PoolTimeout is one) and InterfaceError."""
    pg = sys.modules.get("psycopg")
    if pg is None:
        return (sqlite3.OperationalError,)
    return (sqlite3.OperationalError, pg.OperationalError, pg.InterfaceError)


def is_postgres(address: str) -> bool:
    return address.startswith(("postgresql://", "postgres://"))


def local_path(address: str) -> str:
    """Where a machine keeps its own files for ``address`` (see the module docstring): the
    SQLite file itself, or for PostgreSQL a name under ``HARMONY_STATE_DIR``."""
    if not is_postgres(address):
        return address
    parts = urlsplit(address)
    netloc = parts.netloc.rpartition("@")[2]            # no user or password in the name
    digest = hashlib.sha256(urlunsplit(parts._replace(netloc=netloc)).encode()).hexdigest()
    return str(Path(os.environ.get("HARMONY_STATE_DIR", ".")) / f"harmony-pg-{digest[:12]}")


class _Result:
    """What ``Store`` reads from a statement: rows, ``rowcount``; iterable."""

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int) -> None:
        self.rows, self.rowcount = rows, rowcount

    def fetchone(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.rows)


def _sql(text: str) -> str:
    return text.replace("%", "%%").replace("?", "%s")


class _Conn:
    """A psycopg connection with sqlite3's ``execute``/``executemany`` shape."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Result:
        cur = self.connection.execute(_sql(sql), tuple(params))
        rows = cur.fetchall() if cur.description else []
        return _Result(rows, cur.rowcount)

    def executemany(self, sql: str, seq: Iterable[Sequence[Any]]) -> _Result:
        seq = [tuple(p) for p in seq]
        if not seq:
            return _Result([], 0)
        with self.connection.cursor() as cur:
            cur.executemany(_sql(sql), seq)
            return _Result([], cur.rowcount)


class _Autocommit:
    """``PgStore.conn``: each statement on a connection borrowed from the pool for it."""

    def __init__(self, store: PgStore) -> None:
        self.store = store

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Result:
        with self.store.pool().connection() as connection:
            return _Conn(connection).execute(sql, params)


class PgStore(Store):
    migrations = MIGRATIONS

    def __init__(self, address: str) -> None:
        self._pool: Any = None
        self._pid = -1
        self._lock = threading.Lock()
        super().__init__(address)          # (migrates, through the pool)
        self.local_path = local_path(address)

    def pool(self) -> Any:
        if self._pid != os.getpid():
            with self._lock:
                if self._pid != os.getpid():
                    self._pool = _pool(self.path)
                    self._pid = os.getpid()
        return self._pool

    @property
    def conn(self) -> Any:  # the sqlite3.Connection of Store, in its reading uses
        return _Autocommit(self)

    @contextmanager
    def write(self) -> Iterator[Any]:
        with self.pool().connection() as connection, connection.transaction():
            yield _Conn(connection)

    def close(self) -> None:
        if self._pool is not None and self._pid == os.getpid():
            self._pool.close()
            self._pool, self._pid = None, -1

    def _lock_schema(self, c: Any) -> None:
        """Machines starting together: the first to get here migrates, the others wait."""
        c.execute("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))

    _GREATEST = "greatest"

    def _insert_log(self, c: Any, rows: list[LogRow]) -> None:
        """The rows by ``COPY`` (measured here with 256- and 2,048-row batches: 190-200k
        rows/s, against 38-43k with ``executemany``), their text made by ``copy_text`` and
        written ``COPY_ROWS`` rows a write (psycopg's ``write_row`` cost 2 µs a row)."""
        with c.connection.cursor() as cur, cur.copy(
                "COPY request_log (ts, key_id, surface, operation, status, error, latency_us, "
                "body) FROM STDIN") as copy:
            for start in range(0, len(rows), COPY_ROWS):
                copy.write(copy_text(rows[start:start + COPY_ROWS]))


class _OncePer(logging.Filter):
    """psycopg_pool warns at every failed connection attempt (three a second while a database
    is down, with the attempts a second apart): one such line every ``seconds`` is enough."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.last = -seconds

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("error connecting"):
            return True
        now = time.monotonic()
        if now - self.last < self.seconds:
            return False
        self.last = now
        return True


_QUIETER = _OncePer(10.0)


def _pool(address: str) -> Any:
    """The process's connection pool (see the module docstring)."""
    from psycopg_pool import ConnectionPool
    from psycopg_pool.base import AttemptWithBackoff

    class Attempt(AttemptWithBackoff):
        def update_delay(self, now: float) -> None:
            super().update_delay(now)
            self.delay = min(self.delay, RECONNECT_DELAY)

    class Pool(ConnectionPool):
        def _add_connection(self, attempt: Any, growing: bool = False) -> None:
            # every (re)connection's attempts share the capped back-off
            super()._add_connection(attempt or Attempt(timeout=self.reconnect_timeout),
                                    growing)

    logger = logging.getLogger("psycopg.pool")
    if _QUIETER not in logger.filters:
        logger.addFilter(_QUIETER)
    return Pool(address, min_size=1, max_size=POOL_SIZE, open=True, timeout=POOL_TIMEOUT,
                kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT},
                check=ConnectionPool.check_connection, reconnect_timeout=24 * 3600.0)


def open_store(address: str) -> Store:
    """The store at ``address``: PostgreSQL for a ``postgresql://`` URL, else a SQLite file."""
    return PgStore(address) if is_postgres(address) else Store(address)
