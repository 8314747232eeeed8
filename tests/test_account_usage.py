"""The account page's data: ``harmony accounts login-link``, the schema upgrade of an existing
database, keys' last use and calls this month, and the usage page showing exactly what
``harmony usage --by day|operation`` prints for the same account."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import orjson
import pytest

from server.accounts.store import MIGRATIONS, LogRow, Store, hash_secret
from server.cli.main import main
from tests.account_fixtures import sign_in, table_rows
from tests.server_fixtures import Clock, make, new_key, run, running


def harmony(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--db", str(db), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_login_link_prints_a_link_whose_token_is_kept_hashed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "h.db"
    assert harmony(capsys, db, "accounts", "create", "acme")[0] == 0
    code, out, err = harmony(capsys, db, "accounts", "login-link", "acme",
                             "--base-url", "https://harmony.example/")
    assert code == 0 and "15 minutes" in err and "once" in err
    link = out.strip()
    assert out == link + "\n" and link.startswith("https://harmony.example/account/login?token=")
    token = link.rsplit("=", 1)[1]
    assert token not in err
    rows = sqlite3.connect(db).execute("SELECT hash, used FROM login_links").fetchall()
    assert rows == [(hash_secret(token), None)]
    assert token.encode() not in db.read_bytes()
    code, out, err = harmony(capsys, db, "accounts", "login-link", "nobody")
    assert code == 1 and out == "" and "no account named 'nobody'" in err
    assert harmony(capsys, db, "accounts", "login-link", "acme")[1].startswith(
        "http://127.0.0.1:8000/account/login?token=")


def test_an_existing_database_is_upgraded_at_start(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    conn.execute("INSERT INTO schema_version VALUES (3)")
    for script in MIGRATIONS[:3]:
        conn.executescript(script)
    conn.execute("INSERT INTO accounts (id, name, plan, created) VALUES (1, 'acme', 'free', 0)")
    conn.execute("INSERT INTO keys (id, account_id, prefix, hash, created) VALUES "
                 "('key_a', 1, 'hk_live_abcd', 'h', 0), ('key_b', 1, 'hk_live_efgh', 'g', 0)")
    conn.executemany("INSERT INTO request_log (ts, key_id, surface, status, latency_us) VALUES "
                     "(?, ?, 'rest', 200, 10)", [(100.0, "key_a"), (250.0, "key_a")])
    conn.close()
    store = Store(str(path))
    assert store.conn.execute("SELECT version FROM schema_version").fetchone() == \
        (len(MIGRATIONS),)
    assert dict(store.conn.execute("SELECT id, last_used FROM keys")) == \
        {"key_a": 250.0, "key_b": None}
    for table in ("login_links", "sessions"):
        assert store.conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)


def test_keys_show_their_last_use_and_calls_this_month(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "h.db"))
    used, _ = new_key(store, "acme", "developer")
    idle, _ = store.create_key("acme")
    now = time.time()
    store.write_log([_row(now - 40 * 86400, used), _row(now - 5, used, status=500),
                      _row(now - 1, used)], retention_days=30)
    keys = {k["id"]: k for k in store.active_keys(store.account_id("acme"), now - 86400)}
    assert keys[used]["calls"] == 2 and keys[idle]["calls"] == 0
    assert keys[used]["lastUsed"] == time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                   time.gmtime(now - 1))
    assert keys[idle]["lastUsed"] is None
    store.revoke_key(idle)
    assert [k["id"] for k in store.active_keys(store.account_id("acme"), 0)] == [used]


def _row(ts: float, key_id: str | None, operation: str = "analyze", status: int = 200,
         latency_us: int = 100) -> LogRow:
    return LogRow(ts, key_id, "rest", operation, status, None if status < 400 else "x",
                  latency_us, None)


def test_the_usage_page_shows_what_harmony_usage_prints(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock)
    mine, _ = new_key(store, "acme", "developer")
    theirs, _ = new_key(store, "rival", "developer")
    now = time.time()
    rows = []
    for day in range(0, 29, 3):  # within the window whatever the minute the test runs
        for i in range(day % 5 + 1):
            rows.append(_row(now - day * 86400 - 60 - i, mine, ("analyze", "voicing")[i % 2],
                             400 if i == 2 else 200, 100 + 37 * i + day))
        rows.append(_row(now - day * 86400 - 30, theirs, "conduct", 200, 999))
    rows.append(_row(now - 60 * 86400, mine))  # too old for the page and the command
    store.write_log(rows, retention_days=30)

    async def scenario() -> str:
        async with running(app) as http:
            await sign_in(http, store, clock, "acme")
            r = await http.get("/account/usage")
            assert r.status_code == 200
            return r.text

    page = run(scenario())
    for by, table in (("day", "by-day"), ("operation", "by-operation")):
        code, out, _ = harmony(capsys, Path(app.settings.db_path), "usage", "--account",
                               "acme", "--by", by, "--json")
        expected = [[r[by], f"{r['calls']:,}", f"{r['errors']:,}",
                     f"{100 * r['errorRate']:.1f} %", f"{r['p50Us']:,}", f"{r['p95Us']:,}"]
                    for r in orjson.loads(out)]
        assert code == 0 and expected and table_rows(page, table) == expected
    assert {r[0] for r in table_rows(page, "by-operation")} == {"analyze", "voicing"}
    assert "conduct" not in page  # another account's calls are not shown
    svg = page.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert 'role="img"' in svg and svg.count("<rect") >= 10  # ten days with calls
    assert "<script" not in page


def test_harmony_usage_by_key_is_unchanged(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "h.db"
    store = Store(str(db))
    key, _ = new_key(store, "acme")
    store.write_log([_row(time.time() - 10, key, latency_us=7)], retention_days=30)
    code, out, _ = harmony(capsys, db, "usage", "--json")
    assert orjson.loads(out) == [{"key": key, "account": "acme", "calls": 1, "errors": 0,
                                  "errorRate": 0.0, "p50Us": 7, "p95Us": 7}]
    code, out, _ = harmony(capsys, db, "usage", "--by", "operation")
    assert code == 0 and out.splitlines()[0].startswith("operation") and "analyze" in out
