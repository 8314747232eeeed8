"""State in one SQLite file: accounts, keys, counters, the request log and vocabulary gaps.

WAL mode lets several granian workers read while one writes; every write is a short
``BEGIN IMMEDIATE`` transaction and ``busy_timeout`` makes the others wait their turn, so the
counters stay exact across processes. One connection per (process, thread): a worker forked
after the store was opened gets its own, and the background log writer's thread its own.

``Store`` holds the connections, the schema's migration and the request log's writing; its
queries of accounts and keys are ``KeyQueries`` (``store_keys``), those of the monthly totals and
the usage reports ``UsageQueries`` (``store_usage``), whose names are given here too.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from itertools import chain
from typing import Any, NamedTuple

from server.accounts.sqlite_schema import MIGRATIONS
from server.accounts.store_keys import (
    DISPLAY_CHARS,
    KEY_PREFIX,
    AccountRecord,
    KeyQueries,
    KeyRecord,
    StoreError,
    hash_secret,
    new_secret,
)
from server.accounts.store_usage import USAGE_GROUPS, UsageQueries

__all__ = ["DISPLAY_CHARS", "KEY_PREFIX", "LOG_CHUNK", "MIGRATIONS", "PRUNE_CHUNK",
           "USAGE_GROUPS", "AccountRecord", "KeyRecord", "LogRow", "Store", "StoreError",
           "from_values", "hash_secret", "new_secret"]

LOG_CHUNK = 64     # log rows a statement (``Store._insert_log``)
PRUNE_CHUNK = 5000  # log rows a DELETE of ``Store.prune_log`` (one short transaction each)
_INSERT_LOG = ("INSERT INTO request_log (ts, key_id, surface, operation, status, error, "
               "latency_us, body) ")


# A NamedTuple made from its values' tuple, as its own ``_make`` does: ``from_values(LogRow,
# (...))``. Calling the class by name runs its Python ``__new__`` (0.20-0.26 µs); this 0.10 µs.
# The request path makes its log rows, limit counts and admissions so.
from_values = tuple.__new__


class LogRow(NamedTuple):
    """One request's log row, its fields in the table's column order (the symbol aside). A
    tuple, made positionally (0.18 µs; the slots dataclass it was: 0.33 µs with keywords),
    whose first eight values are bound to SQLite's INSERT as they are (``Store._insert_log``)."""

    ts: float
    key_id: str | None
    surface: str
    operation: str | None
    status: int
    error: str | None
    latency_us: int
    body: bytes | None
    symbol: str | None = None    # the chord symbol of an invalid_chord, for vocab-gaps


