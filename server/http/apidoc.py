"""``docs/api.md``: the API written for its users, generated from the one schema table (the
same source as ``/openapi.json``, the validation and the MCP tools), so the page cannot drift
from what the service does. ``python -m server.http.apidoc write`` rewrites it;
``tests/test_apidoc.py`` fails when it is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from server.api import OPERATIONS, STATUS, Operation
from server.http.routes import OAUTH_PROBES

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "api.md"
GOLDEN = REPO / "golden"
ERRORS = {
    "invalid_chord": "a chord symbol does not parse (`symbol`, and `index` in a progression)",
    "invalid_key": "a key does not parse, or is a mode",
    "invalid_request": "the body is not a JSON object (or is sent as another `Content-Type` "
                       "than JSON), or a field is missing, of the wrong type or out of "
                       "bounds (`field`)",
    "unauthorized": "no key, a malformed or an unknown key (`WWW-Authenticate: Bearer`)",
    "key_revoked": "a revoked or rotated-out key",
    "forbidden_origin": "a browser `Origin` outside the allowlist",
    "blocked_user_agent": "the hosted profile refuses a library's default User-Agent",
    "not_found": "no such route",
    "method_not_allowed": "wrong method (`Allow` says which)",
    "payload_too_large": "a body over the route's cap (64 KiB; 1 MiB on render and compose)",
    "rate_limited": "the key's minute limit or the per-IP flood throttle (`Retry-After`)",
    "quota_exceeded": "the month's quota is used up (`Retry-After` until the month turns, UTC)",
    "busy": "every render slot is taken (`Retry-After`)",
    "unavailable": "the store cannot say within its short timeout (a key not in the key cache "
                   "while the database is down: `Retry-After`); cached keys keep working",
    "internal_error": "a bug; no trace leaves the server",
}
NOTES = {
    "render": "With `Accept: audio/wav` (or `audio/flac`, `audio/mpeg`) preferred to JSON, the "
              "answer is the audio itself with the facts in `X-Render-Format`, "
              "`X-Render-Sample-Rate`, `X-Render-Channels`, `X-Render-Duration-Sec`, "
              "`X-Render-Engine`, `X-Render-Soundfont` (when there is one) and "
              "`X-Render-Sha256`. The audio lasts the MIDI plus a 1.5 s tail and peaks at "
              "90 % of full scale. Give one of `prompt`, `arrangement`, `midi`.",
    "compose": "The operations and their arguments: `create` (title, composer, key, tempo, "
               "timeSignature, style, swing, progression `\"A: Dm7 G7 | Cmaj7 || B: ...\"`, "
               "form), `add_section` (id, bars or progression, after, times), `set_chords` "
               "(section, progression or chords), `set_form` (form; tempo, timeSignature, "
               "key, from), `reharmonize` (section, technique, bars), `voice` (sections, "
               "style), `arrange` (style, seed), `add_notes` (section, notes, track, role), "
               "`transpose` (semitones or key), `export` (formats: midi, musicxml, ireal, "
               "chordpro, leadsheet, analysis). A failing operation stops the request with its "
               "error, `operation` its index and `field` e.g. `operations[2].section`; nothing "
               "is applied.",
    "search": "Give at least one of `pattern`, `title`, `similarTo`. A pattern in chord "
              "symbols matches in every key; in numerals, in songs whose key is known; `?` is "
              "any one chord; no match crosses a section. The corpus is the project's own, "
              "and `HARMONY_CORPUS` on the server.",
}
META_ROUTES = (
    ("GET /", "404 `not_found` (as the original service answered), its message pointing to "
              "the routes below and the docs. No key."),
    ("GET /health", "`{\"status\", \"version\", \"grid\"}`. No key."),
    ("GET /openapi.json", "OpenAPI 3.1 of every route, from the same table as this page. No "
                          "key."),
    ("GET /metrics", "Prometheus text: requests, latency, log rows dropped, flood refusals."),
    ("`, `".join(f"{m} {p}" for p, m in OAUTH_PROBES.items()),
     "404 `not_found`: this service takes API keys, not OAuth; the message says how to send "
     "one. These are where an OAuth-capable MCP client looks after a 401 (docs/mcp.md)."),
    ("POST /mcp", "MCP over HTTP (JSON-RPC 2.0, stateless): `initialize`, `ping`, "
                  "`tools/list` need no key; `tools/call` spends the same quota as REST. The "
                  "hosted tools: analyze_chord, resolve_chord, generate_voicing, reharmonize, "
                  "conduct_band, identify_chord."),
    ("GET /account", "The account page (HTML, API.md §15): plan, minute limit, the month's use "
                     "against the quota, the keys with Rotate and Revoke, Create within the "
                     "plan's key cap. A session cookie, never an API key; a sign-in page "
                     "without one."),
    ("GET /account/login", "`?token=` of a one-time link (`harmony accounts login-link NAME`, "
                           "15 minutes): a page whose button signs in; opening it spends "
                           "nothing (a link scanner's prefetch)."),
    ("POST /account/login", "The button's form (the token and a CSRF token tied to the page's "
                            "pre-session cookie): spends the link, starts a session "
                            "(`HttpOnly; SameSite=Strict` cookie, `Secure` when hosted), 303 "
                            "to `/account`."),
    ("GET /account/usage", "The last 30 days per day and per operation (calls, errors, "
                           "p50/p95): an inline SVG chart and tables; the figures of `harmony "
                           "usage --by day|operation`."),
    ("GET /account/style.css", "The pages' one stylesheet."),
    ("POST /account/keys", "A form (with its CSRF token): a new key, its secret shown once in "
                           "the answer (`Cache-Control: no-store`); 409 at the plan's cap."),
    ("POST /account/keys/rotate", "A form: `key_id` replaced, the new secret shown once; 404 "
                                  "for a key that is not the account's."),
    ("POST /account/keys/revoke", "A form: `key_id` revoked, 303 to `/account`; 404 for a key "
                                  "that is not the account's."),
    ("POST /account/logout", "A form: the session ends, 303 to `/account`."),
)


def _type(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_type(s) for s in schema["anyOf"] if s.get("type") != "null")
    kind = schema.get("type", "any")
    kinds = kind if isinstance(kind, list) else [kind]
    names = [k for k in kinds if k != "null"]
    text = " or ".join(names) or "null"
    if "enum" in schema:
        text += " (" + ", ".join(json.dumps(v) for v in schema["enum"] if v is not None) + ")"
    bounds = [f"{k} {schema[k]}" for k in ("minimum", "maximum", "minLength", "maxLength",
                                           "minItems", "maxItems") if k in schema]
    if bounds:
        text += "; " + ", ".join(bounds)
    return text


def _fields(schema: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", ()))
    rows = ["| field | type | required | meaning |", "| --- | --- | --- | --- |"]
    for name, field in schema.get("properties", {}).items():
        meaning = (field.get("description") or "").replace("|", "\\|").replace("\n", " ")
        rows.append(f"| `{name}` | {_type(field).replace('|', '/')} | "
                    f"{'yes' if name in required else 'no'} | {meaning} |")
    return rows


def _example(op: Operation) -> list[str]:
    """A golden request that the service answers (not an error), as a curl a reader can run
    from the repository's folder (tests/test_doc_examples.py runs it): a long body is sent
    from its golden file."""
    requests = sorted((GOLDEN / op.name).glob("*.request.json"))
    good = [r for r in requests if not r.name.startswith("error")
            and "error" not in json.loads(_response(r).read_text())]
    if not good:
        return []
    body = json.dumps(json.loads(good[0].read_text()), ensure_ascii=False)
    data = (f"@golden/{op.name}/{good[0].name}" if len(body) > 400 or "'" in body
            else body)
    return ["", "Example (a golden request; its answer is "
            f"`golden/{op.name}/{_response(good[0]).name}`):", "",
            "```bash", f"curl -s localhost:8000{op.path} -H \"authorization: Bearer $KEY\" \\",
            f"  -H 'content-type: application/json' -d '{data}'", "```"]


def _response(request: Path) -> Path:
    return request.with_name(request.name.replace(".request.", ".response."))


def api_markdown() -> str:
    lines = [
        "# The harmony service's API", "",
        "Generated from the schema table (`server/api/schemas.py`) by `python -m "
        "server.http.apidoc write`; the same table gives `/openapi.json`, validates every "
        "request and declares the MCP tools. Every `/v2` route is `POST`, takes and answers "
        "JSON (orjson, keys in a fixed order: the same request gives the same bytes), and "
        "needs `Authorization: Bearer hk_live_…` (`harmony keys create ACCOUNT`).", "",
        "## Routes", "",
        "| route | what | MCP tool |", "| --- | --- | --- |",
    ]
    lines += [f"| `{r}` | {what} | — |" for r, what in META_ROUTES]
    lines += [f"| `POST {op.path}` | {op.description}"
              f"{' **Unstable.**' if op.unstable else ''} | `{op.tool}`"
              f"{'' if op.hosted_tool else ' (stdio servers)'} |" for op in OPERATIONS.values()]
    lines += ["", "## Errors", "",
              "Body: `{\"error\": {\"code\", \"message\", ...details}}`; the same object is the "
              "`data` of a JSON-RPC error on `/mcp` and the result of a failed MCP tool call.",
              "", "| code | status | when |", "| --- | --- | --- |"]
    lines += [f"| `{code}` | {status} | {ERRORS.get(code, '')} |"
              for code, status in STATUS.items()]
    lines += ["| `audio_unavailable` | (tool only) | `play_audio`/`play_composition` found no "
              "way to play sound here; names the file written and what was tried |"]
    lines += ["", "## Limits", "",
              "- Bodies: 64 KiB; 1 MiB on `/v2/render` and `/v2/compose`.",
              "- A chord symbol: 32 characters; a progression: 256 chords; a prompt: 2,000 "
              "characters; `previous`: 8 notes.",
              "- Render: at most 300 s of audio (the server may allow up to 900 s); a pool of "
              "render processes with a short queue (503 `busy` beyond it).",
              "- Compose: 64 operations a request; 1,024 bars and 200,000 events a "
              "composition.",
              "- Keys: a plan's minute limit and monthly quota (`RateLimit-*` and `X-Quota-*` "
              "headers on every answer to a valid key; 429 with `Retry-After` beyond).", ""]
    for op in OPERATIONS.values():
        lines += [f"## `POST {op.path}` — tool `{op.tool}`", "", op.description
                  + (" Marked unstable (`x-unstable` in OpenAPI): its shape may still change."
                     if op.unstable else ""), "", "Request:", ""]
        lines += _fields(op.request_schema)
        lines += ["", "Answer:", ""]
        lines += _fields(op.result_schema)
        if op.name in NOTES:
            lines += ["", NOTES[op.name]]
        lines += _example(op)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    if argv[1:] == ["write"]:
        PAGE.write_text(api_markdown())
        print(f"wrote {PAGE}")
        return 0
    sys.stdout.write(api_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
