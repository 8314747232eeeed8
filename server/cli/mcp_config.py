"""``harmony mcp-config``: what each MCP client needs to reach a harmony server, in the client's
own format (docs/mcp.md, "Client set-up"):

| client | where it goes | shape |
| --- | --- | --- |
| claude-desktop (default) | claude_desktop_config.json | ``{"mcpServers": {name: {"command", "env"}}}`` |
| cursor | .cursor/mcp.json (or ~/.cursor/mcp.json) | ``{"mcpServers": {name: {...}}}``; hosted: ``{"url", "headers"}`` |
| vscode | .vscode/mcp.json | ``{"servers": {name: {"type": "stdio", ...}}}``; hosted: ``{"type": "http", "url", "headers"}`` |
| claude-code | a shell command | ``claude mcp add ...`` |

A stdio server is started by the client from the executable's absolute path (so it works
without activating the virtual environment); ``--url`` makes it a proxy to a running service;
``--http`` points the client at a hosted ``POST /mcp`` instead (no local process).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from server.cli.common import print_json

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode")
NAMES = {"harmony-mcp": "harmony", "harmony-conductor": "conductor",
         "harmony-compose": "compose"}


def add_parser(sub: Any) -> None:
    m = sub.add_parser("mcp-config", help="print what an MCP client needs to start a harmony "
                                          "stdio server (absolute paths) or reach a hosted "
                                          "/mcp, in the client's own format")
    m.add_argument("--client", choices=CLIENTS, default="claude-desktop",
                   help="the client whose format to print (claude-code: a command line)")
    which = m.add_mutually_exclusive_group()
    which.add_argument("--conductor", action="store_const", dest="server",
                       const="harmony-conductor", help="the conductor (render, play, search)")
    which.add_argument("--compose", action="store_const", dest="server",
                       const="harmony-compose", help="the composer (compose_* tools)")
    m.add_argument("--url", help="proxy to this running service instead of the engine "
                                 "in-process (HARMONY_BASE_URL)")
    m.add_argument("--http", help="the hosted service's URL: the client talks to its /mcp over "
                                  "streamable HTTP (no local process)")
    m.add_argument("--key", help="the API key for --url (SERVICE_API_KEY) or --http (the "
                                 "Authorization header)")
    m.set_defaults(run=cmd_mcp_config, server="harmony-mcp")


def cmd_mcp_config(ns: argparse.Namespace) -> int:
    """The client's configuration, with the executable's absolute path (so it works from
    anywhere, without activating the virtual environment)."""
    command = str(Path(sys.executable).parent / ns.server)
    made = config(ns.client, command, ns.server, url=ns.url, key=ns.key, http=ns.http)
    if isinstance(made, str):
        print(made)
        return 0
    return print_json(made)


def config(client: str, command: str, server: str, *, url: str | None = None,
           key: str | None = None, http: str | None = None) -> dict[str, Any] | str:
    """The client's configuration: a JSON object, or for claude-code the command line."""
    if key and not (url or http):
        raise ValueError("--key goes with --url (the service to call) or --http (its /mcp)")
    if url and http:
        raise ValueError("give --url (a local proxy) or --http (the hosted /mcp), not both")
    name = NAMES[server]
    if http:
        return _hosted(client, name, http.rstrip("/"), key)
    env = {k: v for k, v in (("HARMONY_BASE_URL", url), ("SERVICE_API_KEY", key)) if v}
    if client == "claude-code":
        flags = [part for k, v in env.items() for part in ("--env", f"{k}={v}")]
        return shlex.join(["claude", "mcp", "add", *flags, name, "--", command])
    entry: dict[str, Any] = {"command": command}
    if client == "vscode":
        entry = {"type": "stdio", **entry, "args": []}
    if env:
        entry["env"] = env
    return {"servers" if client == "vscode" else "mcpServers": {name: entry}}


def _hosted(client: str, name: str, url: str, key: str | None) -> dict[str, Any] | str:
    endpoint = url if url.endswith("/mcp") else url + "/mcp"
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    if client == "claude-desktop":
        raise ValueError("Claude Desktop's configuration file starts local servers only: use "
                         "--url (harmony-mcp as a proxy to the service) instead of --http")
    if client == "claude-code":
        flags = ["--header", f"Authorization: Bearer {key}"] if key else []
        return shlex.join(["claude", "mcp", "add", "--transport", "http", *flags, name,
                           endpoint])
    entry: dict[str, Any] = {"url": endpoint}
    if client == "vscode":
        entry = {"type": "http", **entry}
    if headers:
        entry["headers"] = headers
    return {"servers" if client == "vscode" else "mcpServers": {name: entry}}
