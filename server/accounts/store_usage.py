"""The store's figures (``Store`` inherits ``UsageQueries``): each account's monthly totals of
successful calls, which the counters save and a Redis that lost its data is seeded from, and the
reports read from the request log (usage per key, day or operation; the vocabulary gaps).
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from server.accounts.store_keys import iso_time

USAGE_GROUPS = ("key", "day", "operation")


class UsageQueries:
    """Monthly totals and usage reports: the methods of ``Store`` that read and save them."""

    if TYPE_CHECKING:  # the store's own (``Store``, ``PgStore``)
        @property
        def conn(self) -> sqlite3.Connection: ...

        def write(self) -> AbstractContextManager[sqlite3.Connection]: ...

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
        return [{"symbol": s, "count": n, "lastSeen": iso_time(t)} for s, n, t in rows]


def _percentile(sorted_values: list[int], q: float) -> int:
    # Nearest rank: a value that was actually observed.
    index = max(0, min(len(sorted_values) - 1, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]


def _day(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ts))
