"""The overview's timeline as a small inline SVG: cumulative pages and pairs over the crawl's time.

Drawn here rather than by the plotting module so the overview needs nothing but the standard
library; the markup is built from numbers and escaped labels only.
"""

from __future__ import annotations

import time
from html import escape

from bitext_spider.viewer.overview import Timeline

WIDTH, HEIGHT = 640, 220
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 16, 16, 36
SERIES = (("pages", "#3b6ea8"), ("pairs", "#c0562b"))


def _ticks(top: int) -> list[int]:
    if top <= 0:
        return [0]
    step = 1
    while top / step > 5:
        for m in (2, 5, 10):
            if top / (step * m) <= 5:
                step *= m
                break
        else:
            step *= 10
    return list(range(0, top + 1, step))


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def timeline_svg(t: Timeline) -> str:
    if not t.times:
        return ""
    top = max(max(t.pages), max(t.pairs), 1)
    ticks = _ticks(top)
    top = max(top, ticks[-1])
    span = t.times[-1] - t.times[0]
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def x(i: int) -> float:
        return _LEFT + (plot_w * (t.times[i] - t.times[0]) / span if span else plot_w / 2)

    def y(v: int) -> float:
        return _TOP + plot_h * (1 - v / top)

    parts = [f'<svg class="timeline" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
             f'aria-label="pages and pairs over the crawl">']
    for v in ticks:
        parts.append(f'<line x1="{_LEFT}" x2="{WIDTH - _RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>'
                     f'<text x="{_LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    start = time.strftime("%Y-%m-%d %H:%M", time.gmtime(t.times[0]))
    parts.append(f'<text x="{_LEFT}" y="{HEIGHT - 12}">{escape(start)} UTC</text>'
                 f'<text x="{WIDTH - _RIGHT}" y="{HEIGHT - 12}" text-anchor="end">+{_duration(span)}</text>')
    for (_name, color), values in zip(SERIES, (t.pages, t.pairs), strict=True):
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
    for k, (name, color) in enumerate(SERIES):
        lx = _LEFT + 12 + k * 90
        parts.append(f'<rect x="{lx}" y="{_TOP + 4}" width="12" height="3" fill="{color}"/>'
                     f'<text x="{lx + 16}" y="{_TOP + 9}">{name}</text>')
    parts.append("</svg>")
    return "".join(parts)
