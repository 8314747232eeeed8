"""The account page (API.md section 15): server-rendered HTML for a user signed in by a
one-time link: the plan, the month's use and the keys (create, rotate, revoke), and the last 30
days of usage as an inline SVG chart and tables. Templates, the chart, cookies, CSRF and the
page headers live here; the HTTP app routes ``PAGE_ROUTES`` to ``AccountPages.answer``."""

from server.web.pages import PAGE_ROUTES, AccountPages
from server.web.request import PageRequest

__all__ = ["PAGE_ROUTES", "AccountPages", "PageRequest"]
