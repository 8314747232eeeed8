"""A real ``harmony serve --workers 2`` on a free loopback port with a temporary database, set up
through the environment (hosted profile, no request bodies kept), over RSGI and over WSGI in
turn: the first-start ``local``
key, limits and the monthly quota exact across workers, CLI-made keys, quota headers on a
refusal, /metrics summed over the workers, the log complete after SIGTERM, ``harmony usage``,
and the secret written nowhere. Nothing here waits for the clock."""

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
from prometheus_client.multiprocess import MultiProcessCollector

from tests.server_fixtures import stop_server

HARMONY = [sys.executable, "-m", "server.cli"]
READY_WITHIN = 180.0   # seconds: numba warm-up on a loaded 2-core machine can be slow
REQUEST = {"chord": "Cmaj7", "key": "C"}
OPERATION = "analyze"
AGENT = {"User-Agent": "harmony-tests/1"}


@dataclass
class Server:
    url: str
    db: Path
    local_secret: str
    process: subprocess.Popen[bytes]
    stdout: Path
    stderr: Path


def harmony(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HARMONY, "--db", str(db), *args], capture_output=True, text=True,
                          timeout=120, check=True, cwd=Path(__file__).parent.parent)


def new_key(db: Path, account: str, *plan: str) -> tuple[str, str]:
    """(key id, secret) of a new key on a new account."""
    harmony(db, "accounts", "create", account, *plan)
    secret = harmony(db, "keys", "create", account).stdout.strip()
    key_id = orjson.loads(harmony(db, "keys", "list", account).stdout)[0]["id"]
    return key_id, secret


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(server: Server, secret: str, **headers: str) -> httpx.Response:
    # A new connection per call, so both workers answer some of them.
    with httpx.Client(base_url=server.url, timeout=30,
                      headers={"Authorization": f"Bearer {secret}", **AGENT, **headers}) as http:
        return http.post(f"/v2/{OPERATION}", content=orjson.dumps(REQUEST))


@pytest.fixture(scope="module", params=["rsgi", "wsgi"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Server]:
    """The server over each of granian's two interfaces (the hosted profile's own, RSGI, and
    WSGI, the local profile's, set by HARMONY_INTERFACE): the same guarantees over both."""
    tmp = tmp_path_factory.mktemp("live")
    (tmp / "state").mkdir()
    db = tmp / "state" / "harmony.db"   # the logs (the printed key) sit outside its folder
    port = free_port()
    out, err = tmp / "stdout.log", tmp / "stderr.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "HARMONY_PROFILE": "hosted",
           "HARMONY_STORE_BODIES": "0", "HARMONY_INTERFACE": request.param}
    with out.open("wb") as o, err.open("wb") as e:
        process = subprocess.Popen(
            [*HARMONY, "--db", str(db), "serve", "--port", str(port), "--workers", "2"],
            stdout=o, stderr=e, cwd=Path(__file__).parent.parent, env=env,
            start_new_session=True)   # its own group: the workers go with it, however it ends
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
        # granian logs to stdout as well: the key is the one line of its own shape.
        keys = [line for line in out.read_text().splitlines() if line.startswith("hk_live_")]
        assert len(keys) == 1, out.read_text()
        yield Server(url, db, keys[0], process, out, err)
    finally:
        # A test that failed before its own SIGTERM: the server and all its workers go (a
        # SIGKILL of granian's main process alone would leave its workers serving).
        stop_server(process)


def analyze_counts(metrics_dir: Path) -> dict[str, float]:
    """Per worker file: the /v2/analyze answers it counted."""
    counts = {}
    for path in sorted(metrics_dir.glob("counter_*.db")):
        counts[path.name] = sum(
            s.value for m in MultiProcessCollector.merge([str(path)], accumulate=False)
            for s in m.samples
            if s.name == "harmony_requests_total" and s.labels["route"] == f"/v2/{OPERATION}")
    return counts


def test_a_refused_call_with_a_held_back_body_closes_its_connection(server: Server) -> None:
    # granian is asked for a small declared body before the key is checked. A client that
    # declares one and never sends it still gets its 401 at once, and then the connection is
    # closed, as when the body was never asked for: the worker keeps no read waiting for it.
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as raw:
        raw.sendall(b"POST /v2/analyze HTTP/1.1\r\nhost: x\r\nuser-agent: harmony-tests/1\r\n"
                    b"authorization: Bearer hk_live_unknown\r\ncontent-length: 30\r\n\r\n")
        answer = b""
        while chunk := raw.recv(65536):   # until the server closes (a timeout fails the test)
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 401 ") and b'"unauthorized"' in answer


