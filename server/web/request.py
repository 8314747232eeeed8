"""What a page handler sees of a request, and the headers every page answer carries.

Headers of every page: a strict Content-Security-Policy (``default-src 'self'``, so no inline
script or style runs: the pages have none; ``frame-ancestors 'none'``), no referrer (a link's
token never leaks through ``Referer``), and ``Cache-Control: no-store`` (the pages
show an account, and a new key's secret once).
"""

from __future__ import annotations

from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs

from server.api import Headers, RequestHeaders

COOKIE = "harmony_session"
SIGNIN_COOKIE = "harmony_signin"   # the pre-session of a sign-in link's page (its CSRF)
CSP = "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
HTML_TYPE = "text/html; charset=utf-8"
CSS_TYPE = "text/css; charset=utf-8"


def page_headers(cache: str = "no-store") -> Headers:
    return [("content-security-policy", CSP), ("referrer-policy", "no-referrer"),
            ("x-frame-options", "DENY"),  # (nosniff: on every answer, ``HarmonyApp._finish``)
            ("cache-control", cache)]


@dataclass(frozen=True)
class PageRequest:
    method: str
    path: str
    query: str
    headers: RequestHeaders
    body: bytes = b""

    def param(self, name: str) -> str:
        """A query parameter (the first of that name), '' when absent."""
        return parse_qs(self.query).get(name, [""])[0]

    def form(self) -> dict[str, str]:
        """An ``application/x-www-form-urlencoded`` body: the first value of each field."""
        try:
            text = self.body.decode()
        except UnicodeDecodeError:
            return {}
        return {k: v[0] for k, v in parse_qs(text).items()}

    def session(self) -> str:
        """The session cookie's token, '' when there is none."""
        return self.cookie(COOKIE)

    def cookie(self, name: str) -> str:
        """A cookie's value, '' when there is none."""
        cookie: SimpleCookie = SimpleCookie()
        try:
            cookie.load(self.headers.get("cookie") or "")
        except CookieError:
            return ""
        morsel = cookie.get(name)
        return morsel.value if morsel is not None else ""


def session_cookie(token: str, max_age: int, secure: bool) -> tuple[str, str]:
    """``Set-Cookie`` for the session (an empty token with max-age 0 ends it): HttpOnly (no
    script reads it), SameSite=Strict (no other site's page sends it), Secure when hosted,
    and only for the pages' path."""
    return _cookie(COOKIE, token, max_age, secure)


def signin_cookie(token: str, max_age: int, secure: bool) -> tuple[str, str]:
    """``Set-Cookie`` for a sign-in link's pre-session (``server.web.pages``), alike."""
    return _cookie(SIGNIN_COOKIE, token, max_age, secure)


def _cookie(name: str, token: str, max_age: int, secure: bool) -> tuple[str, str]:
    value = (f"{name}={token}; Path=/account; Max-Age={max_age}; HttpOnly; "
             f"SameSite=Strict{'; Secure' if secure else ''}")
    return "set-cookie", value
