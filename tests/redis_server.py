"""A real Redis server for the tests, from Debian's ``redis-server`` package (``.ci/run``
installs it): no TCP port, a unix socket in a temporary folder, no persistence, stopped by the
process this module started. ``flushed(url)`` empties it between tests."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


def redis_binary() -> str | None:
    return shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None)


class RedisServer:
    """One server on ``socket``; ``stop()`` and ``start()`` again on the same socket."""

    def __init__(self, root: Path, port: int = 0) -> None:
        self.root = root
        self.port = port                 # 0: the unix socket only; else loopback TCP too
        self.socket = root / "redis.sock"
        self.url = f"unix://{self.socket}"
        self.tcp_url = f"redis://127.0.0.1:{port}" if port else ""
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = redis_binary()
        if binary is None:
            raise FileNotFoundError("redis-server was not found (Debian package redis-server)")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--unixsocket",
             str(self.socket), "--unixsocketperm", "700",
             "--save", "", "--appendonly", "no", "--dir", str(self.root)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis

        client = redis.Redis(unix_socket_path=str(self.socket), socket_timeout=1)
        deadline = time.monotonic() + 30
        while True:
            try:
                if client.ping():
                    client.close()
                    return
            except redis.exceptions.ConnectionError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None


@contextlib.contextmanager
def redis_server(port: int = 0) -> Iterator[RedisServer]:
    root = Path(tempfile.mkdtemp(prefix="harmony-redis-"))
    server = RedisServer(root, port)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def flushed(url: str) -> str:
    import redis

    client = redis.Redis.from_url(url)
    client.flushall()
    client.close()
    return url
