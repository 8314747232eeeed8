"""The account page's routes and answers.

Opening a sign-in link (GET) spends nothing: it shows a page whose button signs in, a POST of
the link's token with a CSRF token, so a mail or chat program that fetches the link first
(a link scanner, a preview) leaves it usable. The GET sets a short-lived pre-session cookie
(HttpOnly, SameSite=Strict, as long as a link lasts) from which the form's CSRF token is
derived: another site's form cannot sign the visitor in to an account of its choosing. The
POST exchanges the token for a session and answers a 303 to ``/account``, so the token
leaves the address bar. Every form carries a CSRF token derived from the
session (``server.accounts.csrf_token``) and is refused (403) without the right one. A POST
that changes something answers 303 to a GET (revoke, sign out), except the two that make a
secret (create, rotate): their answer shows it, once, under ``Cache-Control: no-store``; it
is never in a URL nor in a log (the pages are not logged). A key id of another account is
answered exactly like an unknown one (404). Nothing here counts against the API quota.
"""

from __future__ import annotations

import calendar
import time
from collections.abc import Callable
from typing import Any

from server.accounts import (
    LINK_SECONDS,
    SESSION_SECONDS,
    AccountRecord,
    SignIn,
    Store,
    StoreError,
    csrf_ok,
    csrf_token,
    new_token,
)
from server.api import Response
from server.web.chart import usage_chart
from server.web.html import Html, escape, join, render, stylesheet
from server.web.request import (
    CSS_TYPE,
    HTML_TYPE,
    SIGNIN_COOKIE,
    PageRequest,
    page_headers,
    session_cookie,
    signin_cookie,
)

GET = frozenset({"GET", "HEAD"})
POST = frozenset({"POST"})
PAGE_ROUTES: dict[str, frozenset[str]] = {
    "/account": GET,
    "/account/login": frozenset({"GET", "HEAD", "POST"}),  # GET, HEAD spend no link
    "/account/usage": GET,
    "/account/style.css": GET,
    "/account/keys": POST,
    "/account/keys/rotate": POST,
    "/account/keys/revoke": POST,
    "/account/logout": POST,
}
USAGE_DAYS = 30

Signed = tuple[str, AccountRecord]  # (session token, its account)


