"""Instructions per call of the app's whole ``__rsgi__`` (or WSGI) call, counted under valgrind.

Timings on a shared 2-core VM drift by ±5 % between runs, and the in-process budget
(``run_request_budget.py``) settles only to ±0.3 µs; this count repeats to a few instructions
in 455 million (two runs of 5,000 REST calls: 455,629,719 and 455,629,746), so it shows a 1 %
cut that a timer cannot. For each kind of call (REST analyze, MCP tools/call, GET /health, and
``floor``: ``bench/floor_app.py``'s POST, an app that does no work, through the same driver;
``wsgi-rest``, ``wsgi-mcp`` and ``wsgi-floor``: the same through the WSGI entry) the
driver (``run_request_budget.py --drive KIND --pause``) runs under ``valgrind --tool=callgrind``:
it builds the app, makes one warm-up call and says "ready"; the counters are zeroed
(``callgrind_control -z``), it makes the calls and says "done"; they are dumped
(``callgrind_control -d``). So start-up (imports, numba's cache, the store) is not counted;
the driver's own stand-ins for granian's scope and protocol, its loop and the coroutine's
stepping are: the ``floor`` kind measures them, 15,698 instructions a call (2026-11-26). (Counting the whole process instead, with and without the calls, varied by ±20 million
instructions of start-up from run to run: ±2 % of a call at 20,000 calls.)

    .venv/bin/python bench/run_instructions.py [--calls 5000] [rest mcp health floor]

Needs valgrind (Debian's ``valgrind``); without it, says so and exits 0 (``make bench`` runs
every ``run_*.py``). This VM has no hardware performance counters, so ``perf stat -e
instructions`` is not available here.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "run_request_budget.py"
KINDS = ("rest", "mcp", "health", "floor", "wsgi-rest", "wsgi-mcp", "wsgi-floor")
_TOTAL = re.compile(r"^(?:summary|totals):\s*(\d+)", re.MULTILINE)


def instructions(kind: str, calls: int) -> int:
    """The instructions of ``calls`` whole calls of ``kind``, counted by callgrind."""
    with tempfile.TemporaryDirectory(prefix="harmony-instr-") as tmp:
        driver = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out",
             sys.executable, str(DRIVER), "--drive", kind, "--calls", str(calls), "--pause"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        assert driver.stdin is not None and driver.stdout is not None
        try:
            for said, control in (("ready", "-z"), ("done", "-d")):
                line = driver.stdout.readline().strip()
                if line != said:
                    raise RuntimeError(f"the driver said {line!r}, not {said!r}")
                subprocess.run(["callgrind_control", control, str(driver.pid)],
                               check=True, capture_output=True)
                driver.stdin.write("\n")
                driver.stdin.flush()
            driver.wait(600)
        finally:
            if driver.poll() is None:
                driver.kill()
        dumped = Path(f"{tmp}/out.1").read_text()
    found = _TOTAL.search(dumped)
    if found is None:
        raise RuntimeError("no total in callgrind's dump")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("kinds", nargs="*", help=f"of {', '.join(KINDS)} (default: all)")
    parser.add_argument("--calls", type=int, default=5_000)
    args = parser.parse_args(argv)
    if unknown := set(args.kinds) - set(KINDS):
        parser.error(f"unknown kind {', '.join(sorted(unknown))}: choose from {', '.join(KINDS)}")
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        print("valgrind is not installed (Debian's valgrind): no instruction counts")
        return 0
    print(f"{'call':8}  instructions per call (callgrind, {args.calls:,} calls)")
    for kind in args.kinds or KINDS:
        print(f"{kind:10}  {instructions(kind, args.calls) / args.calls:,.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
