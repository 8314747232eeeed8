"""Accounts: keys and their authentication, plans, the minute and month limits and their
counters, the store (SQLite, or PostgreSQL: ``open_store``), the request log, the metrics, and the sign-in links and
sessions of the account page. Each name is imported when first used (``engine.faces``): a
command of ``harmony`` loads only what it runs (the counters' numba kernels with the service).
"""

from typing import TYPE_CHECKING

from engine.faces import lazy_face

if TYPE_CHECKING:
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

__getattr__ = lazy_face(__name__, {
    "server.accounts.auth": ("NEEDS_KEY", "Authenticator", "KeyWatch"),
    "server.accounts.counters": ("SharedCounters",),
    "server.accounts.limits": ("Admission", "Counters", "FloodThrottle", "Limiter"),
    "server.accounts.metrics": ("MULTIPROC_ENV", "Metrics", "reset_metrics_dir"),
    "server.accounts.pgstore": ("is_postgres", "local_path", "open_store", "outage_errors"),
    "server.accounts.plans": ("PLANS",),
    "server.accounts.redis_counters": ("RedisCounters", "counters_in_redis"),
    "server.accounts.requestlog": ("RequestLog",),
    "server.accounts.signin": ("LINK_SECONDS", "SESSION_SECONDS", "SignIn", "csrf_ok",
                               "csrf_token", "new_token"),
    "server.accounts.store": ("USAGE_GROUPS", "AccountRecord", "KeyRecord", "LogRow", "Store",
                              "StoreError", "from_values"),
})

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
