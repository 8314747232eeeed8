"""Several machines against one, in one run (issue 20's figures): the limit counters' cost per
call (this machine's shared file; Redis over a unix socket and over loopback TCP), request-log
rows written per second by each store's batched writer, and ``POST /v2/analyze`` under load
(``bench/load.py``'s measure: wrk, 32 connections, 2 workers) with SQLite and this machine's
counters, then PostgreSQL and Redis. The servers are started here from Debian's
``postgresql`` and ``redis-server``, as ``tests/pg_server.py`` and ``tests/redis_server.py``
do for the tests.

    .venv/bin/python bench/run_several_machines.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import quantiles

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import (
    HARMONY,
    ONE_BODY,
    REPO,
    cpu_seconds,
    free_port,
    measure,
    wait_healthy,
)
from server.accounts import Counters, LogRow, RedisCounters, SharedCounters, Store, open_store
from tests.pg_server import database, pg_bin, postgres_server
from tests.redis_server import redis_binary, redis_server


def log_rows_per_second(address: str, batch: int = 2048, seconds: float = 3.0) -> float:
    store = open_store(address)
    store.create_account("bench", "developer")
    key_id, _ = store.create_key("bench")
    now = time.time()
    rows = [LogRow(now + i * 1e-6, key_id, "rest", "analyze", 200, None, 100,
                   b'{"chord":"Dm7b5","key":"C"}') for i in range(batch)]
    store.write_log(rows, 30)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        store.write_log(rows, 30)
        done += batch
    store.close()
    return done / (time.perf_counter() - start)


def counter_check_us(counters: Counters, calls: int = 20_000) -> tuple[float, float]:
    """p50 and p99 of one ``take`` (µs), one key, limits never reached."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        counters.take("key_bench", 1, 10**9, 1, 2027 * 12, 10**12)
        times.append(time.perf_counter() - start)
    cuts = quantiles(times, n=100)
    return cuts[49] * 1e6, cuts[98] * 1e6


def serve_and_measure(address: str, args: argparse.Namespace, label: str,
                      redis_url: str = "") -> None:
    tmp = Path(tempfile.mkdtemp(prefix="harmony-machines-"))
    env = {**os.environ, "HARMONY_DB": address, "HARMONY_STATE_DIR": str(tmp),
           "HARMONY_FLOOD_PER_MINUTE": "1000000000", "HARMONY_REDIS_URL": redis_url}

    def harmony(*command: str) -> str:
        return subprocess.run([*HARMONY, *command], env=env, cwd=REPO, capture_output=True,
                              text=True, check=True, timeout=120).stdout.strip()

    harmony("accounts", "create", "bench", "--plan", "enterprise")
    harmony("accounts", "set-limits", "bench", "--per-minute", "100000000", "--per-month",
            "1000000000")
    secret = harmony("keys", "create", "bench")
    port = free_port()
    server = subprocess.Popen([*HARMONY, "serve", "--port", str(port), "--workers",
                               str(args.workers)], env=env, cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(port, server, 120, "server did not start")
        measure(f"analyze, {label}", port, "/v2/analyze", secret, [ONE_BODY], args, tmp,
                lambda: cpu_seconds(server.pid))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if pg_bin() is None or redis_binary() is None:
        print("skipped: PostgreSQL or redis-server is not installed (Debian's postgresql, "
              "redis-server)")
        return 0
    with postgres_server() as host, redis_server(free_port()) as redis:
        local = SharedCounters(Store(str(Path(tempfile.mkdtemp()) / "c.db")))
        print("limit check, p50 / p99 per call: this machine's file {:.1f} / {:.1f} µs".format(
            *counter_check_us(local)))
        for label, url in (("unix socket", redis.url), ("loopback TCP", redis.tcp_url)):
            counters = RedisCounters(url, local)
            print(f"limit check, p50 / p99 per call: Redis over {label} "
                  "{:.1f} / {:.1f} µs".format(*counter_check_us(counters)))
        sqlite = str(Path(tempfile.mkdtemp(prefix="harmony-machines-")) / "harmony.db")
        print(f"request log into SQLite:     {log_rows_per_second(sqlite):,.0f} rows/s "
              "(2,048-row batches, one JSON text each)")
        print(f"request log into PostgreSQL: {log_rows_per_second(database(host)):,.0f} rows/s "
              "(2,048-row batches, COPY)")
        serve_and_measure(str(Path(tempfile.mkdtemp(prefix="harmony-machines-")) / "h.db"),
                          args, "SQLite + this machine's counters")
        serve_and_measure(database(host), args, "PostgreSQL + Redis (unix socket)", redis.url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
