"""Shared test set-up: Hypothesis profiles and the location of the shared corpora."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

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
