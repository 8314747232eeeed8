"""The account page in a real browser (API.md section 15): ``harmony serve`` on a free loopback
port in a temporary folder, headless Chromium driven by selenium (Debian's ``chromium`` and
``chromium-driver``; ``.ci/run`` installs them). A user signs in by a link (after a link
scanner fetched it, which spent nothing) and the button of the page it opens, creates a key and
sees it once, uses it over HTTP, sees the calls arrive on both pages, rotates it, revokes it and
signs out. A screenshot of each page is saved in the test's temporary folder (``screens/``).
Nothing here asserts a time: waits poll for a state, with a generous deadline."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server_fixtures import stop_server
from tests.test_server_live import free_port

HARMONY = [sys.executable, "-m", "server.cli"]
READY_WITHIN = 180.0   # seconds: numba warm-up on a loaded 2-core machine can be slow
WAIT = 30.0            # for a page or a log flush (the writer runs every 0.25 s)
AGENT = {"User-Agent": "account-browser-test/1"}
CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="the browser test needs Debian's chromium and chromium-driver (.ci/run installs "
           "them when it runs as root: apt-get install chromium chromium-driver)")


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(base URL, database) of a live ``harmony serve``, stopped by its own process id."""
    db = tmp_path / "harmony.db"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARMONY_")}
    out, err = tmp_path / "serve.out", tmp_path / "serve.err"
    with out.open("wb") as o, err.open("wb") as e:
        process = subprocess.Popen(
            [*HARMONY, "--db", str(db), "serve", "--host", "127.0.0.1", "--port", str(port)],
            stdout=o, stderr=e, cwd=Path(__file__).parent.parent,
            env={**env, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        until(lambda: _healthy(url, process, err), READY_WITHIN, "harmony serve to start")
        yield url, db
    finally:
        stop_server(process)


def _healthy(url: str, process: subprocess.Popen[bytes], err: Path) -> bool:
    assert process.poll() is None, err.read_text()
    try:
        return httpx.get(url + "/health", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def until(ready: Callable[[], Any], within: float, what: str) -> Any:
    deadline = time.monotonic() + within
    while True:
        value = ready()
        if value:
            return value
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.2)


def harmony(db: Path, *args: str) -> str:
    return subprocess.run([*HARMONY, "--db", str(db), *args], capture_output=True, text=True,
                          timeout=120, check=True, cwd=Path(__file__).parent.parent).stdout


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    os.environ.setdefault("SE_OFFLINE", "true")  # selenium never looks for a driver online
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1100,1000", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(str(DRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


def analyze(url: str, secret: str, chord: str = "Cmaj7") -> httpx.Response:
    """What curl would send: a bearer key, JSON, an application's User-Agent."""
    return httpx.post(url + "/v2/analyze", json={"chord": chord, "key": "C"}, timeout=30,
                      headers={"Authorization": f"Bearer {secret}", **AGENT})


def test_a_user_signed_in_by_link_manages_keys_and_sees_usage(
        service: tuple[str, Path], browser: Any, tmp_path: Path) -> None:
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
    )
    from selenium.webdriver.common.by import By

    url, db = service
    screens = tmp_path / "screens"
    screens.mkdir()

    def shot(name: str) -> None:
        browser.save_screenshot(str(screens / f"{name}.png"))

    def text(element_id: str) -> str:
        return str(browser.find_element(By.ID, element_id).text)

    def settled(check: Callable[[], Any]) -> Callable[[], Any]:
        """``check``, read as not ready while the page is being replaced under it."""
        def run() -> Any:
            try:
                return check()
            except (NoSuchElementException, StaleElementReferenceException):
                return None
        return run

    def click(selector: str, then: str) -> None:
        """Submit a form; wait for the next page, known by an element only it has."""
        browser.find_element(By.CSS_SELECTOR, selector).click()
        until(settled(lambda: browser.find_elements(By.CSS_SELECTOR, then)), WAIT, then)

    def reload_until(path: str, ready: Callable[[], bool]) -> None:
        def check() -> bool:
            browser.get(url + path)
            return bool(settled(ready)())
        until(check, WAIT, f"{path} to show the calls")

    harmony(db, "accounts", "create", "alice", "--plan", "builder")
    browser.get(url + "/account")
    assert text("sign-in") == "Sign in"
    shot("1-sign-in")
    link = harmony(db, "accounts", "login-link", "alice", "--base-url", url).strip()
    # a mail or chat program's link scanner fetches the link first: that spends nothing
    for _ in range(2):
        assert httpx.get(link, headers=AGENT, timeout=30).status_code == 200
    browser.get(link)
    assert text("confirm-sign-in") == "Sign in"
    click("#sign-in-button", "#plan")                     # the button's POST signs in
    assert browser.current_url == url + "/account"        # the token left the address bar
    assert text("plan") == "builder" and "No active keys yet" in browser.page_source

    # create: the secret is shown once, in the answer to the POST
    click("#create-key", "#secret")
    secret = text("secret")
    key_id = text("new-key-id")
    assert secret.startswith("hk_live_") and secret not in browser.current_url
    shot("2-new-key")
    assert analyze(url, secret).status_code == 200
    assert analyze(url, secret, "Dm7b5").status_code == 200
    assert analyze(url, secret, "Hmaj7").status_code == 400       # an error, logged
    reload_until("/account", lambda: text(f"key-{key_id}").split()[-3] == "3")
    assert secret not in browser.page_source and "2 of 1,000 calls" in text("quota-text")
    assert browser.find_element(By.ID, "quota").get_attribute("value") == "2"
    shot("3-account")
    reload_until("/account/usage", lambda: browser.find_element(
        By.CSS_SELECTOR, "#by-day tbody tr").text.split()[1] == "3")
    row = browser.find_element(By.CSS_SELECTOR, "#by-day tbody tr").text.split()
    assert row[1:4] == ["3", "1", "33.3"]                      # calls, errors, error rate
    assert "analyze" in text("by-operation")
    assert browser.find_elements(By.CSS_SELECTOR, "figure svg rect")
    assert harmony(db, "usage", "--account", "alice", "--by", "day").splitlines()[1].split()[
        1:3] == ["3", "1"]
    shot("4-usage")

    # rotate: a new secret, the old one refused at once
    browser.get(url + "/account")
    click(f'button[aria-label="Rotate key {key_id}"]', "#secret")
    rotated, rotated_id = text("secret"), text("new-key-id")
    assert rotated != secret and key_id in text("replaced")
    shot("5-rotated")
    refused = analyze(url, secret)
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "key_revoked"
    assert analyze(url, rotated).status_code == 200

    # revoke: POST -> 303 -> GET /account, and the key stops working
    browser.get(url + "/account")
    click(f'button[aria-label="Revoke key {rotated_id}"]', "#no-keys")
    assert browser.current_url == url + "/account"
    assert analyze(url, rotated).status_code == 401
    shot("6-revoked")

    click("#sign-out", "#sign-in")
    browser.get(link)                                        # the link worked once
    assert "cannot be used" in browser.page_source
    assert sorted(p.name for p in screens.glob("*.png")) == [
        "1-sign-in.png", "2-new-key.png", "3-account.png", "4-usage.png", "5-rotated.png",
        "6-revoked.png"]
