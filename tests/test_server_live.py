"""A real ``harmony serve --workers 2`` on a free loopback port with a temporary database:
limits exact across workers, CLI-made keys, the log complete after SIGTERM, ``harmony usage``,
and the secret written nowhere."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson
import pytest

HARMONY = [sys.executable, "-m", "server.cli"]
READY_WITHIN = 180.0   # seconds: numba warm-up on a loaded 2-core machine can be slow
REQUEST = {"chord": "Cmaj7", "key": "C"}
OPERATION = "analyze"


@dataclass
class Server:
    url: str
    db: Path
    secret: str
    process: subprocess.Popen[bytes]
    stdout: Path
    stderr: Path


def harmony(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HARMONY, "--db", str(db), *args], capture_output=True, text=True,
                          timeout=120, check=True, cwd=Path(__file__).parent.parent)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("live")
    db = tmp / "harmony.db"
    harmony(db, "accounts", "create", "tester", "--plan", "free")
    secret = harmony(db, "keys", "create", "tester").stdout.strip()
    port = free_port()
    out, err = tmp / "stdout.log", tmp / "stderr.log"
    with out.open("wb") as o, err.open("wb") as e:
        process = subprocess.Popen(
            [*HARMONY, "--db", str(db), "serve", "--port", str(port), "--workers", "2"],
            stdout=o, stderr=e, cwd=Path(__file__).parent.parent,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_WITHIN
        while True:
            assert process.poll() is None, err.read_text()
            try:
                if httpx.get(url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "server not ready in time"
            time.sleep(0.2)
        yield Server(url, db, secret, process, out, err)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)


def test_limits_log_usage_and_secrecy(server: Server) -> None:
    # The minute window is the clock minute: start early in one so all calls share it.
    second = time.time() % 60
    if second > 40:
        time.sleep(60.5 - second)
    statuses = []
    headers = {"Authorization": f"Bearer {server.secret}", "User-Agent": "harmony-tests/1"}
    for _ in range(33):
        # A new connection per call, so both workers answer some of them.
        with httpx.Client(base_url=server.url, headers=headers, timeout=30) as http:
            r = http.post(f"/v2/{OPERATION}", content=orjson.dumps(REQUEST))
        statuses.append(r.status_code)
        if r.status_code == 429:
            assert r.json()["error"]["code"] == "rate_limited"
            assert r.headers["ratelimit-remaining"] == "0"
            assert int(r.headers["retry-after"]) >= 1
        else:
            assert r.headers["x-quota-used"] == str(statuses.count(200))
    assert statuses == [200] * 30 + [429] * 3

    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(60) == 0

    usage = orjson.loads(harmony(server.db, "usage", "--json").stdout)
    assert len(usage) == 1
    assert (usage[0]["account"], usage[0]["calls"], usage[0]["errors"]) == ("tester", 33, 3)
    table = harmony(server.db, "usage").stdout
    assert "tester" in table and " 33 " in table

    # Each worker flushes its own batches, so the log is in time order, not insert order.
    rows = sqlite3.connect(server.db).execute(
        "SELECT surface, operation, status, error FROM request_log ORDER BY ts").fetchall()
    assert rows == [("rest", OPERATION, 200, None)] * 30 + \
        [("rest", OPERATION, 429, "rate_limited")] * 3

    # The monthly total the workers shared through the counters file reached SQLite.
    months = sqlite3.connect(server.db).execute("SELECT count FROM month_usage").fetchall()
    assert months == [(30,)]

    secret = server.secret.encode()
    for path in server.db.parent.iterdir():
        assert secret not in path.read_bytes(), path.name
