"""Sign-in links and sessions of the account page (API.md section 15).

``harmony accounts login-link NAME`` issues a link token: valid ``LINK_SECONDS`` (15 minutes),
used once. Opening the link only checks it (``usable``); the button of the page it shows
redeems it for a session token (the cookie), valid
``SESSION_SECONDS`` unless signed out first. Both are 32 random bytes; only their SHA-256 is
stored, so a copy of the database signs no one in. A row is found by its hash (an index
lookup: its timing can only tell about a hash, not the token) and the hash read back is then
compared in constant time. Expired rows are deleted whenever a new link or session is made.
The clock is injectable for tests.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from collections.abc import Callable

from server.accounts.store import Store, hash_secret

LINK_SECONDS = 15 * 60
SESSION_SECONDS = 12 * 3600
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")  # token_urlsafe(32)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def csrf_token(session: str) -> str:
    """The CSRF token of the forms of one session: derived from the session's own token (which
    only its cookie holds), so it needs no storage and is worthless for any other session."""
    return hmac.new(session.encode(), b"harmony account page forms", "sha256").hexdigest()


def csrf_ok(session: str, presented: str) -> bool:
    return hmac.compare_digest(csrf_token(session).encode(), presented.encode())


class SignIn:
    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock

    def issue_link(self, account: str) -> str:
        """A new sign-in link token for ``account`` (shown once, kept hashed)."""
        account_id = self.store.account_id(account)
        token, now = new_token(), self.clock()
        with self.store.write() as c:
            c.execute("DELETE FROM login_links WHERE expires < ?", (now,))
            c.execute("INSERT INTO login_links VALUES (?, ?, ?, NULL)",
                      (hash_secret(token), account_id, now + LINK_SECONDS))
        return token

    def usable(self, link_token: str) -> bool:
        """Whether a link is unexpired and unused, spending nothing (the page that opening
        the link shows; the button's POST redeems it)."""
        if not _TOKEN_SHAPE.fullmatch(link_token):
            return False
        digest = hash_secret(link_token)
        row = self.store.conn.execute(
            "SELECT hash FROM login_links WHERE hash = ? AND used IS NULL AND expires > ?",
            (digest, self.clock())).fetchone()
        return row is not None and hmac.compare_digest(row[0], digest)

    def redeem(self, link_token: str) -> str | None:
        """A new session token for a link that is unexpired and unused (and now used), else
        None: an expired, used, unknown or malformed link alike."""
        if not _TOKEN_SHAPE.fullmatch(link_token):
            return None
        digest, now = hash_secret(link_token), self.clock()
        with self.store.write() as c:
            row = c.execute("UPDATE login_links SET used = ? WHERE hash = ? AND used IS NULL "
                            "AND expires > ? RETURNING hash, account_id",
                            (now, digest, now)).fetchone()
            if row is None or not hmac.compare_digest(row[0], digest):
                return None
            session = new_token()
            c.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            c.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)",
                      (hash_secret(session), row[1], now, now + SESSION_SECONDS))
        return session

    def account_of(self, session: str) -> int | None:
        """The account id of a live session token, else None."""
        if not _TOKEN_SHAPE.fullmatch(session):
            return None
        digest = hash_secret(session)
        row = self.store.conn.execute(
            "SELECT hash, account_id FROM sessions WHERE hash = ? AND expires > ?",
            (digest, self.clock())).fetchone()
        if row is None or not hmac.compare_digest(row[0], digest):
            return None
        return int(row[1])

    def end(self, session: str) -> None:
        """Sign out: the session's row goes; its cookie opens nothing any more."""
        with self.store.write() as c:
            c.execute("DELETE FROM sessions WHERE hash = ?", (hash_secret(session),))
