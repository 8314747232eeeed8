"""Accounts: keys and their authentication, plans, the minute and month limits and their
counters, the store (SQLite), the request log and the metrics."""

from server.accounts.auth import Authenticator
from server.accounts.counters import SharedCounters
from server.accounts.limits import Admission, Counters, FloodThrottle, Limiter
from server.accounts.metrics import MULTIPROC_ENV, Metrics, reset_metrics_dir
from server.accounts.plans import PLANS
from server.accounts.requestlog import RequestLog
from server.accounts.store import KeyRecord, LogRow, Store, StoreError

__all__ = [
    "MULTIPROC_ENV", "PLANS", "Admission", "Authenticator", "Counters", "FloodThrottle",
    "KeyRecord", "Limiter", "LogRow", "Metrics", "RequestLog", "SharedCounters", "Store",
    "StoreError", "reset_metrics_dir",
]
