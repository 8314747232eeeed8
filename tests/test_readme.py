"""The README's Python example runs as written, and each line that shows its answer in a
comment (``# 'iiø7'``) gives that answer."""

from __future__ import annotations

import ast
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readmes_python_example_gives_the_answers_it_shows() -> None:
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert block is not None
    namespace: dict[str, object] = {}
    shown = 0
    for line in block.group(1).splitlines():
        code, _, comment = line.partition("#")
        if not code.strip():
            continue
        if code.startswith(("from ", "import ")):
            exec(code, namespace)
            continue
        value = eval(code, namespace)
        answer = re.match(r"\s*('[^']*')", comment)
        if answer:
            assert value == ast.literal_eval(answer.group(1)), line
            shown += 1
    assert shown >= 2
