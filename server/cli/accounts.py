"""``harmony accounts``, ``keys``, ``usage`` and ``vocab-gaps``: the commands over the store
(SQLite or PostgreSQL), opened when one of them runs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.accounts import PLANS, USAGE_GROUPS
from server.cli.common import bounded, print_json

if TYPE_CHECKING:
    from server.accounts import Store


def add_parsers(sub: Any) -> None:
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
    a.set_defaults(run=lambda ns: print_json([{"name": n, "plan": p} for n, p in
                                              _store(ns).accounts()]))

    keys = sub.add_parser("keys", help="create, list, rotate, revoke API keys").add_subparsers()
    k = keys.add_parser("create", help="print a new key (alone on stdout; shown once)")
    k.add_argument("account")
    k.set_defaults(run=lambda ns: _secret(*_store(ns).create_key(ns.account)))
    k = keys.add_parser("list")
    k.add_argument("account", nargs="?")
    k.set_defaults(run=lambda ns: print_json(_store(ns).list_keys(ns.account)))
    k = keys.add_parser("rotate", help="revoke a key and print its replacement")
    k.add_argument("key_id")
    k.set_defaults(run=lambda ns: _secret(*_store(ns).rotate_key(ns.key_id)))
    k = keys.add_parser("revoke")
    k.add_argument("key_id")
    k.set_defaults(run=lambda ns: _done(_store(ns).revoke_key, ns.key_id))

    usage = sub.add_parser("usage", help="volumes, p50/p95 latency and error rates per key")
    usage.add_argument("--account")
    usage.add_argument("--days", type=bounded(1, 100_000), default=30,
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


def cmd_login_link(ns: argparse.Namespace) -> int:
    """The link alone on stdout (the token is kept hashed: it cannot be printed again)."""
    from server.accounts import LINK_SECONDS, SignIn

    token = SignIn(_store(ns)).issue_link(ns.name)
    print(f"harmony: sign-in link for {ns.name!r}, valid {LINK_SECONDS // 60} minutes, "
          "once; give it to its user only:", file=sys.stderr)
    print(f"{ns.base_url.rstrip('/')}/account/login?token={token}", flush=True)
    return 0


def cmd_usage(ns: argparse.Namespace) -> int:
    from server.http import env_log_days

    kept = env_log_days()
    if ns.days > kept:
        print(f"harmony: the log keeps {kept} days (HARMONY_LOG_DAYS); usage reads those",
              file=sys.stderr)
    rows = _store(ns).usage(ns.account, min(ns.days, kept), ns.by)
    if ns.json:
        return print_json(rows)
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
        return print_json(rows)
    for r in rows:
        print(f"{r['count']:>8}  {r['symbol']}")
    return 0


def _store(ns: argparse.Namespace, create: bool = False) -> Store:
    """The database of ``--db`` / ``HARMONY_DB`` / ``harmony.db``. Only ``serve`` and
    ``accounts create`` make one: every other command refuses a missing file, naming it,
    rather than leave an empty database behind where it was run."""
    from server.accounts import Store, StoreError, is_postgres, open_store
    from server.http import env_db_path

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
