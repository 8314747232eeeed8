"""State in one SQLite file: accounts, keys, counters, the request log and vocabulary gaps.

WAL mode lets several granian workers read while one writes; every write is a short
``BEGIN IMMEDIATE`` transaction and ``busy_timeout`` makes the others wait their turn, so the
counters stay exact across processes. One connection per (process, thread): a worker forked
after the store was opened gets its own, and the background log writer's thread its own.

Only the SHA-256 of a key's secret is stored, with a short display prefix; the secret itself is
returned once by ``create_key``/``rotate_key`` and never written anywhere.
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from typing import Any, NamedTuple

from server.accounts.plans import PLANS, Plan, plan_named
from server.accounts.sqlite_schema import MIGRATIONS

KEY_PREFIX = "hk_live_"
DISPLAY_CHARS = len(KEY_PREFIX) + 4

USAGE_GROUPS = ("key", "day", "operation")
LOG_CHUNK = 64     # log rows a statement (``Store._insert_log``)
PRUNE_CHUNK = 5000  # log rows a DELETE of ``Store.prune_log`` (one short transaction each)
_INSERT_LOG = ("INSERT INTO request_log (ts, key_id, surface, operation, status, error, "
               "latency_us, body) ")


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)  # 43 URL-safe characters


@dataclass(frozen=True)
class KeyRecord:
    """What the server needs to know about a presented key."""

    key_id: str
    account_id: int
    account: str
    plan: Plan
    per_minute: int
    per_month: int
    revoked: bool
    # The two fixed quota headers of every answer on this key, built once per key record (the
    # record is cached by the authenticator): two int-to-text conversions less a call.
    month_limit_header: tuple[str, str] = field(init=False, repr=False, compare=False)
    minute_limit_header: tuple[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "month_limit_header", ("x-quota-limit", str(self.per_month)))
        object.__setattr__(self, "minute_limit_header", ("ratelimit-limit", str(self.per_minute)))


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


@dataclass(frozen=True)
class AccountRecord:
    """An account with its plan and the limits in force (an enterprise account's own)."""

    account_id: int
    name: str
    plan: Plan
    per_minute: int
    per_month: int


class StoreError(Exception):
    """A CLI-level mistake: unknown account, key cap reached, ..."""


class Store:
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

    # ------------------------------------------------------------ accounts and keys

    def create_account(self, name: str, plan: str) -> int:
        plan_named(plan)
        with self.write() as c:
            if c.execute("SELECT 1 FROM accounts WHERE name = ?", (name,)).fetchone():
                raise StoreError(f"account {name!r} exists")
            row = c.execute("INSERT INTO accounts (name, plan, created) VALUES (?, ?, ?) "
                            "RETURNING id", (name, plan, time.time())).fetchone()
            return int(row[0])

    def set_plan(self, name: str, plan: str) -> None:
        """Move the account to ``plan``, with that plan's limits: enterprise overrides made by
        ``set_limits`` are cleared (set them again after moving back to enterprise)."""
        plan_named(plan)
        self._update_account(name, "UPDATE accounts SET plan = ?, per_minute = NULL, "
                                   "per_month = NULL WHERE name = ?", (plan, name))

    def set_limits(self, name: str, per_minute: int, per_month: int) -> None:
        self._update_account(
            name, "UPDATE accounts SET plan = 'enterprise', per_minute = ?, per_month = ? "
                  "WHERE name = ?", (per_minute, per_month, name))

    def _update_account(self, name: str, sql: str, params: tuple[Any, ...]) -> None:
        with self.write() as c:
            if c.execute(sql, params).rowcount == 0:
                raise StoreError(f"no account named {name!r}")
            _bump_keys(c)

    def accounts(self) -> list[tuple[str, str]]:
        return self.conn.execute("SELECT name, plan FROM accounts ORDER BY id").fetchall()

    def has_keys(self) -> bool:
        return self.conn.execute("SELECT 1 FROM keys LIMIT 1").fetchone() is not None

    def create_key(self, account: str) -> tuple[str, str]:
        """A new key for ``account``: (key id, secret). The secret is not kept."""
        with self.write() as c:
            row = c.execute("SELECT id, plan FROM accounts WHERE name = ?", (account,)).fetchone()
            if row is None:
                raise StoreError(f"no account named {account!r}")
            active = c.execute("SELECT count(*) FROM keys WHERE account_id = ? AND revoked IS "
                               "NULL", (row[0],)).fetchone()[0]
            cap = plan_named(row[1]).max_keys
            if active >= cap:
                raise StoreError(f"account {account!r} has {active} active "
                                 f"key{'' if active == 1 else 's'}: its {row[1]} plan allows "
                                 f"{cap}")
            return self._insert_key(c, row[0])

    def rotate_key(self, key_id: str, account_id: int | None = None) -> tuple[str, str]:
        """Revoke ``key_id`` and issue its replacement on the same account, atomically. With
        ``account_id`` (the account page), a key of another account is "no active key" too."""
        with self.write() as c:
            row = c.execute("SELECT account_id FROM keys WHERE id = ? AND revoked IS NULL",
                            (key_id,)).fetchone()
            if row is None or (account_id is not None and row[0] != account_id):
                raise StoreError(f"no active key {key_id!r}")
            new_id, secret = self._insert_key(c, row[0])
            c.execute("UPDATE keys SET revoked = ?, replaced_by = ? WHERE id = ?",
                      (time.time(), new_id, key_id))
            _bump_keys(c)
            return new_id, secret

    def revoke_key(self, key_id: str, account_id: int | None = None) -> None:
        """Revoke ``key_id``; with ``account_id``, only a key of that account."""
        sql = "UPDATE keys SET revoked = ? WHERE id = ? AND revoked IS NULL"
        params: tuple[Any, ...] = (time.time(), key_id)
        if account_id is not None:
            sql, params = sql + " AND account_id = ?", (*params, account_id)
        with self.write() as c:
            if c.execute(sql, params).rowcount == 0:
                raise StoreError(f"no active key {key_id!r}")
            _bump_keys(c)

    @staticmethod
    def _insert_key(c: sqlite3.Connection, account_id: int) -> tuple[str, str]:
        secret = new_secret()
        key_id = "key_" + secrets.token_hex(6)
        c.execute("INSERT INTO keys (id, account_id, prefix, hash, created) VALUES (?,?,?,?,?)",
                  (key_id, account_id, secret[:DISPLAY_CHARS], hash_secret(secret), time.time()))
        return key_id, secret

    def list_keys(self, account: str | None = None) -> list[dict[str, Any]]:
        sql = ("SELECT k.id, a.name, k.prefix, k.created, k.revoked, k.replaced_by FROM keys k "
               "JOIN accounts a ON a.id = k.account_id")
        rows = (self.conn.execute(sql + " WHERE a.name = ? ORDER BY k.created", (account,))
                if account else self.conn.execute(sql + " ORDER BY k.created"))
        return [{"id": r[0], "account": r[1], "prefix": r[2] + "…",
                 "created": _iso(r[3]), "revoked": _iso(r[4]) if r[4] else None,
                 "replacedBy": r[5]} for r in rows]

    def account(self, account_id: int) -> AccountRecord | None:
        row = self.conn.execute("SELECT id, name, plan, per_minute, per_month FROM accounts "
                                "WHERE id = ?", (account_id,)).fetchone()
        if row is None:
            return None
        plan = PLANS.get(row[2], PLANS["free"])
        return AccountRecord(row[0], row[1], plan,
                             row[3] if row[3] is not None else plan.per_minute,
                             row[4] if row[4] is not None else plan.per_month)

    def account_id(self, name: str) -> int:
        row = self.conn.execute("SELECT id FROM accounts WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise StoreError(f"no account named {name!r}")
        return int(row[0])

    def active_keys(self, account_id: int, since: float) -> list[dict[str, Any]]:
        """The account's keys not revoked, oldest first: id, prefix, created, last used (None
        when never), and the calls logged since ``since`` (the month's start)."""
        keys = self.conn.execute(
            "SELECT id, prefix, created, last_used FROM keys WHERE account_id = ? AND revoked "
            "IS NULL ORDER BY created, id", (account_id,)).fetchall()
        calls = dict(self.conn.execute(
            "SELECT key_id, count(*) FROM request_log WHERE ts >= ? AND key_id IN (SELECT id "
            "FROM keys WHERE account_id = ? AND revoked IS NULL) GROUP BY key_id",
            (since, account_id)).fetchall())
        return [{"id": k, "prefix": p + "…", "created": _iso(c),
                 "lastUsed": _iso(u) if u is not None else None, "calls": calls.get(k, 0)}
                for k, p, c, u in keys]

    def lookup_key(self, secret_hash: str) -> KeyRecord | None:
        row = self.conn.execute(_KEY_SQL + "k.hash = ?", (secret_hash,)).fetchone()
        return None if row is None else _key_record(row)

    def lookup_keys(self, secret_hashes: Iterable[str]) -> dict[str, KeyRecord]:
        """The records of the known keys among ``secret_hashes``, by hash (a worker reading
        its cached keys again after a revocation: ``Authenticator.refresh``)."""
        hashes, found = sorted(set(secret_hashes)), dict[str, KeyRecord]()
        for start in range(0, len(hashes), 500):
            chunk = hashes[start:start + 500]
            rows = self.conn.execute(
                _KEY_SQL.replace("SELECT ", "SELECT k.hash, ", 1)
                + f"k.hash IN ({','.join('?' * len(chunk))})", chunk).fetchall()
            found.update((row[0], _key_record(row[1:])) for row in rows)
        return found

    def keys_generation(self) -> int:
        """A number raised by every revocation, rotation and plan or limit change (in the
        same transaction): the workers read it about twice a second (``KeyWatch``)."""
        row = self.conn.execute("SELECT value FROM meta WHERE name = 'keys'").fetchone()
        return int(row[0]) if row else 0

    # ------------------------------------------------------------ monthly totals

    def instance_id(self) -> str:
        """A random id made with this database, so a counters file knows whose it is."""
        row = self.conn.execute("SELECT value FROM meta WHERE name = 'instance'").fetchone()
        return str(row[0])

    def month_total(self, account_id: int, month: str) -> tuple[int, int]:
        """(successful calls, version) of one account's month 'YYYY-MM'; (0, 0) if none:
        what a Redis that lost its data is seeded with (``RedisCounters``)."""
        row = self.conn.execute("SELECT count, version FROM month_usage WHERE account_id = ? "
                                "AND month = ?", (account_id, month)).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def month_usage(self) -> list[tuple[int, str, int, int]]:
        """(account id, 'YYYY-MM', successful calls, version), oldest month first."""
        return self.conn.execute("SELECT account_id, month, count, version FROM month_usage "
                                 "ORDER BY month, account_id").fetchall()

    def save_month_usage(self, rows: Iterable[tuple[int, str, int, int]]) -> None:
        with self.write() as c:
            c.executemany(
                "INSERT INTO month_usage VALUES (?, ?, ?, ?) ON CONFLICT (account_id, month) "
                "DO UPDATE SET "
                "count = excluded.count, version = excluded.version "
                "WHERE excluded.version > month_usage.version", list(rows))

    # ------------------------------------------------------------ log and reports

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

    def usage(self, account: str | None = None, days: int = 30, by: str = "key",
              now: float | None = None) -> list[dict[str, Any]]:
        """Calls, errors, error rate, p50/p95 latency (µs) over the last ``days``, per key
        (with its account), per UTC day (``YYYY-MM-DD``) or per operation (``by``). The
        account page shows exactly these rows."""
        if by not in USAGE_GROUPS:
            raise ValueError(f"usage by {by!r}: use one of {', '.join(USAGE_GROUPS)}")
        sql = ("SELECT l.key_id, a.name, l.ts, l.operation, l.status, l.latency_us "
               "FROM request_log l LEFT JOIN keys k ON k.id = l.key_id "
               "LEFT JOIN accounts a ON a.id = k.account_id WHERE l.ts >= ?")
        params: tuple[Any, ...] = ((time.time() if now is None else now) - days * 86400,)
        if account:
            sql += " AND a.name = ?"
            params += (account,)
        groups: dict[tuple[str | None, ...], list[tuple[int, int]]] = {}
        for key_id, name, ts, operation, status, latency in self.conn.execute(sql, params):
            group: tuple[str | None, ...] = ((key_id, name) if by == "key" else (_day(ts),) if by == "day"
                     else (operation,))
            groups.setdefault(group, []).append((status, latency))
        report = []
        for found, calls in sorted(groups.items(), key=lambda g: str(g[0])):
            latencies = sorted(lat for _, lat in calls)
            errors = sum(1 for status, _ in calls if status >= 400)
            head = ({"key": found[0], "account": found[1]} if by == "key"
                    else {by: found[0]})
            report.append({**head, "calls": len(calls),
                           "errors": errors, "errorRate": round(errors / len(calls), 4),
                           "p50Us": _percentile(latencies, 0.50),
                           "p95Us": _percentile(latencies, 0.95)})
        return report

    def vocab_gaps(self, limit: int = 20) -> list[dict[str, Any]]:
        rows = self.conn.execute("SELECT symbol, count, last_seen FROM vocab_gaps "
                                 "ORDER BY count DESC, symbol LIMIT ?", (limit,))
        return [{"symbol": s, "count": n, "lastSeen": _iso(t)} for s, n, t in rows]


_KEY_SQL = ("SELECT k.id, a.id, a.name, a.plan, a.per_minute, a.per_month, k.revoked "
            "FROM keys k JOIN accounts a ON a.id = k.account_id WHERE ")


def _key_record(row: Sequence[Any]) -> KeyRecord:
    plan = PLANS.get(row[3], PLANS["free"])
    return KeyRecord(row[0], row[1], row[2], plan,
                     row[4] if row[4] is not None else plan.per_minute,
                     row[5] if row[5] is not None else plan.per_month,
                     row[6] is not None)


def _bump_keys(c: Any) -> None:
    """Raise the key generation (``Store.keys_generation``) inside a write transaction. The
    number lives in ``meta`` as text (SQL that SQLite and PostgreSQL both run, no migration)."""
    c.execute("INSERT INTO meta VALUES ('keys', '1') ON CONFLICT (name) DO UPDATE SET "
              "value = CAST(CAST(meta.value AS INTEGER) + 1 AS TEXT)")


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


def _percentile(sorted_values: list[int], q: float) -> int:
    # Nearest rank: a value that was actually observed.
    index = max(0, min(len(sorted_values) - 1, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]


def _day(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))
