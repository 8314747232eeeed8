"""A real ``harmony serve`` on a free loopback port with a throw-away database, for the tests that
drive /mcp and the stdio proxy with the SDK's clients (test_mcp_client.py, test_stdio.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

BIN = Path(sys.executable).parent
# Upper bounds for a loaded test machine (CI's 2 cores shared with other work): a server that
# starts or stops sooner is not waited for.
START_SECONDS = 120
STOP_SECONDS = 60
PORT_TRIES = 3


@dataclass(frozen=True)
class LiveServer:
    url: str
    key: str | None
    db: Path

    def harmony(self, *args: str) -> str:
        return harmony(self.db, *args)


def harmony(db: Path, *args: str) -> str:
    env = {**os.environ, "HARMONY_DB": str(db)}
    done = subprocess.run([str(BIN / "harmony"), *args], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, check=True)
    return done.stdout.strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_taken(output: str) -> bool:
    """``harmony serve`` (or granian) said that its port was taken."""
    return "Address already in use" in output


def serve(flags: list[str], env: dict[str, str], log_path: Path
          ) -> tuple[subprocess.Popen[bytes], str, IO[bytes]]:
    """``harmony serve FLAGS`` on a free loopback port, in its own process group, once /health
    answers: the process, its URL and its open log (stdout and stderr). A port found free can
    be taken before the server binds it (by any process of the machine, an outgoing
    connection's local port included): the server then exits saying so, and is started again on
    another port (at most ``PORT_TRIES`` times); any other failure to start is an error."""
    for attempt in range(1, PORT_TRIES + 1):
        port = free_port()
        log = log_path.open("wb")
        proc = subprocess.Popen([str(BIN / "harmony"), "serve", "--host", "127.0.0.1", "--port",
                                 str(port), *flags], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)  # its own group: the workers go with it
        url = f"http://127.0.0.1:{port}"
        # a generous bound, not a wait: /health answers after about a second on a quiet
        # machine, and far later on a loaded one (granian and its worker import the engine)
        deadline = time.monotonic() + START_SECONDS
        while proc.poll() is None:
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    return proc, url, log
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
            time.sleep(0.1)
        log.close()
        output = log_path.read_text(errors="replace")
        if not (port_taken(output) and attempt < PORT_TRIES):
            raise RuntimeError(f"harmony serve did not start (exit {proc.returncode}): "
                               + output[-2000:])
    raise AssertionError("not reached")


@contextmanager
def running_server(tmp: Path, *, no_auth: bool = False, per_month: int = 1000,
                   per_minute: int = 1000) -> Iterator[LiveServer]:
    """``harmony serve`` with one enterprise account whose monthly quota is ``per_month`` (and
    per-minute limit ``per_minute``)."""
    db = tmp / "harmony.db"
    key = None
    if not no_auth:
        harmony(db, "accounts", "create", "mcp-test", "--plan", "enterprise")
        harmony(db, "accounts", "set-limits", "mcp-test", "--per-minute", str(per_minute),
                "--per-month", str(per_month))
        key = harmony(db, "keys", "create", "mcp-test").splitlines()[-1].strip()
    proc, url, log = serve(["--workers", "1", *(["--no-auth"] if no_auth else [])],
                           {**os.environ, "HARMONY_DB": str(db)}, tmp / "server.log")
    try:
        yield LiveServer(url, key, db)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:   # its workers too: the whole group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            log.close()
            log_tail = (tmp / "server.log").read_text(errors="replace")[-2000:]
            raise AssertionError(f"harmony serve did not stop within {STOP_SECONDS} s of "
                                 f"SIGTERM: {log_tail}") from None
        log.close()


def stdio_session(command: str, env: dict[str, str], script: Any, mode: str = "auto") -> Any:
    """Run ``script(client)`` against the stdio server ``command`` started with ``env`` over a
    clean environment (no proxy, player or cache settings inherited from the one running the
    tests; the cache folders, renders and compositions, in a temporary folder unless ``env``
    names one)."""
    import tempfile

    import anyio
    from mcp import Client, StdioServerParameters

    clean = {k: v for k, v in os.environ.items()
             if k not in ("HARMONY_BASE_URL", "SERVICE_API_KEY", "HARMONY_AUDIO_PLAYER",
                          "HARMONY_RENDERS", "HARMONY_COMPOSITIONS")}

    async def run(cache: str) -> Any:
        params = StdioServerParameters(command=command,
                                       env={**clean, "XDG_CACHE_HOME": cache, **env})
        with anyio.fail_after(120):
            async with Client(params, mode=mode) as client:
                return await script(client)

    with tempfile.TemporaryDirectory(prefix="harmony-cache-") as cache:
        return anyio.run(run, cache)
