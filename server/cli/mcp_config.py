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

import shlex
from typing import Any

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode")
NAMES = {"harmony-mcp": "harmony", "harmony-conductor": "conductor",
         "harmony-compose": "compose"}


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