def test_limits_log_usage_metrics_and_secrecy(server: Server) -> None:
    db = server.db
    # The first start made the `local` account and printed its key, which works; the
    # environment's hosted profile applies: curl's User-Agent is refused, with the quota
    # headers of the valid key and without spending its minute.
    ok = call(server, server.local_secret)
    assert ok.status_code == 200 and ok.headers["ratelimit-limit"] == "300"
    refused = call(server, server.local_secret, **{"User-Agent": "curl/8.5.0"})
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "blocked_user_agent")
    assert (refused.headers["x-quota-used"], refused.headers["ratelimit-remaining"]) == \
        ("1", "299")

    # The monthly quota is exact across the workers, whatever the clock says.
    bulk_id, bulk = new_key(db, "bulk")
    harmony(db, "accounts", "set-limits", "bulk", "--per-minute", "100000", "--per-month", "20")
    answers = [call(server, bulk) for _ in range(22)]
    assert [r.status_code for r in answers] == [200] * 20 + [429] * 2
    assert [r.headers["x-quota-used"] for r in answers] == [str(min(n, 20))
                                                            for n in range(1, 23)]
    assert {r.json()["error"]["code"] for r in answers[20:]} == {"quota_exceeded"}

    # The free plan's 30 a minute, exact across workers. The window is the clock minute: an
    # attempt that straddles a minute boundary proves nothing and is made again on a new key.
    free_served = 0  # a straddling attempt may serve all 31: /metrics counts them all
    for attempt in range(3):
        free_id, free = new_key(db, f"free{attempt}", "--plan", "free")
        start = time.time()
        answers = [call(server, free) for _ in range(31)]
        free_served += sum(r.status_code == 200 for r in answers)
        if int(start // 60) == int(time.time() // 60):
            break
    statuses = [r.status_code for r in answers]
    assert statuses == [200] * 30 + [429]
    assert [r.headers["x-quota-used"] for r in answers] == [str(n) for n in range(1, 31)] + ["30"]
    last = answers[-1]
    assert last.json()["error"]["code"] == "rate_limited"
    assert last.headers["ratelimit-remaining"] == "0" and int(last.headers["retry-after"]) >= 1

    # /metrics adds up both workers, whichever of them answers the scrape; both served calls.
    # Each worker publishes its batched observations every log interval (0.25 s) and before a
    # scrape it answers: the other worker's are in once it has had its next round (a fraction
    # of a second; longer on a loaded machine, so waited for), and from then on every scrape,
    # whichever worker answers it, has them all.
    served = 1 + 20 + free_served
    total = f'harmony_requests_total{{route="/v2/{OPERATION}",status="200"}} {served}.0'

    def scrape() -> str:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            return http.get("/metrics").text

    deadline = time.monotonic() + 60
    while total not in (text := scrape()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert total in text, text
    for _ in range(4):
        assert total in scrape()
    per_worker = analyze_counts(db.parent / "harmony.db.metrics")
    assert len(per_worker) == 2 and all(per_worker.values()), per_worker

    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(60) == 0

    usage = {u["account"]: u for u in orjson.loads(harmony(db, "usage", "--json").stdout)}
    assert (usage["bulk"]["key"], usage["bulk"]["calls"], usage["bulk"]["errors"]) == \
        (bulk_id, 22, 2)  # the calls are the bulk key's, by its id
    assert (usage[f"free{attempt}"]["calls"], usage[f"free{attempt}"]["errors"]) == (31, 1)
    assert (usage["local"]["calls"], usage["local"]["errors"]) == (2, 1)
    table = harmony(db, "usage", "--account", "bulk").stdout
    assert "bulk" in table and " 22 " in table

    # Each worker flushes its own batches, so the log is in time order, not insert order.
    log = sqlite3.connect(db)
    rows = log.execute("SELECT surface, operation, status, error, body FROM request_log "
                       "WHERE key_id = ? ORDER BY ts", (free_id,)).fetchall()
    assert rows == [("rest", OPERATION, 200, None, None)] * 30 + \
        [("rest", OPERATION, 429, "rate_limited", None)]
    assert log.execute("SELECT count(*) FROM request_log WHERE body IS NOT NULL").fetchone() \
        == (0,)  # HARMONY_STORE_BODIES=0 reached the workers

    # The monthly totals the workers shared through the counters file reached SQLite.
    months = dict(log.execute("SELECT a.name, m.count FROM month_usage m JOIN accounts a "
                              "ON a.id = m.account_id").fetchall())
    assert (months["bulk"], months[f"free{attempt}"], months["local"]) == (20, 30, 1)

    for secret in (server.local_secret, bulk, free):
        for path in db.parent.rglob("*"):
            if path.is_file():
                assert secret.encode() not in path.read_bytes(), path.name
