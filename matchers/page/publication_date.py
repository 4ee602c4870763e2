"""A page's publication day, for comparing only articles published close in time.

Tsvetkov and Wintner, *PCB* (section 3.2.2): translated newspaper articles "are published on the
site in relatively close time intervals", so articles are compared within a time window.  News
sites say when an article was published in one of a few places, read here in this order:

1. metadata: ``<meta property="article:published_time">`` (Open Graph), ``itemprop="datePublished"``,
   ``name`` ``date`` / ``dc.date`` / ``dcterms.date`` / ``dc.date.issued`` / ``pubdate`` /
   ``publish-date``, and ``datePublished`` in JSON-LD;
2. the first ``<time datetime>`` of the page;
3. the URL: ``/2024/03/05/``, ``/2024-03-05``, ``/20240305/``.

The day is a proleptic Gregorian ordinal (``date.toordinal()``) in the date's own time zone; an
article dated late at night in one edition and early the next day in another is one day apart,
which any window absorbs.  Dates outside 1990-2100 are taken for noise.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

_META_PROPERTIES = ("article:published_time", "og:published_time")
_META_NAMES = ("date", "dc.date", "dcterms.date", "dc.date.issued", "dcterms.issued", "pubdate", "publish-date",
               "publishdate", "article.published", "sailthru.date")
_ISO = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})")
_URL_DATE = re.compile(r"(?:^|/)((?:19|20)\d{2})([/-]?)(0[1-9]|1[0-2])\2(0[1-9]|[12]\d|3[01])(?=/|[-_.]|$)")
_FIRST_YEAR, _LAST_YEAR = 1990, 2100


def _day(year: int, month: int, day: int) -> int | None:
    if not _FIRST_YEAR <= year <= _LAST_YEAR:
        return None
    try:
        return date(year, month, day).toordinal()
    except ValueError:
        return None


def parse_day(text: str | None) -> int | None:
    """The day of an ISO 8601 date or date-time, or of an RFC 822 date (RSS ``pubDate``)."""
    if not text:
        return None
    m = _ISO.match(text)
    if m:
        return _day(int(m[1]), int(m[2]), int(m[3]))
    try:
        parsed: datetime = parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError):
        return None
    return _day(parsed.year, parsed.month, parsed.day)


def url_day(url: str) -> int | None:
    """The date a URL's path spells, if any."""
    m = _URL_DATE.search(urlsplit(url).path)
    return _day(int(m[1]), int(m[3]), int(m[4])) if m else None


def _json_ld_day(text: str) -> int | None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            value = node.get("datePublished")
            if isinstance(value, str):
                found = parse_day(value)
                if found is not None:
                    return found
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(node)
    return None


def publication_day(root: Any, url: str) -> int | None:
    """The publication day of the page whose lxml tree is ``root`` (module docstring), or None."""
    if root is not None:
        for el in root.iter("meta"):
            prop = (el.get("property") or "").strip().lower()
            name = (el.get("name") or el.get("itemprop") or "").strip().lower()
            if prop in _META_PROPERTIES or name in _META_NAMES or name == "datepublished":
                found = parse_day(el.get("content"))
                if found is not None:
                    return found
        for el in root.iter("script"):
            if (el.get("type") or "").strip().lower() == "application/ld+json" and el.text:
                found = _json_ld_day(el.text)
                if found is not None:
                    return found
        for el in root.iter("time"):
            found = parse_day(el.get("datetime"))
            if found is not None:
                return found
    return url_day(url)
