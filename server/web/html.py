"""Templates from the standard library: ``string.Template`` files under ``templates/``, every
value HTML-escaped unless it is already ``Html`` (markup made by a template or by ``tag``).

Why not Jinja2: a dozen templates of a few lines, with no loops, conditions or inheritance (the
Python that fills them makes the rows and picks the fragments), and one escaping rule that fits
in ``escape``; a template engine would be a new direct dependency for that.
"""

from __future__ import annotations

import html
import string
from collections.abc import Iterable
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent


class Html(str):
    """Markup that is already safe: inserted as it is."""


def escape(value: object) -> Html:
    return value if isinstance(value, Html) else Html(html.escape(str(value), quote=True))


def join(parts: Iterable[Html]) -> Html:
    return Html("".join(escape(p) for p in parts))


@cache
def _template(name: str) -> string.Template:
    return string.Template((HERE / "templates" / f"{name}.html").read_text())


def render(template: str, /, **values: object) -> Html:
    """``templates/TEMPLATE.html`` with each ``$value`` escaped (a missing one is a KeyError)."""
    return Html(_template(template).substitute({k: escape(v) for k, v in values.items()}))


@cache
def stylesheet() -> bytes:
    return (HERE / "static" / "account.css").read_bytes()