class AccountPages:
    def __init__(self, store: Store, signin: SignIn, month_used: Callable[[int], int],
                 forget_key: Callable[[str], None], secure: bool,
                 wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.signin = signin
        self.month_used = month_used      # the limiter's count, as X-Quota-Used says it
        self.forget_key = forget_key      # drops a revoked key from this worker's auth cache
        self.secure = secure              # Secure cookies (the hosted profile)
        self.wall = wall                  # the request log's clock (usage, calls this month)

    def answer(self, req: PageRequest) -> Response:
        if req.path == "/account/style.css":
            return Response(200, stylesheet(), page_headers("public, max-age=3600"),
                            content_type=CSS_TYPE)
        if req.path == "/account/login":
            return self._login(req)
        signed = self._signed(req)
        if req.method != "POST":
            if signed is None:
                return _page(200, "Sign in", render("signin"))
            return self._usage(signed) if req.path == "/account/usage" else \
                self._account(signed)
        if signed is None:
            return _problem(403, "Not signed in", "Your session has ended or was never "
                            "started: open a new sign-in link.", "Sign in")
        session = signed[0]
        form = req.form()
        if not csrf_ok(session, form.get("csrf", "")):
            return _problem(403, "Form expired", "This form does not belong to your current "
                            "session (an old page, or another site's form). Reload your "
                            "account page and try again.", signed=signed)
        if req.path == "/account/logout":
            self.signin.end(session)
            return _see_other("/account", session_cookie("", 0, self.secure))
        if req.path == "/account/keys":
            return self._create(signed)
        return self._change(signed, req.path.rsplit("/", 1)[1], form.get("key_id", ""))

    # ------------------------------------------------------------ sign-in

    def _login(self, req: PageRequest) -> Response:
        if req.method != "POST":  # opening the link: a page with the button, nothing spent
            token = req.param("token")
            if not self.signin.usable(token):
                return _link_problem()
            pre = new_token()
            response = _page(200, "Sign in", render("confirm", token=token,
                                                    csrf=csrf_token(pre)))
            response.headers.append(signin_cookie(pre, LINK_SECONDS, self.secure))
            return response
        form = req.form()
        pre = req.cookie(SIGNIN_COOKIE)
        if not pre or not csrf_ok(pre, form.get("csrf", "")):
            return _problem(403, "Form expired", "This sign-in form was not opened from your "
                            "sign-in link in this browser (or it is older than the link). "
                            "Open the link again.", "Sign in")
        session = self.signin.redeem(form.get("token", ""))
        if session is None:
            return _link_problem()
        return _see_other("/account", session_cookie(session, SESSION_SECONDS, self.secure),
                          signin_cookie("", 0, self.secure))

    def _signed(self, req: PageRequest) -> Signed | None:
        session = req.session()
        account_id = self.signin.account_of(session) if session else None
        account = self.store.account(account_id) if account_id is not None else None
        return (session, account) if account is not None else None

    # ------------------------------------------------------------ keys

    def _create(self, signed: Signed) -> Response:
        try:
            key_id, secret = self.store.create_key(signed[1].name)
        except StoreError:  # the cap, checked in the same transaction as the insert
            plan = signed[1].plan
            return self._account(signed, 409, Html(
                f'<p class="notice warn" role="alert" id="cap-message">Your {plan.name} plan '
                f"allows {plan.max_keys} active key{'' if plan.max_keys == 1 else 's'}: revoke "
                "or rotate one instead of creating another.</p>"))
        return self._secret(signed, "Your new key", key_id, secret, "")

    def _change(self, signed: Signed, action: str, key_id: str) -> Response:
        account = signed[1]
        try:
            if action == "rotate":
                new_id, secret = self.store.rotate_key(key_id, account.account_id)
            else:
                self.store.revoke_key(key_id, account.account_id)
        except StoreError:  # unknown, already revoked, or another account's: all alike
            return _problem(404, "No such key", "Your account has no active key with that "
                            "id.", signed=signed)
        self.forget_key(key_id)
        if action == "revoke":
            return _see_other("/account")
        replaced = Html(f'<p id="replaced">It replaces key <code>{_text(key_id)}</code>, which '
                        "no longer works.</p>")
        return self._secret(signed, "Your rotated key", new_id, secret, replaced)

    def _secret(self, signed: Signed, heading: str, key_id: str, secret: str,
                replaced: str) -> Response:
        body = render("created", heading=heading, key_id=key_id, secret=secret,
                      replaced=Html(replaced))
        return _page(200, heading, body, signed)

    # ------------------------------------------------------------ pages

    def _account(self, signed: Signed, status: int = 200, notice: str = "") -> Response:
        session, account = signed
        now = self.wall()
        tm = time.gmtime(now)
        month_start = calendar.timegm((tm.tm_year, tm.tm_mon, 1, 0, 0, 0, 0, 0, 0))
        keys = self.store.active_keys(account.account_id, month_start)
        used = self.month_used(account.account_id)
        csrf = csrf_token(session)
        rows = join(render("key_row", id=k["id"], prefix=k["prefix"],
                           created=_minute(k["created"]),
                           last_used=_minute(k["lastUsed"]) if k["lastUsed"] else "never", calls=f"{k['calls']:,}",
                           csrf=csrf) for k in keys)
        cap = account.plan.max_keys
        table = render("keys", count=len(keys), cap=cap, rows=rows) if keys else \
            Html('<p id="no-keys">No active keys yet.</p>')
        create = render("create", csrf=csrf) if len(keys) < cap else Html(
            f'<p class="notice" id="at-cap">You have {len(keys)} of the {cap} '
            f"key{'' if cap == 1 else 's'} your {account.plan.name} plan allows: rotate or "
            "revoke a key to get a new one.</p>")
        percent = 100 * used / account.per_month if account.per_month else 100.0
        body = render("account", name=account.name, notice=Html(notice),
                      plan=account.plan.name.replace("_", " "),
                      per_minute=f"{account.per_minute:,}", per_month=account.per_month,
                      per_month_text=f"{account.per_month:,}", used=used,
                      used_text=f"{used:,}", percent=f"{percent:.1f}",
                      month=time.strftime("%B %Y", tm), keys=table, create=create)
        return _page(status, "Account", body, signed)

    def _usage(self, signed: Signed) -> Response:
        now = self.wall()
        name = signed[1].name
        by_day = self.store.usage(name, USAGE_DAYS, "day", now=now)
        by_operation = self.store.usage(name, USAGE_DAYS, "operation", now=now)
        first = int((now - USAGE_DAYS * 86400) // 86400)
        days = [time.strftime("%Y-%m-%d", time.gmtime(d * 86400))
                for d in range(first, int(now // 86400) + 1)]
        chart = usage_chart(days, {r["day"]: r for r in by_day})
        body = render("usage", name=name, start=days[0], end=days[-1], chart=chart,
                      days=_usage_table("by-day", "Calls per UTC day (days with calls)",
                                        "Day", "day", by_day),
                      operations=_usage_table("by-operation", "Calls per operation",
                                              "Operation", "operation", by_operation))
        return _page(200, "Usage", body, signed)


def _usage_table(table_id: str, caption: str, first: str, field: str,
                 rows: list[dict[str, Any]]) -> Html:
    if not rows:
        return Html(f'<p id="{table_id}-empty">No calls in these 30 days.</p>')
    body = join(render("usage_row", group=r[field] or "(none)", calls=f"{r['calls']:,}",
                       errors=f"{r['errors']:,}", rate=f"{100 * r['errorRate']:.1f}",
                       p50=f"{r['p50Us']:,}", p95=f"{r['p95Us']:,}") for r in rows)
    return render("usage_table", id=table_id, caption=caption, first=first, rows=body)


def _minute(iso: str) -> str:
    """'2026-11-25T06:28:40Z' -> '2026-11-25 06:28' (the column says UTC)."""
    return iso.replace("T", " ")[:16]


def _text(value: str) -> str:
    return str(escape(value))


def _page(status: int, title: str, content: Html, signed: Signed | None = None) -> Response:
    nav = render("nav", csrf=csrf_token(signed[0])) if signed is not None else Html("")
    body = render("base", title=title, nav=nav, content=content)
    return Response(status, body.encode(), page_headers(), content_type=HTML_TYPE)


def _problem(status: int, heading: str, message: str, back: str = "Back to your account",
             signed: Signed | None = None) -> Response:
    return _page(status, heading, render("problem", heading=heading, message=message,
                                         back=back), signed)


def _link_problem() -> Response:
    return _problem(400, "This sign-in link cannot be used",
                    f"It has expired (a link lasts {LINK_SECONDS // 60} minutes) or it was "
                    "used already (a link works once). Ask for a new one.", "Sign in")


def _see_other(location: str, *headers: tuple[str, str]) -> Response:
    return Response(303, b"", [*page_headers(), ("location", location), *headers],
                    content_type=None)
