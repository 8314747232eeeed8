"""Load benchmark of the real service: ``harmony serve --workers 2`` on loopback with auth,
limits and logging on, a temporary database, one run.

Prints sequential p50/p99 latency and concurrent throughput for GET /health and
POST /v2/analyze, the analyze/health throughput ratio, and the analyze p50.

Uses wrk when it is installed; otherwise a small asyncio HTTP/1.1 keep-alive client (raw
streams, so the client's own cost stays in the tens of microseconds). Loopback only, bounded:
about half a minute in all.

    .venv/bin/python bench/load.py [--seconds 5] [--connections 32] [--requests 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from statistics import quantiles

REPO = Path(__file__).resolve().parent.parent
HARMONY = [sys.executable, "-m", "server.cli"]
BODY = b'{"chord":"Dm7b5","key":"C"}'


def harmony(db: Path, *args: str) -> str:
    return subprocess.run([*HARMONY, "--db", str(db), *args], capture_output=True, text=True,
                          check=True, cwd=REPO, timeout=120).stdout.strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def request_bytes(method: str, path: str, secret: str) -> bytes:
    if method == "GET":
        return f"GET {path} HTTP/1.1\r\nhost: bench\r\nuser-agent: harmony-bench\r\n\r\n".encode()
    return (f"POST {path} HTTP/1.1\r\nhost: bench\r\nuser-agent: harmony-bench\r\n"
            f"authorization: Bearer {secret}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(BODY)}\r\n\r\n").encode() + BODY


async def one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: bytes) -> int:
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    match = re.search(rb"content-length: *(\d+)", head, re.I)
    await reader.readexactly(int(match.group(1)) if match else 0)
    return status


async def sequential(port: int, raw: bytes, n: int) -> list[float]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for _ in range(200):  # warm the connection and both sides' caches
        await one(reader, writer, raw)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        status = await one(reader, writer, raw)
        times.append(time.perf_counter() - t)
        assert status == 200, status
    writer.close()
    return times


async def concurrent(port: int, raw: bytes, connections: int, seconds: float) -> float:
    stop = time.perf_counter() + seconds
    done = 0

    async def worker() -> None:
        nonlocal done
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while time.perf_counter() < stop:
            assert await one(reader, writer, raw) == 200
            done += 1
        writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(connections)))
    return done / (time.perf_counter() - start)


def wrk(url: str, secret: str, post: bool, connections: int, seconds: float) -> float:
    script = None
    args = ["wrk", "-t2", f"-c{connections}", f"-d{int(seconds)}s", url]
    if post:
        script = Path(tempfile.mkstemp(suffix=".lua")[1])
        script.write_text(f'wrk.method = "POST"\nwrk.body = {BODY.decode()!r}\n'
                          f'wrk.headers["Authorization"] = "Bearer {secret}"\n'
                          'wrk.headers["Content-Type"] = "application/json"\n')
        args[1:1] = ["-s", str(script)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    if script:
        script.unlink()
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return float(match.group(1)) if match else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="harmony-bench-"))
    db = tmp / "harmony.db"
    harmony(db, "accounts", "create", "bench", "--plan", "enterprise")
    harmony(db, "accounts", "set-limits", "bench", "--per-minute", "100000000",
            "--per-month", "1000000000")
    secret = harmony(db, "keys", "create", "bench")
    port = free_port()
    env = {**os.environ, "HARMONY_FLOOD_PER_MINUTE": "1000000000"}
    server = subprocess.Popen([*HARMONY, "--db", str(db), "serve", "--port", str(port),
                               "--workers", str(args.workers)], cwd=REPO, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("server did not start") from None
                time.sleep(0.2)
        health = request_bytes("GET", "/health", secret)
        analyze = request_bytes("POST", "/v2/analyze", secret)
        results = {}
        for name, raw, post in (("health", health, False), ("analyze", analyze, True)):
            times = asyncio.run(sequential(port, raw, args.requests))
            cuts = quantiles(times, n=100)
            if shutil.which("wrk"):
                rps = wrk(f"http://127.0.0.1:{port}" + ("/v2/analyze" if post else "/health"),
                          secret, post, args.connections, args.seconds)
                client = "wrk"
            else:
                rps = asyncio.run(concurrent(port, raw, args.connections, args.seconds))
                client = "asyncio"
            results[name] = (cuts[49] * 1e3, cuts[98] * 1e3, rps)
            print(f"{name:8} sequential p50 {cuts[49] * 1e3:.3f} ms  p99 {cuts[98] * 1e3:.3f} ms"
                  f"   concurrent ({args.connections} conns, {client}) {rps:,.0f} req/s")
        ratio = results["analyze"][2] / results["health"][2]
        print(f"analyze/health throughput ratio {ratio:.2f} (aim >= 0.7); "
              f"analyze p50 {results['analyze'][0]:.3f} ms (aim <= 0.3 ms; original ~105 ms)")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
