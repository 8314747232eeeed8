"""The guards every HTTP request meets, in order (``Guards.guard``): the flood throttle,
the route, CORS, the User-Agent policy, the declared body size, the content type, the key and
the limits. Each refuses by raising its error; a response (a CORS preflight's) ends the call
early. ``HarmonyApp`` (server.http.app) holds the state they read."""

from __future__ import annotations

from engine.errors import InvalidRequest, MethodNotAllowed, NotFound, PayloadTooLarge, RateLimited
from server.accounts import Admission, Authenticator, FloodThrottle, Limiter, Metrics
from server.api import Response, size_text
from server.http.context import Context, Route
from server.http.gateway import Gateway
from server.http.settings import Settings

WITH_BODY = frozenset({"POST", "PUT", "PATCH"})  # a GET's body, if any, is never read
JSON_TYPE = "application/json"


class Guards:
    """The guard chain of ``HarmonyApp`` (its state declared here for the type checker)."""

    settings: Settings
    flood: FloodThrottle
    metrics: Metrics
    routes: dict[str, Route]
    gateway: Gateway
    auth: Authenticator
    limiter: Limiter

    def guard(self, ctx: Context) -> Response | None:
        """The guards, in the order every request meets them; each refuses by raising its
        error, and a response (a CORS preflight's) ends the call early. Written as one chain:
        the loop over a tuple of bound methods it replaces cost ~1,400 instructions a call."""
        return (self._flood_guard(ctx) or self._route_guard(ctx) or self._cors_guard(ctx)
                or self._user_agent_guard(ctx) or self._size_guard(ctx)
                or self._type_guard(ctx) or self._key_guard(ctx) or self._limit_guard(ctx))

    def _flood_guard(self, ctx: Context) -> Response | None:
        try:
            self.flood.check(ctx.client)  # as ``throttle`` does (a call less a request)
        except RateLimited:
            ctx.flooded = True
            self.metrics.flood_refusals.inc()
            raise
        return None

    def throttle(self, client: str) -> None:
        """Count one request of ``client`` against the flood throttle (each HTTP request, and
        each message of a JSON-RPC batch after the first); a refusal raises its 429 and is
        counted in the metrics, the only trace it leaves."""
        try:
            self.flood.check(client)
        except RateLimited:
            self.metrics.flood_refusals.inc()
            raise

    def _route_guard(self, ctx: Context) -> Response | None:
        route = self.routes.get(ctx.path)
        if route is None:
            raise NotFound(f"no route {ctx.path}")
        ctx.route = route
        if ctx.method not in route.methods and not _is_preflight(ctx):
            ctx.extra_headers = (("allow", ", ".join(sorted(route.methods))),)
            raise MethodNotAllowed(f"{ctx.method} is not allowed on {ctx.path}")
        return None

    def _cors_guard(self, ctx: Context) -> Response | None:
        origin = ctx.headers.get("origin")
        if origin is None:  # not a browser's cross-origin call: nothing to check or answer
            return None
        if ctx.route is not None and ctx.route.page and self.gateway.own_page(
                origin, ctx.headers.get("host"), ctx.headers.get("sec-fetch-site")):
            return None  # a page's own form: not a cross-origin request
        self.gateway.check_origin(origin)
        if _is_preflight(ctx):
            assert ctx.route is not None
            return Response(204, b"", self.gateway.preflight_headers(origin, ctx.route.methods),
                            content_type="text/plain")
        return None

    def _user_agent_guard(self, ctx: Context) -> Response | None:
        if ctx.route is not None and (ctx.route.surface is not None or ctx.route.page):
            self.gateway.check_user_agent(ctx.headers.get("user-agent"))
        return None

    def _size_guard(self, ctx: Context) -> Response | None:
        # A declared size is refused before one byte of the body is read. One within the
        # service's cap (64 KiB: what any caller may send before its key is checked) starts
        # being read now, while the key and limits are checked (``rsgi.Body``).
        length = ctx.headers.get("content-length")
        if length is not None and length.isdigit():
            # the route's cap: the route guard, before this one, found it or refused the call
            size, cap = int(length), ctx.route.max_body if ctx.route else self.settings.max_body
            if size > cap:
                raise PayloadTooLarge(f"the body is over {size_text(cap)}")
            if size <= self.settings.max_body and ctx.method in WITH_BODY:
                ctx.reader.start()
        return None

    def _declared_within(self, ctx: Context) -> bool:
        """The request declared a body the size guard started reading (within the service's
        cap)."""
        length = ctx.headers.get("content-length")
        return length is not None and length.isdigit() and int(length) <= self.settings.max_body

    def _type_guard(self, ctx: Context) -> Response | None:
        # A POST to /v2 or /mcp is JSON: a body declared as anything else (a form, text: what a
        # browser may send another site without a preflight) is refused unread. No
        # Content-Type at all is taken as JSON.
        content_type = ctx.headers.get("content-type")
        if content_type is None or content_type == JSON_TYPE or ctx.route is None \
                or ctx.route.surface is None or _is_json(content_type):
            return None
        raise InvalidRequest(f"Content-Type {content_type[:60]!r} is not JSON: send the body "
                             f"with Content-Type: {JSON_TYPE}", field="Content-Type")

    def _key_guard(self, ctx: Context) -> Response | None:
        if ctx.route is not None and ctx.route.needs_key and self.settings.auth:
            ctx.key = self.auth.authenticate(ctx.headers.get("authorization"))
        return None

    def _limit_guard(self, ctx: Context) -> Response | None:
        if ctx.key is not None:
            admission = self.limiter.admit_soon(ctx.key) if ctx.on_loop \
                else self.limiter.admit(ctx.key)
            if not isinstance(admission, Admission):
                ctx.pending = admission    # ``_respond`` awaits it
                return None
            ctx.admission = admission
            if admission.error is not None:
                raise admission.error
        return None


def _is_json(content_type: str) -> bool:
    """application/json or a +json type, with any parameters (charset)."""
    media = content_type.partition(";")[0].strip().lower()
    return media == JSON_TYPE or (media.startswith("application/") and media.endswith("+json"))


def _is_preflight(ctx: Context) -> bool:
    return (ctx.method == "OPTIONS" and "origin" in ctx.headers
            and "access-control-request-method" in ctx.headers)
