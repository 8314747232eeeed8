"""Browser and client policy at the edge: the CORS allowlist and the User-Agent policy.

CORS: a request with an ``Origin`` outside the allowlist is refused with 403
``forbidden_origin`` (the browser would hide the answer anyway; refusing saves the work and
the quota). A preflight from an allowed origin gets a real answer: the route's methods, the
headers a client sends, and a max-age.

User-Agent policy (hosted profile): the default User-Agents of scripting libraries get 403
``blocked_user_agent``, so that callers identify their integration; so does a request with no
User-Agent at all (or a blank one), which identifies nothing either, as a real gateway would.
/health and /metrics are exempt, because monitors use exactly those libraries; the account page
is not. A page's own form posts with its own origin (or ``null`` under its no-referrer
policy, from the same origin as fetch metadata says), which passes whatever the allowlist; the
page's CSRF token and SameSite cookie are what protect it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.errors import BlockedUserAgent, ForbiddenOrigin
from server.api import Headers

BLOCKED_PRODUCTS = frozenset({"python-requests", "python-urllib", "python-httpx", "aiohttp",
                              "go-http-client", "node-fetch", "axios", "curl"})
ALLOWED_REQUEST_HEADERS = "authorization, content-type, mcp-protocol-version, mcp-session-id"
EXPOSED_HEADERS = ("x-quota-limit, x-quota-used, ratelimit-limit, ratelimit-remaining, "
                   "ratelimit-reset, retry-after, www-authenticate")
PREFLIGHT_MAX_AGE = "600"
LOOPBACK_ORIGIN = re.compile(r"https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?")


class Gateway:
    def __init__(self, origins: tuple[str, ...], user_agent_policy: bool,
                 allow_loopback: bool = False) -> None:
        self.any_origin = "*" in origins
        self.origins = frozenset(o.rstrip("/").lower() for o in origins if o != "*")
        self.user_agent_policy = user_agent_policy
        # Local profile: pages on this machine (an MCP inspector on localhost) may call; a
        # rebinding page keeps its own host name in Origin and is still refused.
        self.allow_loopback = allow_loopback

    def check_origin(self, origin: str | None) -> None:
        if origin is not None and not self.origin_allowed(origin):
            raise ForbiddenOrigin(f"origin {origin!r} is not allowed to call this service")

    def origin_allowed(self, origin: str) -> bool:
        origin = origin.rstrip("/").lower()
        return self.any_origin or origin in self.origins or \
            (self.allow_loopback and LOOPBACK_ORIGIN.fullmatch(origin) is not None)

    @staticmethod
    def own_page(origin: str | None, host: str | None, fetch_site: str | None) -> bool:
        """A request from the account page's own forms: an ``Origin`` naming the host the
        request was sent to, or ``Origin: null`` (what a browser sends from a page whose
        ``Referrer-Policy`` is ``no-referrer``, as the account page's is) with the browser's
        own ``Sec-Fetch-Site: same-origin``, which no page can forge."""
        if origin == "null":
            return fetch_site == "same-origin"
        if origin is None or host is None:
            return False
        _, sep, rest = origin.partition("://")
        return bool(sep) and rest.rstrip("/").lower() == host.strip().lower()

    def preflight_headers(self, origin: str, methods: frozenset[str]) -> Headers:
        allow = ", ".join(sorted(methods | {"OPTIONS"}))
        return [*self.cors_headers(origin),
                ("access-control-allow-methods", allow),
                ("access-control-allow-headers", ALLOWED_REQUEST_HEADERS),
                ("access-control-max-age", PREFLIGHT_MAX_AGE)]

    @staticmethod
    def cors_headers(origin: str | None) -> Headers:
        if origin is None:
            return []
        return [("access-control-allow-origin", origin),
                ("access-control-expose-headers", EXPOSED_HEADERS),
                ("vary", "Origin")]

    def check_user_agent(self, user_agent: str | None) -> None:
        if self.user_agent_policy and (not user_agent or not user_agent.strip()
                                       or is_library_default(user_agent)):
            raise BlockedUserAgent("requests without a User-Agent or with a scripting "
                                   "library's default one are refused: send a User-Agent "
                                   "naming your application")


@lru_cache(maxsize=1024)  # a client sends the same User-Agent each time; splitting it costs
def is_library_default(user_agent: str) -> bool:
    """True when any product token is a library default ('Python/3.12 aiohttp/3.9')."""
    return any(token.split("/", 1)[0].lower() in BLOCKED_PRODUCTS
               for token in user_agent.split())
