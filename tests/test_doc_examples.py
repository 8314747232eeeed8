"""Every runnable example of the README and docs/*.md runs (issue 38: a documented example can
never fail again): the Python snippets in process, checking each answer a line shows as a
literal in its comment (``# 'iiø7'``); the shell sessions (curl, the ``harmony`` commands)
in one bash per document, as a reader types them in one terminal, against a live
``harmony serve`` on loopback, every curl failing on an HTTP error; the JSON blocks parsed
(client configs: each command one of the package's programs, each variable one the code reads).

A block that cannot run here carries ``<!-- not run: REASON -->`` (``tests/doc_blocks.py``);
``test_the_examples_not_run_are_few_and_say_why`` lists them.
"""

from __future__ import annotations

import ast
import base64
import io
import json
import os
import re
import shutil
import subprocess
import tokenize
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.doc_blocks import REPO, RUNNABLE, SHELL, Block, all_blocks
from tests.mcp_live import BIN, LiveServer, harmony, running_server

BLOCKS = all_blocks()
# The README's set-up commands: the first starts the service in the foreground (until ^C), the
# second is the whole test suite (what CI runs); neither is an example to run inside a test.
def reason_not_run(block: Block) -> str | None:
    return block.not_run


def runnable(lang: str | frozenset[str]) -> list[Block]:
    langs = {lang} if isinstance(lang, str) else lang
    return [b for b in BLOCKS if b.lang in langs and reason_not_run(b) is None]


def by_file(blocks: list[Block]) -> dict[str, list[Block]]:
    out: dict[str, list[Block]] = {}
    for b in blocks:
        out.setdefault(b.file, []).append(b)
    return out


# ------------------------------------------------------------------ which blocks run

COMMAND = re.compile(r"^\s*(curl|harmony|make|export|\$|\.venv/|python3? |pip )")
# blocks of data another test reads: docs/architecture.md's arrows (tests/test_layout.py)
DATA = frozenset({"arrows"})


def test_every_block_runs_or_says_why_not() -> None:
    for b in BLOCKS:
        if b.lang in DATA:
            continue
        if b.lang == "" or b.lang == "text":
            shown = [line for line in b.text.splitlines() if COMMAND.match(line)]
            assert not shown, f"{b.where}: commands in a block without a language: {shown[:2]}"
        else:
            assert b.lang in RUNNABLE, f"{b.where}: language {b.lang!r} is not one the test runs"
        if b.not_run is not None:
            assert b.lang in RUNNABLE and len(b.not_run) > 20, b.where


def test_the_examples_not_run_are_few_and_say_why() -> None:
    skipped = [(b.where, reason_not_run(b)) for b in BLOCKS
               if b.lang in RUNNABLE and reason_not_run(b)]
    for where, reason in skipped:
        print(f"not run: {where}: {reason}")
    ran = [b for b in BLOCKS if b.lang in RUNNABLE and not reason_not_run(b)]
    assert len(skipped) <= 6 < len(ran), skipped


# ------------------------------------------------------------------ Python

ANSWER = re.compile(r"('[^']*'|\[[^\]]*\])")
NOTHING = object()


def shown(comment: str | None) -> Any:
    """The literal a comment shows as the answer (``# 'C': found ...``, ``# [67, 71]``)."""
    m = ANSWER.match((comment or "").lstrip("# "))
    return ast.literal_eval(m.group(1)) if m else NOTHING


def python_statements(text: str) -> Iterator[tuple[ast.stmt, Any]]:
    """Each top-level statement of a block with the answer shown in the comment of its last
    line, or of the comment-only line after it."""
    comments = {t.start[0]: t.string for t in
                tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type == tokenize.COMMENT}
    lines = text.splitlines()
    for node in ast.parse(text).body:
        end = node.end_lineno or node.lineno
        answer = shown(comments.get(end))
        if answer is NOTHING and end < len(lines) and lines[end].lstrip().startswith("#"):
            answer = shown(comments.get(end + 1))
        yield node, answer


@pytest.mark.parametrize("file", sorted(by_file(runnable("python"))))
def test_the_python_examples_give_the_answers_they_show(file: str) -> None:
    namespace: dict[str, Any] = {}
    checked = 0
    for block in by_file(runnable("python"))[file]:
        for node, answer in python_statements(block.text):
            if isinstance(node, ast.Expr):
                value = eval(compile(ast.Expression(node.value), block.where, "eval"), namespace)
                if answer is not NOTHING:
                    assert value == answer, f"{block.where}: {ast.unparse(node)}"
                    checked += 1
            else:
                exec(compile(ast.Module([node], []), block.where, "exec"), namespace)
    assert checked >= 1, f"{file}: no Python example shows an answer to check"


