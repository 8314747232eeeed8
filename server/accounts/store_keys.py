"""The store's accounts and keys (``Store`` inherits ``KeyQueries``): accounts and their plans
and limits, keys created, rotated and revoked, the records a presented key is checked against,
and the generation number that tells the workers to read their cached keys again.

Only the SHA-256 of a key's secret is stored, with a short display prefix; the secret itself is
returned once by ``create_key``/``rotate_key`` and never written anywhere.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from server.accounts.plans import PLANS, Plan, plan_named

KEY_PREFIX = "hk_live_"
DISPLAY_CHARS = len(KEY_PREFIX) + 4


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


class KeyQueries:
    """Accounts and keys: the methods of ``Store`` that read and write them."""

    if TYPE_CHECKING:  # the store's own (``Store``, ``PgStore``)
        @property
        def conn(self) -> sqlite3.Connection: ...

        def write(self) -> AbstractContextManager[sqlite3.Connection]: ...

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
                 "created": iso_time(r[3]), "revoked": iso_time(r[4]) if r[4] else None,
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
        return [{"id": k, "prefix": p + "…", "created": iso_time(c),
                 "lastUsed": iso_time(u) if u is not None else None, "calls": calls.get(k, 0)}
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


def iso_time(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))
