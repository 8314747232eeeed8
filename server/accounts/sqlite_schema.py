"""The SQLite store's schema (``server.accounts.store``): its migrations, applied in order at
start; ``server.accounts.pgstore`` keeps PostgreSQL's beside its store."""

from __future__ import annotations

# Each entry migrates the schema from version i to i + 1; never edit one that has shipped.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        plan TEXT NOT NULL,
        per_minute INTEGER,          -- enterprise overrides (NULL: the plan's limit)
        per_month INTEGER,
        created REAL NOT NULL
    );
    CREATE TABLE keys (
        id TEXT PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        prefix TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,   -- sha256 hex of the secret
        created REAL NOT NULL,
        revoked REAL,
        replaced_by TEXT
    );
    CREATE TABLE counters (
        name TEXT PRIMARY KEY,       -- 'm:<key id>:<minute>' or 'M:<account id>:<YYYY-MM>'
        count INTEGER NOT NULL,
        expires REAL NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE request_log (
        id INTEGER PRIMARY KEY,
        ts REAL NOT NULL,
        key_id TEXT,
        surface TEXT NOT NULL,
        operation TEXT,
        status INTEGER NOT NULL,
        error TEXT,
        latency_us INTEGER NOT NULL,
        body BLOB
    );
    CREATE INDEX request_log_ts ON request_log(ts);
    CREATE INDEX request_log_key ON request_log(key_id, ts);
    CREATE TABLE vocab_gaps (
        symbol TEXT PRIMARY KEY,
        count INTEGER NOT NULL,
        last_seen REAL NOT NULL
    );
    """,
    # 2: the live counters moved to a shared memory-mapped file (server.accounts.counters); SQLite
    # keeps the monthly totals it flushes, and an id that ties that file to this database.
    """
    CREATE TABLE meta (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO meta VALUES ('instance', lower(hex(randomblob(16))));
    CREATE TABLE month_usage (
        account_id INTEGER NOT NULL,
        month TEXT NOT NULL,         -- 'YYYY-MM', UTC
        count INTEGER NOT NULL,      -- successful calls
        version INTEGER NOT NULL,    -- grows with every change: a stale snapshot never wins
        PRIMARY KEY (account_id, month)
    ) WITHOUT ROWID;
    """,
    # 3: the per-key index served no query. A partial index of the rows that still hold a body
    # (same insert cost, 5-6 µs a row either way) lets retention, run on every flush, touch
    # only those instead of every row older than the period.
    """
    DROP INDEX request_log_key;
    CREATE INDEX request_log_bodies ON request_log(ts) WHERE body IS NOT NULL;
    """,
    # 4: the account page (API.md section 15). A key's last use is kept on the key by the log
    # writer (one UPDATE per key and batch: the log has no per-key index, see 3), filled here
    # from the log in one pass. Sign-in links and sessions keep only the SHA-256 of their
    # token, with an expiry; a link is used once.
    """
    ALTER TABLE keys ADD COLUMN last_used REAL;
    UPDATE keys SET last_used = m.ts FROM (SELECT key_id, max(ts) AS ts FROM request_log
        WHERE key_id IS NOT NULL GROUP BY key_id) AS m WHERE m.key_id = keys.id;
    CREATE TABLE login_links (
        hash TEXT PRIMARY KEY,       -- sha256 hex of the link's token
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        expires REAL NOT NULL,
        used REAL
    ) WITHOUT ROWID;
    CREATE TABLE sessions (
        hash TEXT PRIMARY KEY,       -- sha256 hex of the cookie's token
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        created REAL NOT NULL,
        expires REAL NOT NULL
    ) WITHOUT ROWID;
    """,
    # 5: the partial index of 3 doubled the index work of every logged row (11 against 7 µs
    # a row, measured); retention now reads the ts index from where its last pass stopped
    # (``Store.write_log``), which touches only the rows newly past the period as well.
    """
    DROP INDEX request_log_bodies;
    """,
)
