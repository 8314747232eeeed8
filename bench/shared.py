"""Where the shared workloads and corpora live: ``../shared`` beside the repository, or
``HARMONY_SHARED`` / ``HARMONY_CORPORA``. Benchmarks skip or exit cleanly without them."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HARMONY_SHARED", REPO.parent / "shared"))
CORPORA = Path(os.environ.get("HARMONY_CORPORA", SHARED / "corpora"))
PEER_WORKLOAD = SHARED / "bench" / "peer-workload.txt"


def peer_workload() -> list[str] | None:
    """The 2,000 symbols timed against peer libraries, or None when absent."""
    if not PEER_WORKLOAD.is_file():
        return None
    return PEER_WORKLOAD.read_text().split()


def timed(fn: Callable[[], object], repeat: int = 5, *, best: bool = False,
          clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds of one call of ``fn``: the median of ``repeat`` calls, or the fastest; by
    ``clock`` (wall time, or ``time.thread_time`` for the CPU of this thread)."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times) if best else statistics.median(times)


_TOTAL = re.compile(r"^(?:summary|totals):\s*(\d+)", re.MULTILINE)


def callgrind_between(command: Sequence[str], *, cwd: Path | None = None,
                      env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run ``command`` under callgrind and count the instructions between its "ready" and
    "done" lines: at each, it waits for a line on its standard input, the counters are zeroed
    (``callgrind_control -z``) and dumped (``-d``). Returns that count and what the command
    printed after "done"."""
    with tempfile.TemporaryDirectory(prefix="harmony-callgrind-") as tmp:
        driver = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", *command],
            cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=env)
        assert driver.stdin is not None and driver.stdout is not None
        try:
            for said, control in (("ready", "-z"), ("done", "-d")):
                line = driver.stdout.readline().strip()
                if line != said:
                    raise RuntimeError(f"the driver said {line!r}, not {said!r}")
                subprocess.run(["callgrind_control", control, str(driver.pid)], check=True,
                               capture_output=True)
                driver.stdin.write("\n")
                driver.stdin.flush()
            rest = driver.stdout.read()
            driver.wait(600)
        finally:
            if driver.poll() is None:
                driver.kill()
        found = _TOTAL.search(Path(f"{tmp}/out.1").read_text())
    if found is None:
        raise RuntimeError("no total in callgrind's dump")
    return int(found.group(1)), rest