# ------------------------------------------------------------------ JSON

SCRIPTS = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]


def code_reads(variable: str) -> bool:
    return any(variable in p.read_text(encoding="utf-8")
               for p in (REPO / "server").rglob("*.py"))


@pytest.mark.parametrize("block", runnable("json"), ids=lambda b: b.where)
def test_the_json_examples_parse_and_name_what_exists(block: Block) -> None:
    data = json.loads(block.text)
    for name, server in data.get("mcpServers", {}).items():
        if "command" in server:
            assert server["command"] in SCRIPTS, f"{block.where}: {name}"
        else:
            assert server["type"] == "http" and server["url"].endswith("/mcp"), block.where
            assert server["headers"]["Authorization"].startswith("Bearer hk_live_"), block.where
        for variable in server.get("env", {}):
            assert code_reads(variable), f"{block.where}: nothing reads {variable}"


# ------------------------------------------------------------------ shell sessions

IREAL = ("irealbook://Doc%20Tune=Example%20Writer=Medium%20Swing=F=n="
         "%5BT44G-7%20C7%7CF%5E7%20%20%20%7CG-7%20C7%7CF%5E7%20%20%20Z")
READERS_FILES = {  # the files the examples name as the reader's own
    "Downloads/my-ireal-playlist.html": f'<html><body><a href="{IREAL}">Doc Tune</a></body></html>',
    "charts/cadences.txt": "Title = Cadences\nComposedBy = Example\nKey = F\n"
                           "Gm7 | C7 | Fmaj7 | Fmaj7 |\n",
    "chords.csv": "chord,key\nDm7,C\nG7,C\nCmaj7,C\n",
    "corpus.csv": "chord,key\nGm7,F\nC7,F\nFmaj7,F\nBbmaj7,F\n",
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    if shutil.which("curl") is None or shutil.which("jq") is None:
        pytest.skip("curl and jq are needed for the shell examples (.ci/run installs them)")
    with running_server(tmp_path_factory.mktemp("docs-server")) as server:
        harmony(server.db, "accounts", "create", "acme", "--plan", "developer")
        yield server


def readers_home(home: Path) -> None:
    import pandas as pd

    from engine import conduct

    (home / "golden").symlink_to(REPO / "golden")   # docs/api.md's curls run from the repo
    for name, text in READERS_FILES.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    midi = conduct({"prompt": "medium swing blues in F", "durationSec": 10, "seed": 1})["midi"]
    (home / "song.mid").write_bytes(base64.b64decode(midi))
    pd.read_csv(home / "corpus.csv").to_parquet(home / "corpus.parquet")


def session(blocks: list[Block], server: LiveServer) -> str:
    """One bash script of a document's shell blocks, as a reader types them: the documented
    address and key placeholder replaced by the live server's; every curl fails on an HTTP
    error status (and says which)."""
    port = server.url.rsplit(":", 1)[1]
    parts = ["set -euo pipefail",
             'curl() { command curl --fail-with-body --max-time 300 "$@"; }']
    for b in blocks:
        text = b.text.replace("localhost:8000", f"127.0.0.1:{port}")
        text = text.replace("hk_live_...", server.key or "")
        parts += [f"echo '### {b.where}' >&2", text]
    return "\n".join(parts) + "\n"


@pytest.mark.parametrize("file", sorted(by_file(runnable(SHELL))))
def test_the_shell_examples_run_against_a_live_server(file: str, live: LiveServer,
                                                      tmp_path: Path) -> None:
    readers_home(tmp_path)
    env = {**os.environ, "HOME": str(tmp_path), "KEY": live.key or "",
           "HARMONY_DB": str(live.db), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    for variable in ("HARMONY_CORPUS", "HARMONY_BASE_URL", "SERVICE_API_KEY"):
        env.pop(variable, None)
    script = session(by_file(runnable(SHELL))[file], live)
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=900, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, (f"{file}: exit {done.returncode}\n{done.stderr[-3000:]}\n"
                                  f"stdout: {done.stdout[-1500:]}")
