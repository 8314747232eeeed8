"""Accounts: keys and their authentication, plans, the minute and month limits and their
counters, the store (SQLite, or PostgreSQL: ``open_store``), the request log, the metrics, and the sign-in links and
sessions of the account page."""

from server.accounts.auth import NEEDS_KEY, Authenticator, KeyWatch
from server.accounts.counters import SharedCounters
from server.accounts.limits import Admission, Counters, FloodThrottle, Limiter
from server.accounts.metrics import MULTIPROC_ENV, Metrics, reset_metrics_dir
from server.accounts.pgstore import is_postgres, local_path, open_store, outage_errors
from server.accounts.plans import PLANS
from server.accounts.redis_counters import RedisCounters, counters_in_redis
from server.accounts.requestlog import RequestLog
from server.accounts.signin import (
    LINK_SECONDS,
    SESSION_SECONDS,
    SignIn,
    csrf_ok,
    csrf_token,
    new_token,
)
from server.accounts.store import (
    USAGE_GROUPS,
    AccountRecord,
    KeyRecord,
    LogRow,
    Store,
    StoreError,
    from_values,
)

__all__ = [
    "LINK_SECONDS",
    "MULTIPROC_ENV",
    "NEEDS_KEY",
    "PLANS",
    "SESSION_SECONDS",
    "USAGE_GROUPS",
    "AccountRecord",
    "Admission",
    "Authenticator",
    "Counters",
    "FloodThrottle",
    "KeyRecord",
    "KeyWatch",
    "Limiter",
    "LogRow",
    "Metrics",
    "RedisCounters",
    "RequestLog",
    "SharedCounters",
    "SignIn",
    "Store",
    "StoreError",
    "counters_in_redis",
    "csrf_ok",
    "csrf_token",
    "from_values",
    "is_postgres",
    "local_path",
    "new_token",
    "open_store",
    "outage_errors",
    "reset_metrics_dir",
]
