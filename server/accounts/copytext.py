"""The request log's rows as the text of PostgreSQL's ``COPY ... FROM STDIN`` (text format),
made in one pass over a batch, written with one ``write`` (``PgStore._insert_log``).

psycopg's ``Copy.write_row`` dumps each value through its adapters, row by row: 2.0-2.2 µs a
row of the writer thread's CPU under load (``bench/run_several_machines.py``), on the same 2
cores as the requests. The row here is one f-string: the float by ``repr`` (the shortest
text that reads back as the same double), the integers by ``str``, a body as bytea's hex text,
and the text columns (key id, surface, operation, error code: a few values repeated on every
row) escaped once and kept (``_Texts``).

The text format's rules: columns split by a tab, a row ended by a newline, ``\\N`` a NULL,
and in a value a backslash, tab, newline or carriage return written as ``\\\\``, ``\\t``,
``\\n``, ``\\r``. A bytea's text is ``\\x`` and its hex digits, its backslash doubled by the
same rule.
"""

from __future__ import annotations

from collections.abc import Iterable

from server.accounts.store import LogRow

NULL = "\\N"
BYTEA = "\\\\x"               # bytea's \x, its backslash doubled
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})
_KEPT = 4096                      # escaped texts kept (a flood of new key ids is not kept)


class _Texts(dict[str | None, str]):
    """A text column's value as COPY's text: NULL for None, else escaped; kept once made."""

    def __missing__(self, value: str | None) -> str:
        text = NULL if value is None else value.translate(_ESCAPES)
        if len(self) < _KEPT:
            self[value] = text
        return text


_TEXTS = _Texts()


def copy_text(rows: Iterable[LogRow]) -> bytes:
    """The rows' ``COPY request_log (ts, key_id, surface, operation, status, error,
    latency_us, body) FROM STDIN`` text, UTF-8."""
    t = _TEXTS
    return "".join([
        f"{r.ts!r}\t{t[r.key_id]}\t{t[r.surface]}\t{t[r.operation]}\t{r.status:d}\t"
        f"{t[r.error]}\t{r.latency_us:d}\t"
        f"{NULL if r.body is None else BYTEA + r.body.hex()}\n" for r in rows]).encode()
