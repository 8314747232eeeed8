"""HTTP: the ASGI/RSGI/WSGI app and its guards (``app``), routes as data and their handlers
(``routes``, ``context``), the gateway policy (CORS, User-Agent), RSGI and WSGI I/O, the OpenAPI
document, the service side of ``/mcp`` (``mcp_gate``) and the settings of ``harmony serve``.
Each name is imported when first used (``engine.faces``): ``harmony`` reads the settings'
names without loading the app (and the MCP tables with it).
"""

from typing import TYPE_CHECKING

from engine.faces import lazy_face

if TYPE_CHECKING:
    from server.http.app import HarmonyApp, build_app, make_app, make_wsgi_app
    from server.http.settings import PROFILES, Settings, env_db_path, env_log_days, parse_origins

__getattr__ = lazy_face(__name__, {
    "server.http.app": ("HarmonyApp", "build_app", "make_app", "make_wsgi_app"),
    "server.http.settings": ("PROFILES", "Settings", "env_db_path", "env_log_days",
                             "parse_origins"),
})

__all__ = ["PROFILES", "HarmonyApp", "Settings", "build_app", "env_db_path", "env_log_days",
           "make_app", "make_wsgi_app", "parse_origins"]
