"""Instructions per call of the app's whole ``__rsgi__`` call, counted under valgrind.

Timings on a shared 2-core VM drift by ±5 % between runs and the in-process budget
(``run_request_budget.py``) settles only to ±0.3 µs; an instruction count is the same to within
~0.1 % from run to run, so it shows a 1 % cut that a timer cannot. For each kind of call
(REST analyze, MCP tools/call, GET /health) the driver (``run_request_budget.py --drive``) runs
once with no calls and once with ``--calls`` of them, each under ``valgrind --tool=cachegrind
--cache-sim=no``; the difference over the calls is the app's instructions per call, start-up
(imports, numba's cache, the store) subtracted. A first run warms the caches numba and Python
write on first import, which would otherwise be counted.

    .venv/bin/python bench/run_instructions.py [--calls 20000] [rest mcp health]

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
from pathlib import Path

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "run_request_budget.py"
KINDS = ("rest", "mcp", "health")
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions(valgrind: str, kind: str, calls: int) -> int:
    """The instructions valgrind counts for the driver making ``calls`` calls of ``kind``."""
    run = subprocess.run(
        [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, str(DRIVER), "--drive", kind, "--calls", str(calls)],
        capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"})
    found = _REFS.search(run.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{run.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kinds", nargs="*", help=f"of {', '.join(KINDS)} (default: all)")
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args(argv)
    if unknown := set(args.kinds) - set(KINDS):
        parser.error(f"unknown kind {', '.join(sorted(unknown))}: choose from {', '.join(KINDS)}")
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("valgrind is not installed (Debian's valgrind): no instruction counts")
        return 0
    instructions(valgrind, "health", 0)  # warm-up: Python's and numba's caches written
    print(f"{'call':8}  instructions per call (valgrind, {args.calls:,} calls)")
    for kind in args.kinds or KINDS:
        base = instructions(valgrind, kind, 0)
        total = instructions(valgrind, kind, args.calls)
        print(f"{kind:8}  {(total - base) / args.calls:,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
