"""A blocking Redis check's latency on an idle machine and beside a busy core, side by side.

p50 / p99 (µs) of one blocking round trip to a redis-server on a unix socket (started here,
as the tests start it): redis-py's PING and an EVALSHA, our ``RedisCounters.take`` (a WSGI
worker's limit check), the pipeliner's call and a raw send and read on its connection. Each
is measured twice: with the machine idle, and with another process spinning on a core. On this
VM a core that halts while the thread waits for the reply takes ~60-80 µs to wake, which is
most of an idle machine's round trip (docs/deployment.md).

    .venv/bin/python bench/run_redis_wakeup.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from statistics import quantiles

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis

from server.accounts import RedisCounters, SharedCounters, Store
from tests.redis_server import redis_server

MONTH = 24323


def p50_p99(call: Callable[[], object], calls: int = 5000) -> str:
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    cuts = quantiles(times, n=100)
    return f"{cuts[49] * 1e6:6.1f} / {cuts[98] * 1e6:6.1f}"


def measure(url: str) -> dict[str, str]:
    client = redis.Redis.from_url(url)
    sha = client.script_load("return 1")
    counters = RedisCounters(url, SharedCounters(Store(str(Path(tempfile.mkdtemp()) / "c.db"))))
    packed = counters._pack("key_bench", 1, 10**9, 1, MONTH, 10**12)
    conn = counters.pipeliner.connection

    def raw() -> None:
        conn.send_packed_command([packed], check_health=False)
        conn.read_response()

    try:
        return {
            "redis-py PING": p50_p99(client.ping),
            "redis-py EVALSHA (return 1)": p50_p99(lambda: client.evalsha(sha, 0)),
            "RedisCounters.take": p50_p99(
                lambda: counters.take("key_bench", 1, 10**9, 1, MONTH, 10**12)),
            "pipeliner.call": p50_p99(lambda: counters.pipeliner.call(packed)),
            "raw send + read": p50_p99(raw),
        }
    finally:
        counters.close()
        client.close()


def main() -> int:
    with redis_server() as server:
        idle = measure(server.url)
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            time.sleep(0.5)
            busy = measure(server.url)
        finally:
            spinner.kill()
            spinner.wait()
    print(f"{'blocking round trip, p50 / p99 µs':32} {'idle machine':>16} {'a core busy':>16}")
    for name in idle:
        print(f"{name:32} {idle[name]:>16} {busy[name]:>16}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
