"""Bearer keys: ``Authorization: Bearer hk_live_…`` on every /v2 route and MCP tool call.

Lookups are cached in the worker for at most ``ttl`` seconds (60 by default), unknown keys
included, so a plan change or a revocation reaches every running worker within a minute while
a busy key costs no database read. The cache is keyed by the header's value as sent, so a
repeated key costs one dict lookup (0.2 µs) instead of parsing, matching and hashing it again
(1.0 µs; ``bench/run_request_budget.py``); the worker holds the secrets it was sent for that
long, as it holds them while it answers. The clock is injectable for tests.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from engine.errors import KeyRevoked, Unauthorized
from server.accounts.store import KeyRecord, Store, hash_secret

_KEY_SHAPE = re.compile(r"hk_live_[A-Za-z0-9_-]{32,}")
_MAX_CACHED = 10_000
# What a 401 says (API.md 8.1, 9): that a key is needed and how to send it, so an MCP client
# without one shows the user this text rather than a bare "Unauthorized".
NEEDS_KEY = ("an API key is needed: send it as the HTTP header 'Authorization: Bearer hk_live_...' "
             "(an MCP client: add that header to the server's configuration; a key comes from "
             "the account page /account or 'harmony keys create ACCOUNT')")


class Authenticator:
    def __init__(self, store: Store, ttl: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.ttl = ttl
        self.clock = clock
        # header value -> (expiry, its record or None for an unknown key)
        self._cache: dict[str, tuple[float, KeyRecord | None]] = {}

    def authenticate(self, authorization: str | None) -> KeyRecord:
        """The key record for an ``Authorization`` header value, or a 401 error."""
        if not authorization:
            raise Unauthorized(NEEDS_KEY)
        hit = self._cache.get(authorization)
        if hit is not None and hit[0] > self.clock():
            record = hit[1]
        else:
            record = self._lookup(authorization)
        if record is None:
            raise Unauthorized("unknown API key: " + NEEDS_KEY)
        if record.revoked:
            raise KeyRevoked("this API key has been revoked or rotated; use its replacement")
        return record

    def forget(self, key_id: str) -> None:
        """Drop ``key_id`` from this worker's cache (the account page revoked or rotated it):
        here it stops at once; other workers see it within ``ttl``."""
        self._cache = {h: hit for h, hit in self._cache.items()
                       if hit[1] is None or hit[1].key_id != key_id}

    def _lookup(self, authorization: str) -> KeyRecord | None:
        """Parse the header and read its key from the store; cache the answer (a malformed
        header is refused each time, uncached)."""
        scheme, _, secret = authorization.strip().partition(" ")
        secret = secret.strip()
        if scheme.lower() != "bearer" or not _KEY_SHAPE.fullmatch(secret):
            raise Unauthorized("malformed API key: " + NEEDS_KEY)
        record = self.store.lookup_key(hash_secret(secret))
        if len(self._cache) >= _MAX_CACHED:
            self._cache.clear()  # a flood of random keys cannot grow memory without bound
        self._cache[authorization] = (self.clock() + self.ttl, record)
        return record
