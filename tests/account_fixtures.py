"""Helpers for the account page tests: sign in through a link, read a page's CSRF token and
tables."""

from __future__ import annotations

import html
import re

import httpx

from server.accounts import SignIn, Store
from tests.server_fixtures import Clock

BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) account-page-test"}


async def sign_in(http: httpx.AsyncClient, store: Store, clock: Clock, account: str) -> str:
    """Open a fresh link for ``account``; the client keeps the session cookie. Returns the
    session token."""
    link = SignIn(store, clock).issue_link(account)
    r = await press_sign_in(http, link)
    assert r.status_code == 303 and r.headers["location"] == "/account", r.text
    return str(http.cookies["harmony_session"])


async def press_sign_in(http: httpx.AsyncClient, link: str) -> httpx.Response:
    """Open a sign-in link (a GET, which spends nothing) and press its page's button (the
    POST that signs in); the answer to the POST, or to the GET when it showed no button."""
    page = await http.get("/account/login", params={"token": link})
    if page.status_code != 200:
        return page
    return await http.post("/account/login", data={"token": hidden(page.text, "token"),
                                                   "csrf": hidden(page.text, "csrf")})


def hidden(page: str, name: str) -> str:
    """The value of a form's hidden field."""
    found = re.search(rf'<input type="hidden" name="{name}" value="([^"]*)">', page)
    assert found is not None, page
    return html.unescape(found.group(1))


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found is not None, page
    return found.group(1)


def secret_of(page: str) -> str:
    found = re.search(r'<span id="secret">(hk_live_[A-Za-z0-9_-]+)</span>', page)
    assert found is not None, page
    return found.group(1)


def key_ids(page: str) -> list[str]:
    return re.findall(r'<tr id="key-(key_[0-9a-f]+)">', page)


def table_rows(page: str, table_id: str) -> list[list[str]]:
    """The cells of the body rows of ``<table id=table_id>``, as text."""
    found = re.search(rf'<table id="{table_id}">(.*?)</table>', page, re.S)
    if found is None:
        return []
    body = found.group(1).split("<tbody>", 1)[1]
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
             for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]
