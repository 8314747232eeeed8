"""The account page in-process (httpx.ASGITransport), API.md section 15: sign-in links and
sessions, the keys (create, rotate, revoke, the cap), CSRF, the headers, and every refusal."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from server.accounts import LINK_SECONDS, SESSION_SECONDS, SignIn
from tests.account_fixtures import (
    BROWSER,
    csrf_of,
    hidden,
    key_ids,
    press_sign_in,
    secret_of,
    sign_in,
)
from tests.server_fixtures import Clock, bearer, error_of, make, new_key, run, running

CSP = "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"


def assert_page_headers(r: httpx.Response) -> None:
    assert r.headers["content-security-policy"] == CSP
    assert r.headers["referrer-policy"] == "no-referrer"
    assert r.headers["cache-control"] == "no-store"
    assert r.headers["x-content-type-options"] == "nosniff"


def test_a_link_signs_in_once_and_its_token_leaves_the_address_bar(tmp_path: Path) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock)
    new_key(store, "acme")

    async def scenario() -> None:
        async with running(app) as http:
            r = await http.get("/account")  # no session: the sign-in page, no key asked
            assert r.status_code == 200 and "harmony accounts login-link" in r.text
            assert "<input" not in r.text and "hk_live" not in r.text
            assert_page_headers(r)
            link = SignIn(store, clock).issue_link("acme")
            # opening the link shows a button and spends nothing, however often (a mail or
            # chat program's link scanner, a preview, a HEAD)
            for _ in range(3):
                assert (await http.head("/account/login", params={"token": link})
                        ).status_code == 200
                page = await http.get("/account/login", params={"token": link})
                assert page.status_code == 200 and 'id="sign-in-button"' in page.text
                assert_page_headers(page)
                assert "harmony_session" not in http.cookies
            pre = page.headers["set-cookie"]
            assert pre.startswith("harmony_signin=") and "; SameSite=Strict" in pre
            assert "; HttpOnly" in pre and "; Max-Age=900" in pre
            r = await http.post("/account/login", data={"token": hidden(page.text, "token"),
                                                        "csrf": hidden(page.text, "csrf")})
            assert r.status_code == 303 and r.headers["location"] == "/account"
            assert_page_headers(r)
            cookie = r.headers["set-cookie"]
            assert "; HttpOnly" in cookie and "; SameSite=Strict" in cookie
            assert "; Path=/account" in cookie and "Secure" not in cookie  # local profile
            assert "harmony_signin=; " in cookie and "harmony_signin" not in http.cookies
            r = await http.get("/account")
            assert r.status_code == 200 and "Account <span class=\"name\">acme</span>" in r.text
            assert link not in r.text
            # used once: a second opening fails, and so does an unknown or a malformed token
            http.cookies.clear()
            for token in (link, "A" * 43, "not a token", ""):
                r = await http.get("/account/login", params={"token": token})
                assert r.status_code == 400 and "expired" in r.text, token
                assert "set-cookie" not in r.headers
                assert (await press_sign_in(http, token)).status_code == 400
            assert "harmony_session" not in http.cookies

    run(scenario())


def test_an_expired_link_and_an_expired_session(tmp_path: Path) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock)
    new_key(store, "acme")

    async def scenario() -> None:
        async with running(app) as http:
            link = SignIn(store, clock).issue_link("acme")
            page = await http.get("/account/login", params={"token": link})
            clock.advance(LINK_SECONDS + 1)      # the button pressed too late
            r = await http.post("/account/login", data={"token": hidden(page.text, "token"),
                                                        "csrf": hidden(page.text, "csrf")})
            assert r.status_code == 400 and "15 minutes" in r.text
            r = await http.get("/account/login", params={"token": link})
            assert r.status_code == 400 and "15 minutes" in r.text
            await sign_in(http, store, clock, "acme")
            assert "name=\"csrf\"" in (await http.get("/account")).text
            clock.advance(SESSION_SECONDS + 1)
            r = await http.get("/account")
            assert r.status_code == 200 and "Sign in" in r.text and "csrf" not in r.text

    run(scenario())


def test_the_hosted_profile_sets_a_secure_cookie_and_applies_the_ua_policy(
        tmp_path: Path) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock, profile="hosted")
    new_key(store, "acme")

    async def scenario() -> None:
        async with running(app, headers=BROWSER) as http:
            link = SignIn(store, clock).issue_link("acme")
            page = await http.get("/account/login", params={"token": link})
            pre = page.headers["set-cookie"]
            assert "; Secure" in pre
            # (over https a browser sends the Secure cookie back; this client is on http)
            http.cookies.set("harmony_signin", pre.split(";")[0].split("=", 1)[1],
                             path="/account")
            r = await http.post("/account/login", data={"token": hidden(page.text, "token"),
                                                        "csrf": hidden(page.text, "csrf")})
            assert r.status_code == 303 and "; Secure" in r.headers["set-cookie"]
            for agent in ("curl/8.5.0", "python-httpx/0.28.1"):
                r = await http.get("/account", headers={"User-Agent": agent})
                assert (r.status_code, error_of(r)) == (403, "blocked_user_agent")
            # a page's own form posts with its own origin, outside any allowlist: it passes;
            # another site's origin does not
            same = {"Origin": "https://testserver"}
            assert (await http.get("/account", headers=same)).status_code == 200
            # Origin: null, as a no-referrer page's own form sends it (with fetch metadata)
            null = {"Origin": "null", "Sec-Fetch-Site": "same-origin"}
            assert (await http.get("/account", headers=null)).status_code == 200
            for site in ("cross-site", "same-site", None):
                r = await http.post("/account/logout", data={"csrf": "x"},
                                    headers={"Origin": "null",
                                             **({"Sec-Fetch-Site": site} if site else {})})
                assert (r.status_code, error_of(r)) == (403, "forbidden_origin"), site
            r = await http.post("/account/logout", headers={"Origin": "https://evil.example"},
                                data={"csrf": "x"})
            assert (r.status_code, error_of(r)) == (403, "forbidden_origin")

    run(scenario())


def test_create_shows_the_secret_once_and_it_authenticates(tmp_path: Path) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock)
    store.create_account("acme", "builder")  # two keys allowed, none yet

    async def scenario() -> None:
        async with running(app) as http:
            await sign_in(http, store, clock, "acme")
            page = (await http.get("/account")).text
            assert "No active keys yet" in page and 'id="create-key"' in page
            r = await http.post("/account/keys", data={"csrf": csrf_of(page)})
            assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
            assert_page_headers(r)
            secret = secret_of(r.text)
            assert "location" not in r.headers and secret not in str(r.url)
            ok = await http.post("/v2/analyze", json={"chord": "C7"}, headers=bearer(secret))
            assert ok.status_code == 200
            page = (await http.get("/account")).text
            assert secret not in page and len(key_ids(page)) == 1
            assert secret[:12] + "…" in page           # the prefix only
            assert "1 of 2" in page                    # count against the cap

    run(scenario())
    assert all(row[2] == "rest" for row in store.log_rows())  # pages write no log row


def test_the_key_cap_is_explained_and_enforced(tmp_path: Path) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock)
    new_key(store, "acme", "free")  # the free plan allows one key: at the cap

    async def scenario() -> None:
        async with running(app) as http:
            await sign_in(http, store, clock, "acme")
            page = (await http.get("/account")).text
            assert 'id="create-key"' not in page and 'id="at-cap"' in page
            assert "1 of the 1 key your free plan allows" in page
            r = await http.post("/account/keys", data={"csrf": csrf_of(page)})
            assert r.status_code == 409 and 'id="cap-message"' in r.text
            assert "allows 1 active key" in r.text and "hk_live_" not in r.text.replace(
                key_prefix(page), "")

    def key_prefix(page: str) -> str:
        return page.split("<td><code>", 1)[1].split("</code>", 1)[0]

    run(scenario())
    assert len(store.list_keys("acme")) == 1


def test_rotate_and_revoke_take_effect_in_this_worker_at_once(tmp_path: Path) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock)
    other, _ = make(tmp_path, clock)  # a second worker on the same database
    # its watch of the store's key generation reads it once, at start: what is checked here
    # is the cache's lifetime, which a round of the watch (every 0.5 s of real time, at any
    # moment of a slow run) would cut short (the watch: test_server_app, test_outages)
    other.key_watch.interval = 3600.0
    key_id, secret = new_key(store, "acme", "builder")

    async def scenario() -> None:
        async with running(app) as http, running(other) as http2:
            # both workers have the key in their cache
            for client in (http, http2):
                assert (await client.post("/v2/analyze", json={"chord": "C"},
                                           headers=bearer(secret))).status_code == 200
            await sign_in(http, store, clock, "acme")
            page = (await http.get("/account")).text
            r = await http.post("/account/keys/rotate",
                                data={"csrf": csrf_of(page), "key_id": key_id})
            assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
            assert key_id in r.text and "no longer works" in r.text
            rotated = secret_of(r.text)
            old = await http.post("/v2/analyze", json={"chord": "C"}, headers=bearer(secret))
            assert (old.status_code, error_of(old)) == (401, "key_revoked")
            assert (await http.post("/v2/analyze", json={"chord": "C"},
                                    headers=bearer(rotated))).status_code == 200
            # the other worker still holds the old key in its cache, for at most its lifetime
            assert (await http2.post("/v2/analyze", json={"chord": "C"},
                                     headers=bearer(secret))).status_code == 200
            clock.advance(other.settings.key_cache_seconds)
            r = await http2.post("/v2/analyze", json={"chord": "C"}, headers=bearer(secret))
            assert (r.status_code, error_of(r)) == (401, "key_revoked")
            # revoke the rotated key: POST -> 303 -> GET
            page = (await http.get("/account")).text
            [new_id] = key_ids(page)
            r = await http.post("/account/keys/revoke",
                                data={"csrf": csrf_of(page), "key_id": new_id})
            assert r.status_code == 303 and r.headers["location"] == "/account"
            r = await http.post("/v2/analyze", json={"chord": "C"}, headers=bearer(rotated))
            assert (r.status_code, error_of(r)) == (401, "key_revoked")
            page = (await http.get("/account")).text
            assert key_ids(page) == [] and 'id="create-key"' in page

    run(scenario())


def test_another_accounts_key_is_refused_like_an_unknown_one(tmp_path: Path) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock)
    new_key(store, "acme", "builder")
    theirs, their_secret = new_key(store, "rival", "builder")

    async def scenario() -> None:
        async with running(app) as http:
            await sign_in(http, store, clock, "acme")
            csrf = csrf_of((await http.get("/account")).text)
            answers = []
            for action in ("rotate", "revoke"):
                for key_id in (theirs, "key_000000000000", "<b>"):
                    r = await http.post(f"/account/keys/{action}",
                                        data={"csrf": csrf, "key_id": key_id})
                    assert r.status_code == 404 and "No such key" in r.text
                    assert theirs not in r.text and "rival" not in r.text
                    answers.append(r.text)
            assert len(set(answers)) == 1  # nothing tells a foreign key from a missing one
            assert (await http.post("/v2/analyze", json={"chord": "C"},
                                    headers=bearer(their_secret))).status_code == 200

    run(scenario())
    assert [k["revoked"] for k in store.list_keys("rival")] == [None]


def test_forms_need_the_sessions_csrf_token(tmp_path: Path) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock)
    key_id, _ = new_key(store, "acme", "builder")
    new_key(store, "rival", "builder")

    async def scenario() -> None:
        async with running(app) as http, running(app) as rival:
            await sign_in(rival, store, clock, "rival")
            their_csrf = csrf_of((await rival.get("/account")).text)
            await sign_in(http, store, clock, "acme")
            mine = csrf_of((await http.get("/account")).text)
            for form in ({}, {"csrf": ""}, {"csrf": "0" * 64}, {"csrf": their_csrf},
                         {"csrf": mine[:-1]}):
                for path in ("/account/keys", "/account/keys/rotate", "/account/keys/revoke",
                             "/account/logout"):
                    r = await http.post(path, data={**form, "key_id": key_id})
                    assert r.status_code == 403 and "Form expired" in r.text, (path, form)
            # a new session has a new token; the old session's token is refused
            await sign_in(http, store, clock, "acme")
            r = await http.post("/account/keys/revoke", data={"csrf": mine, "key_id": key_id})
            assert r.status_code == 403
            # no session at all
            http.cookies.clear()
            r = await http.post("/account/keys", data={"csrf": mine})
            assert r.status_code == 403 and "Not signed in" in r.text

    run(scenario())
    assert [k["revoked"] for k in store.list_keys("acme")] == [None]
    assert len(store.list_keys("acme")) == 1


def test_sign_out_ends_the_session(tmp_path: Path) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock)
    new_key(store, "acme")

    async def scenario() -> None:
        async with running(app) as http:
            session = await sign_in(http, store, clock, "acme")
            csrf = csrf_of((await http.get("/account")).text)
            r = await http.post("/account/logout", data={"csrf": csrf})
            assert r.status_code == 303 and r.headers["location"] == "/account"
            assert "Max-Age=0" in r.headers["set-cookie"]
            # the old cookie, sent again by hand, opens nothing
            r = await http.get("/account", headers={"Cookie": f"harmony_session={session}"})
            assert "Sign in" in r.text and "csrf" not in r.text

    run(scenario())


def test_pages_never_count_against_the_quota_and_obey_the_flood_throttle(
        tmp_path: Path) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock, flood_per_minute=9)
    key_id, secret = new_key(store, "acme", "builder")

    async def scenario() -> None:
        async with running(app) as http:
            r = await http.post("/v2/analyze", json={"chord": "C"}, headers=bearer(secret))
            assert r.headers["x-quota-used"] == "1"
            await sign_in(http, store, clock, "acme")             # the 2nd and 3rd
            for _ in range(3):                                     # 4th to 6th
                page = (await http.get("/account", headers=bearer(secret))).text
                assert 'value="1">' in page and "1 of 1,000 calls" in page
            r = await http.head("/account")                        # 7th
            assert r.status_code == 200 and r.content == b""
            assert (await http.get("/account/style.css")).status_code == 200  # 8th
            assert (await http.get("/account/usage")).status_code == 200      # 9th
            r = await http.get("/account")                         # the 10th: throttled
            assert (r.status_code, error_of(r)) == (429, "rate_limited")

    run(scenario())
    assert app.limiter.month_used(store.account_id("acme")) == 1
    assert [row[1] for row in store.log_rows()] == [key_id]  # the API call alone


@pytest.mark.parametrize("path", ["/account", "/account/usage", "/account/keys/rotate"])
def test_pages_carry_no_script_and_no_inline_style(tmp_path: Path, path: str) -> None:
    clock = Clock()
    app, store = make(tmp_path, clock)
    key_id, _ = new_key(store, "acme", "builder")

    async def scenario() -> None:
        async with running(app) as http:
            await sign_in(http, store, clock, "acme")
            page = (await http.get("/account")).text
            r = (await http.post(path, data={"csrf": csrf_of(page), "key_id": key_id})
                 if path.endswith("rotate") else await http.get(path))
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
            assert_page_headers(r)
            text = r.text.lower()
            assert "<script" not in text and " style=" not in text and "<style" not in text
            assert "javascript:" not in text and re.search(r"\son[a-z]+=", text) is None
            assert '<html lang="en">' in r.text and "<h1" in r.text
            forms = r.text.count("<form")
            assert forms >= 1 and r.text.count('<input type="hidden" name="csrf"') == forms
            css = await http.get("/account/style.css")
            assert css.headers["content-type"].startswith("text/css")

    run(scenario())


def test_the_sign_in_button_needs_this_browser_s_page(tmp_path: Path) -> None:
    # The POST that spends a link needs the CSRF token of the page its GET showed, tied to
    # that page's pre-session cookie: another site's form (which has neither, and whose
    # browser would not send a SameSite=Strict cookie) cannot sign the visitor in to an
    # account of its choosing, and the link stays usable.
    clock = Clock()
    app, store = make(tmp_path, clock)
    new_key(store, "acme")

    async def scenario() -> None:
        async with running(app) as http:
            link = SignIn(store, clock).issue_link("acme")
            page = await http.get("/account/login", params={"token": link})
            csrf = hidden(page.text, "csrf")
            pre = http.cookies["harmony_signin"]
            attempts = [({"token": link}, pre), ({"token": link, "csrf": csrf}, None),
                        ({"token": link, "csrf": "0" * 64}, pre)]
            for form, cookie in attempts:
                http.cookies.clear()
                if cookie is not None:
                    http.cookies.set("harmony_signin", cookie, path="/account")
                r = await http.post("/account/login", data=form)
                assert r.status_code == 403 and "Open the link again" in r.text
                assert "harmony_session" not in http.cookies
            http.cookies.set("harmony_signin", pre, path="/account")
            r = await http.post("/account/login", data={"token": link, "csrf": csrf})
            assert r.status_code == 303                 # the link was not spent before

    run(scenario())
