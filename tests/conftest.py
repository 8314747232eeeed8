"""Shared test set-up: Hypothesis profiles and the location of the shared corpora."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    from server.accounts import Store

# CI runs a derandomised profile: the same examples every run, no example database.
settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))

REPO = Path(__file__).resolve().parent.parent
CORPORA = Path(os.environ.get("HARMONY_CORPORA", REPO.parent / "shared" / "corpora"))


@pytest.fixture(scope="session")
def corpora() -> Path:
    """The shared corpora folder; tests that need it skip cleanly when it is absent."""
    if not CORPORA.is_dir():
        pytest.skip(f"shared corpora not found at {CORPORA}")
    return CORPORA


@pytest.fixture(scope="session")
def postgres_host() -> Iterator[str]:
    """A PostgreSQL server for the session (tests/pg_server.py), its socket folder."""
    from tests.pg_server import pg_bin, postgres_server

    if pg_bin() is None:
        pytest.skip("PostgreSQL is not installed (Debian's postgresql package; .ci/run "
                    "installs it when it runs as root)")
    with postgres_server() as host:
        yield host


@pytest.fixture(params=["sqlite", "postgresql"])
def store_address(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty store's address on each backend: a SQLite file, a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "harmony.db")
    from tests.pg_server import database

    return database(request.getfixturevalue("postgres_host"))


@pytest.fixture
def opened() -> Iterator[Callable[[str], Store]]:
    """``open_store``, each store it opened closed after the test (a PostgreSQL pool left to
    the garbage collector would stop its threads from one of them)."""
    from server.accounts import open_store

    stores: list[Store] = []

    def open_(address: str) -> Store:
        stores.append(open_store(address))
        return stores[-1]

    yield open_
    for store in stores:
        store.close()


@pytest.fixture(scope="session")
def redis_service() -> Iterator[Any]:
    """A Redis server for the session (tests/redis_server.py)."""
    from tests.redis_server import redis_binary, redis_server

    if redis_binary() is None:
        pytest.skip("redis-server is not installed (Debian's redis-server package; .ci/run "
                    "installs it when it runs as root)")
    with redis_server() as server:
        yield server


@pytest.fixture
def redis_url(redis_service: Any) -> str:
    """The session's Redis, emptied for this test."""
    from tests.redis_server import flushed

    if redis_service.process is None:       # a test stopped it: start it again
        redis_service.start()
    return str(flushed(redis_service.url))
