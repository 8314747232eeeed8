"""What a new user meets first: ``harmony --version``, the stdio servers answering ``--help``
and ``--version`` instead of waiting silently, and ``GET /`` pointing to the service's routes
instead of a bare 404 (issue 17, in part)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from engine.version import GRID_VERSION, PACKAGE_VERSION
from server.api.schemas import OPERATIONS
from tests.server_fixtures import make, run, running

BIN = Path(sys.executable).parent


def console(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    # an upper bound: a stdio server imports the whole engine before it reads its arguments
    # (3 s at a load of 4, 13 s at a load of 9 on two cores: 60 s was too close)
    return subprocess.run([str(BIN / name), *args], capture_output=True, text=True,
                          timeout=180, stdin=subprocess.DEVNULL)


def test_harmony_version() -> None:
    done = console("harmony", "--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"harmony {PACKAGE_VERSION} (grid {GRID_VERSION})"


@pytest.mark.parametrize("name", ["harmony-mcp", "harmony-conductor", "harmony-compose"])
def test_stdio_servers_answer_help_and_version(name: str) -> None:
    version = console(name, "--version")
    assert (version.returncode, version.stdout.strip()) == (0, f"{name} {PACKAGE_VERSION}")
    helped = console(name, "--help")
    assert helped.returncode == 0 and helped.stdout.startswith(f"usage: {name}")
    assert '"mcpServers"' in helped.stdout and str(BIN / name) in helped.stdout
    wrong = console(name, "--port", "1")
    assert wrong.returncode == 2 and "unknown arguments" in wrong.stderr and not wrong.stdout


def test_the_root_route_points_to_the_others(tmp_path: Path) -> None:
    app, _ = make(tmp_path, operations=OPERATIONS)

    async def scenario() -> None:
        async with running(app) as http:
            r = await http.get("/")
            assert r.status_code == 404  # API.md 8, as the original service answered
            error = r.json()["error"]
            assert error["code"] == "not_found"
            for where in ("/health", "/openapi.json", "/mcp", "docs/", "search"):
                assert where in error["message"]

    run(scenario())


def test_mcp_config_prints_a_snippet_that_works_from_anywhere(tmp_path: Path) -> None:
    import json

    plain = console("harmony", "mcp-config")
    assert json.loads(plain.stdout) == {"mcpServers": {"harmony": {
        "command": str(BIN / "harmony-mcp")}}}
    proxy = console("harmony", "mcp-config", "--compose", "--url", "https://h.example",
                    "--key", "hk_live_k")
    assert json.loads(proxy.stdout) == {"mcpServers": {"compose": {
        "command": str(BIN / "harmony-compose"),
        "env": {"HARMONY_BASE_URL": "https://h.example", "SERVICE_API_KEY": "hk_live_k"}}}}
    assert (BIN / "harmony-compose").is_file()
    lonely = console("harmony", "mcp-config", "--key", "k")
    assert lonely.returncode == 1 and "--key goes with --url" in lonely.stderr


def test_mcp_config_speaks_each_clients_format() -> None:
    import json

    mcp = str(BIN / "harmony-mcp")
    vscode = console("harmony", "mcp-config", "--client", "vscode")
    assert json.loads(vscode.stdout) == {"servers": {"harmony": {
        "type": "stdio", "command": mcp, "args": []}}}
    cursor = console("harmony", "mcp-config", "--client", "cursor", "--http",
                     "https://h.example/", "--key", "hk_live_k")
    assert json.loads(cursor.stdout) == {"mcpServers": {"harmony": {
        "url": "https://h.example/mcp", "headers": {"Authorization": "Bearer hk_live_k"}}}}
    hosted = console("harmony", "mcp-config", "--client", "vscode", "--http", "https://h.example")
    assert json.loads(hosted.stdout) == {"servers": {"harmony": {
        "type": "http", "url": "https://h.example/mcp"}}}
    code = console("harmony", "mcp-config", "--client", "claude-code", "--conductor",
                   "--url", "https://h.example", "--key", "hk_live_k")
    assert shlex.split(code.stdout) == [
        "claude", "mcp", "add", "--env", "HARMONY_BASE_URL=https://h.example",
        "--env", "SERVICE_API_KEY=hk_live_k", "conductor", "--", str(BIN / "harmony-conductor")]
    code_http = console("harmony", "mcp-config", "--client", "claude-code", "--http",
                        "https://h.example", "--key", "hk_live_k")
    assert shlex.split(code_http.stdout) == [
        "claude", "mcp", "add", "--transport", "http", "--header",
        "Authorization: Bearer hk_live_k", "harmony", "https://h.example/mcp"]
    desktop = console("harmony", "mcp-config", "--http", "https://h.example")
    assert desktop.returncode == 1 and "Claude Desktop" in desktop.stderr


def test_accounts_create_says_what_it_did(tmp_path: Path) -> None:
    done = console("harmony", "--db", str(tmp_path / "h.db"), "accounts", "create", "band")
    assert done.returncode == 0
    assert done.stderr == "harmony: created account 'band' (free plan)\n"


def test_key_commands_never_create_a_database_and_name_the_one_they_read(
        tmp_path: Path) -> None:
    def in_folder(*args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "HARMONY_DB"}
        return subprocess.run([str(BIN / "harmony"), *args], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL)

    for command in (["keys", "create", "local"], ["keys", "list"], ["accounts", "list"],
                    ["usage"], ["vocab-gaps"]):
        done = in_folder(*command)
        assert done.returncode == 1, command
        assert done.stderr.startswith(f"harmony: no database at {tmp_path / 'harmony.db'}")
        assert not (tmp_path / "harmony.db").exists()
    assert in_folder("accounts", "create", "band").returncode == 0
    missing = in_folder("keys", "create", "nobody")
    assert missing.returncode == 1
    assert missing.stderr == (f"harmony: no account named 'nobody' "
                              f"(in {tmp_path / 'harmony.db'})\n")


def test_serve_refuses_a_taken_port_in_one_line_and_prints_no_key(tmp_path: Path) -> None:
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run([str(BIN / "harmony"), "serve", "--port", str(port), "--db",
                               str(tmp_path / "h.db")], capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and done.stdout == ""  # no key printed, then forgotten
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"harmony: cannot serve on 127.0.0.1:{port}: ")
    assert f"--port {port + 1}" in done.stderr
    assert not (tmp_path / "h.db").exists()


def test_a_second_server_on_the_same_database_is_refused(tmp_path: Path) -> None:
    from tests.mcp_live import free_port, running_server

    with running_server(tmp_path, no_auth=True) as live:
        done = subprocess.run([str(BIN / "harmony"), "serve", "--port", str(free_port()),
                               "--db", str(live.db)], capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 1 and done.stdout == ""
        assert f"the database {live.db.resolve()} is served by a live harmony serve (pid " \
            in done.stderr
        assert "--db OTHER.db" in done.stderr
        # the first one still answers, its metrics folder untouched
        import httpx

        assert httpx.get(live.url + "/metrics", timeout=30).status_code == 200


def test_a_batch_under_a_later_protocol_says_batches_were_removed(tmp_path: Path) -> None:
    app, _ = make(tmp_path, operations=OPERATIONS, auth=False)

    async def scenario() -> None:
        async with running(app) as http:
            r = await http.post("/mcp", json=[{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
                                headers={"mcp-protocol-version": "2025-11-25"})
            assert r.status_code == 400
            message = r.json()["error"]["message"]
            assert "batches were removed after protocol 2025-03-26" in message
            assert "2025-11-25" in message

    run(scenario())


def test_an_unknown_voicing_style_is_a_usage_error_listing_the_styles(tmp_path: Path) -> None:
    done = console("harmony", "voicing", "Cmaj7", "--style", "cluster")
    assert done.returncode == 2 and not done.stdout
    assert "no voicing style 'cluster'; the styles are rootless, bill_evans" in done.stderr
    assert "drop2" in console("harmony", "voicing", "--help").stdout


def test_a_policy_refusal_on_mcp_answers_the_request_id(tmp_path: Path) -> None:
    app, _ = make(tmp_path, operations=OPERATIONS, profile="hosted")

    async def scenario() -> None:
        async with running(app) as http:  # httpx's own User-Agent: refused when hosted
            r = await http.post("/mcp", json={"jsonrpc": "2.0", "id": 7, "method": "ping"})
            assert r.status_code == 403
            body = r.json()
            assert body["id"] == 7 and body["error"]["data"]["code"] == "blocked_user_agent"
            r = await http.post("/mcp", content=b"{not json")
            assert r.status_code == 403 and r.json()["id"] is None

    run(scenario())


def test_every_option_of_every_command_says_what_it_is() -> None:
    import argparse

    from server.cli.main import build_parser

    missing = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, [*path, name])
            elif not action.help:
                missing.append(f"{' '.join(path)} {action.dest}")

    walk(build_parser(), ["harmony"])
    assert missing == []
    assert "seconds" in console("harmony", "conduct", "--help").stdout
