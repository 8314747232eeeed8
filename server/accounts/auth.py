"""Bearer keys: ``Authorization: Bearer hk_live_…`` on every /v2 route and MCP tool call.

Lookups are cached in the worker for at most ``ttl`` seconds (60 by default), unknown keys
included, so a busy key (or a flood of one made-up key) costs no database read. The cache is
keyed by the header's value as sent, so a repeated key costs one dict lookup (0.2 µs) instead
of parsing, matching and hashing it again (1.0 µs; ``bench/run_request_budget.py``); the
worker holds the secrets it was sent for that long, as it holds them while it answers.

A revocation, a rotation or a plan change does not wait for the ``ttl``: the store keeps a
generation number that each of those raises in the same transaction, and ``KeyWatch`` (a
thread of each worker) reads it every ``WATCH_SECONDS``; when it moved, the records of every
cached key are read again in one query and the cache is replaced (``refresh``). So a change
made on any worker of any machine (or by the ``harmony keys`` command) holds everywhere within
about half a second, and the cached keys stay cached (they keep working through an outage).

Outages (issue 35): a key not in the cache is read from the store on a small thread pool, and
the request waits ``timeout`` (0.1 s by default, ``HARMONY_STORE_TIMEOUT``) at most. A store
that does not answer in time, or fails, gets ``Unavailable`` (503, ``Retry-After: 1``), unless
the key was cached before and has only outlived its ``ttl``: the last answer then holds until
the store can say (the watch keeps revocations coming whenever the store answers); for
the next ``retry`` second the misses are answered 503 at once without trying (so a flood of
made-up keys during an outage stalls nothing); a late answer is still cached when it comes,
and closes that gap at once. Lookups in flight are bounded (``MAX_PENDING``). The clock is
injectable for tests.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from engine.errors import KeyRevoked, Unauthorized, Unavailable
from server.accounts.pgstore import outage_errors
from server.accounts.store import KeyRecord, Store, hash_secret

_KEY_SHAPE = re.compile(r"hk_live_[A-Za-z0-9_-]{32,}")
_MAX_CACHED = 10_000
# What a 401 says (API.md 8.1, 9): that a key is needed and how to send it, so an MCP client
# without one shows the user this text rather than a bare "Unauthorized".
NEEDS_KEY = ("an API key is needed: send it as the HTTP header 'Authorization: Bearer hk_live_...' "
             "(an MCP client: add that header to the server's configuration; a key comes from "
             "the account page /account or 'harmony keys create ACCOUNT')")
LOOKUP_THREADS = 2      # a worker's key lookups run here, so a request can stop waiting
MAX_PENDING = 32        # lookups in flight at once; more: 503 at once
WATCH_SECONDS = 0.5     # how often a worker reads the store's key generation

# header value -> (expiry, its record or None for an unknown key, the secret's hash)
Entry = tuple[float, KeyRecord | None, str]


def _unavailable() -> Unavailable:
    return Unavailable("the key store did not answer in time; try again in a second",
                       retryAfter=1)


class Authenticator:
    def __init__(self, store: Store, ttl: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, timeout: float = 0.1,
                 retry: float = 1.0) -> None:
        self.store = store
        self.ttl = ttl
        self.clock = clock
        self.timeout = timeout
        self.retry = retry
        self._cache: dict[str, Entry] = {}
        self.generation: int | None = None   # the store's key generation the cache reflects
        self._epoch = 0                      # raised when a refresh starts (see ``_read``)
        self._down_until = 0.0               # the store failed: misses are 503 until then
        self._pending: dict[str, Future[KeyRecord | None]] = {}
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pid = -1

    def authenticate(self, authorization: str | None) -> KeyRecord:
        """The key record for an ``Authorization`` header value, or a 401 error (503
        ``unavailable`` when the store cannot say in time)."""
        if not authorization:
            raise Unauthorized(NEEDS_KEY)
        hit = self._cache.get(authorization)
        if hit is not None and hit[0] > self.clock():
            record = hit[1]
        else:
            try:
                record = self._lookup(authorization)
            except Unavailable:
                if hit is None:
                    raise
                record = hit[1]  # past its time, but the store cannot say: the last answer

        if record is None:
            raise Unauthorized("unknown API key: " + NEEDS_KEY)
        if record.revoked:
            raise KeyRevoked("this API key has been revoked or rotated; use its replacement")
        return record

    def forget(self, key_id: str) -> None:
        """Drop ``key_id`` from this worker's cache (the account page revoked or rotated it):
        here it stops at once; the other workers see the store's generation move."""
        self._cache = {h: hit for h, hit in dict(self._cache).items()  # a copy: see refresh
                       if hit[1] is None or hit[1].key_id != key_id}

    # ------------------------------------------------------------ the store, bounded

    def _lookup(self, authorization: str) -> KeyRecord | None:
        """Parse the header and read its key from the store (cached by ``_fetch``; a
        malformed header is refused each time, uncached)."""
        scheme, _, secret = authorization.strip().partition(" ")
        secret = secret.strip()
        if scheme.lower() != "bearer" or not _KEY_SHAPE.fullmatch(secret):
            raise Unauthorized("malformed API key: " + NEEDS_KEY)
        if self.clock() < self._down_until:
            raise _unavailable()
        future = self._submit(authorization, hash_secret(secret))
        try:
            return future.result(timeout=self.timeout)
        except FutureTimeout:
            self._down_until = self.clock() + self.retry
            raise _unavailable() from None
        except outage_errors() as exc:
            self._down_until = self.clock() + self.retry
            print(f"harmony: key store unavailable: {type(exc).__name__}: "
                  f"{str(exc).splitlines()[0] if str(exc) else ''}", file=sys.stderr)
            raise _unavailable() from None

    def _submit(self, authorization: str, digest: str) -> Future[KeyRecord | None]:
        """The lookup of ``authorization`` in flight, joined, or a new one."""
        with self._lock:
            future = self._pending.get(authorization)
            if future is not None:
                return future
            if len(self._pending) >= MAX_PENDING:
                raise _unavailable()
            future = self._executor().submit(self._fetch, authorization, digest, self._epoch)
            self._pending[authorization] = future
        return future

    def _fetch(self, authorization: str, digest: str, epoch: int) -> KeyRecord | None:
        """A lookup, on the pool: its answer is cached (before the waiting request sees it),
        even a late one, unless a refresh began since it was asked (it may predate a
        revocation); an answer means the store is back."""
        try:
            record = self.store.lookup_key(digest)
            self._down_until = 0.0
            if epoch == self._epoch:
                if len(self._cache) >= _MAX_CACHED:
                    self._make_room()
                self._cache[authorization] = (self.clock() + self.ttl, record, digest)
            return record
        finally:
            with self._lock:
                self._pending.pop(authorization, None)

    def _make_room(self) -> None:
        """A full cache (a flood of random keys) drops its unknown keys first, then its
        expired ones, so the keys in use stay cached; all of it only if that frees too
        little."""
        now = self.clock()
        kept = {h: e for h, e in dict(self._cache).items() if e[1] is not None}
        if len(kept) >= _MAX_CACHED // 2:
            kept = {h: e for h, e in kept.items() if e[0] > now}
        self._cache = kept if len(kept) < _MAX_CACHED // 2 else {}

    def _executor(self) -> ThreadPoolExecutor:
        if self._pid != os.getpid():  # a forked worker makes its own threads
            self._pool = ThreadPoolExecutor(LOOKUP_THREADS, "harmony-key-lookup")
            self._pending, self._pid = {}, os.getpid()
        assert self._pool is not None
        return self._pool

    # ------------------------------------------------------------ revocations everywhere

    def refresh(self, generation: int) -> bool:
        """The store's key generation is ``generation``: if it moved since the cache was
        read, read every cached key again (one query) and replace the cache. True when the
        cache now reflects ``generation``; a store error leaves it to the next round."""
        if generation == self.generation:
            return True
        if self.generation is None and not self._cache:
            self.generation = generation
            return True
        with self._lock:
            self._epoch += 1      # lookups asked before this point are not cached
        cache = dict(self._cache)  # one C call: request threads may add entries meanwhile
        records = self.store.lookup_keys({entry[2] for entry in cache.values()})
        self._cache = {h: (expiry, records.get(digest), digest)
                       for h, (expiry, _, digest) in cache.items()}
        self.generation = generation
        return True

    def close(self) -> None:
        if self._pool is not None and self._pid == os.getpid():
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool, self._pid = None, -1


class KeyWatch:
    """A worker's thread reading the store's key generation every ``interval`` and giving it
    to ``Authenticator.refresh``; a store that cannot answer leaves the cache as it is."""

    def __init__(self, auth: Authenticator, interval: float = WATCH_SECONDS) -> None:
        self.auth = auth
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="harmony-key-watch",
                                            daemon=True)
            self._thread.start()

    def check(self) -> bool:
        """One round: read the generation, refresh the cache if it moved."""
        try:
            return self.auth.refresh(self.auth.store.keys_generation())
        except outage_errors():
            return False

    def _run(self) -> None:
        self.check()
        while not self._stop.wait(self.interval):
            self.check()

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join(10)
            self._thread = None
