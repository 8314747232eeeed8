"""The fenced code blocks of the README and docs/*.md, by language, for the test that runs them
(tests/test_doc_examples.py).

A block that is intentionally not run carries the marker ``<!-- not run: REASON -->`` on the
line just before its opening fence (invisible on the rendered page); the test honours it and
lists it with its reason. A block without a language is text (a layout, an answer shown).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))
SHELL = frozenset({"bash", "sh", "shell", "console"})
RUNNABLE = SHELL | {"python", "json"}
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
_NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(.+?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    file: str        # relative to the repository
    line: int        # of the opening fence, 1-based
    lang: str        # "" when the fence names none
    text: str
    not_run: str | None   # the marker's reason

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def blocks(path: Path) -> Iterator[Block]:
    """The fenced blocks of one Markdown file, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        fence, lang = m.group(2), m.group(3).lower()
        marker = _NOT_RUN.match(lines[i - 1]) if i else None
        body = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j])
            j += 1
        yield Block(str(path.relative_to(REPO)), i + 1, lang, "\n".join(body) + "\n",
                    marker.group(1) if marker else None)
        i = j + 1


def all_blocks() -> list[Block]:
    return [b for path in DOCS for b in blocks(path)]
