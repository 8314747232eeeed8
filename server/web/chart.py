"""The usage chart: an inline SVG drawn here, one bar per UTC day (calls, the errors among them
in a second colour), no script and no chart library. Presentation attributes only (``fill``,
``font-size``), which the pages' Content-Security-Policy allows where a ``style`` would not be.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.web.html import Html, escape, join

WIDTH, HEIGHT = 720, 240
LEFT, RIGHT, TOP, BOTTOM = 48, 8, 12, 28
CALLS_FILL, ERRORS_FILL, INK, GRID = "#1f5fa8", "#b3261e", "#1a1a1a", "#c8c8c8"


def usage_chart(days: Sequence[str], rows: Mapping[str, Mapping[str, int]]) -> Html:
    """``days``: 'YYYY-MM-DD', oldest first; ``rows``: the usage rows by day (calls, errors)."""
    top = max([1, *(int(r["calls"]) for r in rows.values())])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / max(1, len(days))
    base = TOP + plot_h
    parts = [
        f'<line x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}" stroke="{INK}"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{WIDTH - RIGHT}" y2="{TOP}" stroke="{GRID}"/>',
        f'<text x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end" font-size="11" '
        f'fill="{INK}">{top}</text>',
        f'<text x="{LEFT - 6}" y="{base + 4}" text-anchor="end" font-size="11" '
        f'fill="{INK}">0</text>',
    ]
    for i, day in enumerate(days):
        row = rows.get(day, {})
        calls, errors = int(row.get("calls", 0)), int(row.get("errors", 0))
        x = LEFT + i * step + step * 0.15
        w = step * 0.7
        label = escape(f"{day}: {calls} call{'' if calls == 1 else 's'}, "
                       f"{errors} error{'' if errors == 1 else 's'}")
        if calls:
            h = plot_h * calls / top
            eh = plot_h * errors / top
            parts.append(f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{w:.1f}" '
                         f'height="{h:.1f}" fill="{CALLS_FILL}"><title>{label}</title></rect>')
            if errors:
                parts.append(f'<rect x="{x:.1f}" y="{base - eh:.1f}" width="{w:.1f}" '
                             f'height="{eh:.1f}" fill="{ERRORS_FILL}"><title>{label}</title>'
                             '</rect>')
        if i % 5 == 0 or i == len(days) - 1:
            parts.append(f'<text x="{x + w / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle" '
                         f'font-size="11" fill="{INK}">{escape(day[5:])}</text>')
    total = sum(int(r["calls"]) for r in rows.values())
    errors = sum(int(r["errors"]) for r in rows.values())
    desc = escape(f"Calls per day from {days[0]} to {days[-1]}: {total} calls, {errors} "
                  "errors in all; the table below gives each day's figures.") if days else ""
    return Html(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="chart-title '
        f'chart-desc"><title id="chart-title">Calls per day, last 30 days</title>'
        f'<desc id="chart-desc">{desc}</desc>{join(Html(p) for p in parts)}</svg>')
