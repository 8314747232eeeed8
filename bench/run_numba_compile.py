"""First-call compile time of the voicing kernels, without and with the numba cache.

Each run is a fresh interpreter with its own temporary NUMBA_CACHE_DIR: the first run finds
the cache empty (compiles, writes it), the second loads what the first wrote.
Run: python bench/run_numba_compile.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import time
t0 = time.perf_counter()
from engine.voicing import warm_up
t1 = time.perf_counter()
warm_up()
t2 = time.perf_counter()
print(f"{t1 - t0:.4f} {t2 - t1:.4f}")
"""


def run(cache_dir: str) -> tuple[float, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=600).stdout.split()
    return float(out[0]), float(out[1])


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        cold_import, cold = run(cache)
        files = sorted(p.suffix for p in Path(cache).rglob("*") if p.is_file())
        warm_import, warm = run(cache)
    print(f"import engine.voicing: {cold_import * 1e3:.0f} ms (cold), "
          f"{warm_import * 1e3:.0f} ms (cached)")
    print(f"warm_up() without cache (compile): {cold * 1e3:.0f} ms")
    print(f"warm_up() with cache (load):       {warm * 1e3:.0f} ms")
    print(f"ratio: {cold / warm:.1f}x faster from the cache; "
          f"cache files: {files.count('.nbi')} index, {files.count('.nbc')} data")
    return 0 if files.count(".nbi") >= 3 else 1


if __name__ == "__main__":
    sys.exit(main())