class Store(KeyQueries, UsageQueries):
    """The SQLite store (``PgStore``, ``server.accounts.pgstore``: the same on PostgreSQL)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.local_path = path      # where this machine's own files go (pgstore.local_path)
        self._retained_to = 0.0     # log bodies before this are past retention (write_log)
        self._local = threading.local()
        self.migrate()

    # ------------------------------------------------------------ connections

    @property
    def conn(self) -> sqlite3.Connection:
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30.0,
                                   check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 30000")
            # a new file only (an existing one is converted once by ``migrate``): pages freed
            # by the log's retention go back to the file system (``prune_log``)
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            local.conn, local.pid = conn, os.getpid()
        c: sqlite3.Connection = local.conn
        return c

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that takes the lock up front (no upgrade deadlocks)."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            conn.close()
            del self._local.conn, self._local.pid

    migrations: tuple[str, ...] = MIGRATIONS

    def migrate(self) -> int:
        """Apply the schema steps this database has not had yet (``migrations``), in one
        transaction; returns the schema version."""
        with self.write() as c:
            self._lock_schema(c)
            c.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = c.execute("SELECT version FROM schema_version").fetchone()
            version = row[0] if row else 0
            if row is None:
                c.execute("INSERT INTO schema_version VALUES (0)")
            for script in self.migrations[version:]:
                for statement in script.split(";"):
                    if statement.strip():
                        c.execute(statement)
            c.execute("UPDATE schema_version SET version = ?", (len(self.migrations),))
        self._incremental_vacuum()
        return len(self.migrations)

    def _incremental_vacuum(self) -> None:
        """A database made before the log's rows were deleted has no incremental vacuum: one
        VACUUM turns it on (once; a busy database is tried again at the next start)."""
        conn = self.conn
        if not isinstance(conn, sqlite3.Connection):
            return
        if conn.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
            try:
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
                conn.execute("VACUUM")
            except sqlite3.OperationalError:
                pass

    def _lock_schema(self, c: Any) -> None:
        """Nothing to do on SQLite: ``BEGIN IMMEDIATE`` already holds the only write lock."""

    # ------------------------------------------------------------ the request log

    # SQL's two-argument maximum: SQLite's scalar max(), PostgreSQL's greatest()
    _GREATEST = "max"

    def write_log(self, rows: Iterable[LogRow], retention_days: int) -> int:
        """One batch of the request log in one transaction (``_insert_log``), then each key's
        last use, the vocabulary gaps and the retention of bodies."""
        rows = list(rows)
        now = time.time()
        # Rows come in the order they were answered: a key's last row is its latest (and the
        # SQL keeps the greater of that and the stored one).
        last_used = {r.key_id: r.ts for r in rows if r.key_id is not None}
        with self.write() as c:
            self._insert_log(c, rows)
            c.executemany(f"UPDATE keys SET last_used = {self._GREATEST}(coalesce(last_used, "
                          "0), ?) WHERE id = ?", [(ts, k) for k, ts in last_used.items()])
            c.executemany(
                "INSERT INTO vocab_gaps VALUES (?, 1, ?) ON CONFLICT (symbol) DO UPDATE SET "
                "count = vocab_gaps.count + 1, last_seen = excluded.last_seen",
                [(r.symbol, r.ts) for r in rows if r.symbol])
            # Retention: bodies go after the configured period, read on the ts index from
            # where this process's last pass stopped (log rows are written as they happen, so
            # none arrives older than that); counters once expired.
            cutoff = now - retention_days * 86400
            c.execute("UPDATE request_log SET body = NULL WHERE ts >= ? AND ts < ? AND body IS "
                      "NOT NULL", (self._retained_to, cutoff))
            c.execute("DELETE FROM counters WHERE expires < ?", (now,))
        self._retained_to = max(self._retained_to, cutoff)
        return len(rows)

    def prune_log(self, before: float) -> int:
        """Delete the log rows older than ``before`` (a time stamp), oldest first, at most
        ``PRUNE_CHUNK`` a transaction so that the log writers of the other workers wait for one
        chunk at most; then give the freed pages back to the file system (SQLite's
        incremental vacuum: the file shrinks). PostgreSQL: the same DELETEs; its autovacuum
        makes the space reusable for new rows (the table stops growing; the file does not
        shrink, which only VACUUM FULL would do, locking the table). The number deleted."""
        deleted = 0
        while True:
            with self.write() as c:
                n = c.execute("DELETE FROM request_log WHERE id IN (SELECT id FROM request_log "
                              "WHERE ts < ? ORDER BY ts LIMIT ?)", (before, PRUNE_CHUNK)).rowcount
            deleted += max(0, n)
            if n < PRUNE_CHUNK:
                break
            os.sched_yield()
        conn = self.conn
        if isinstance(conn, sqlite3.Connection):  # also the pages of bodies blanked since
            conn.executescript("PRAGMA incremental_vacuum;")  # executescript: every step
        return deleted

    def _insert_log(self, c: Any, rows: list[LogRow]) -> None:
        """The batch's rows, at most LOG_CHUNK a statement: one multi-row ``INSERT ... VALUES``
        whose values are bound as they are (a body as its BLOB), so each statement is one step
        of SQLite with the GIL released, and no JSON is made or parsed. Per row (3,500-row
        batches, this VM): 1.7 µs against 3.2 µs for the JSON text read by ``json_each`` it
        replaces, whose bodies were also decoded to text in Python first. Row by row
        (executemany) took the GIL back at every row, in a tug of war with the request threads:
        server CPU per analyze call was ~127 µs that way, ~106 µs with one statement a chunk,
        ~87 µs with no log at all (bench/load.py's figure over RSGI, 4 runs each).

        The CPU is given up between chunks: a whole batch in one statement held a core for
        ~3 ms, and the scheduler let requests wait that long behind it (sequential analyze p99
        1.9-2.6 ms, 0.39 ms with no log); chunks of 64 rows measured 0.63-0.78 ms. A batch is
        cut into chunks of 64 and then of the powers of two its remainder is made of, so at most
        seven statements are ever prepared (the connection's statement cache keeps them)."""
        start = 0
        for size in _chunk_sizes(len(rows)):
            if start:
                os.sched_yield()
            chunk = rows[start:start + size]
            start += size
            c.execute(_insert_rows(size), list(chain.from_iterable(r[:8] for r in chunk)))

    def log_rows(self) -> list[tuple[Any, ...]]:
        return self.conn.execute(
            "SELECT ts, key_id, surface, operation, status, error, latency_us, body "
            "FROM request_log ORDER BY id").fetchall()

def _chunk_sizes(rows: int) -> Iterator[int]:
    """LOG_CHUNK while that many are left, then the powers of two the remainder is made of:
    100 -> 64, 32, 4."""
    while rows >= LOG_CHUNK:
        rows -= LOG_CHUNK
        yield LOG_CHUNK
    size = 1 << (LOG_CHUNK - 1).bit_length()  # LOG_CHUNK itself when it is a power of two
    while rows:
        size >>= 1
        if rows & size:
            rows -= size
            yield size


@cache
def _insert_rows(rows: int) -> str:
    """The INSERT of ``rows`` log rows, eight values each (``LogRow`` without its symbol)."""
    return _INSERT_LOG + "VALUES " + ",".join(["(?,?,?,?,?,?,?,?)"] * rows)
