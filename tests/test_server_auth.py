"""The key cache of a worker (``server.accounts.auth``): keyed by the Authorization header as
sent, so a busy key costs no database read and no hashing, while a malformed header is refused
every time and a revocation still arrives within the cache's lifetime."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import KeyRevoked, Unauthorized
from server.accounts import Authenticator, KeyRecord, Store


class CountingStore(Store):
    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.lookups = 0

    def lookup_key(self, secret_hash: str) -> KeyRecord | None:
        self.lookups += 1
        return super().lookup_key(secret_hash)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_repeated_key_is_read_once_within_the_cache_lifetime(tmp_path: Path) -> None:
    store = CountingStore(str(tmp_path / "harmony.db"))
    store.migrate()
    store.create_account("acme", "builder")
    key_id, secret = store.create_key("acme")
    clock = Clock()
    auth = Authenticator(store, ttl=60, clock=clock, timeout=5.0)
    for _ in range(3):
        assert auth.authenticate(f"Bearer {secret}").key_id == key_id
    assert store.lookups == 1
    # the same key written another way is the same key (one more read, then cached too)
    assert auth.authenticate(f"bearer  {secret} ").key_id == key_id
    assert store.lookups == 2
    # an unknown key is cached as unknown
    for _ in range(2):
        with pytest.raises(Unauthorized, match="unknown"):
            auth.authenticate("Bearer hk_live_" + "x" * 43)
    assert store.lookups == 3
    # a malformed header never reaches the store, however often it is sent
    for _ in range(2):
        with pytest.raises(Unauthorized, match="malformed"):
            auth.authenticate("Basic dXNlcjpwYXNz")
    assert store.lookups == 3
    # revoked in the database: this worker sees it once the cached answer has expired
    store.revoke_key(key_id)
    assert auth.authenticate(f"Bearer {secret}").key_id == key_id
    clock.now += 60
    with pytest.raises(KeyRevoked):
        auth.authenticate(f"Bearer {secret}")


def test_forget_drops_every_cached_spelling_of_a_key(tmp_path: Path) -> None:
    store = CountingStore(str(tmp_path / "harmony.db"))
    store.migrate()
    store.create_account("acme", "builder")
    key_id, secret = store.create_key("acme")
    auth = Authenticator(store, ttl=60, clock=Clock(), timeout=5.0)
    auth.authenticate(f"Bearer {secret}")
    auth.authenticate(f"bearer {secret}")
    store.revoke_key(key_id)
    auth.forget(key_id)
    for header in (f"Bearer {secret}", f"bearer {secret}"):
        with pytest.raises(KeyRevoked):
            auth.authenticate(header)
