"""Crawling a site again on the same database: what is fetched again, and what is left alone.

Tsvetkov and Wintner, *PCB* (section 3.1): a news site is crawled "several times a day to harvest
all fresh articles".  A second run on the same database (``scrapy crawl site -a seeds=... `` with
the same ``BITEXT_DB_URL``) resumes every site from its stored pages; those are never fetched
again, so without this a site's new articles would be found only through the links of new pages.
On a repeated run:

* feeds and sitemaps (the frontier's XML-looking URLs: ``.xml``, ``.rss``, ``.atom``, ``/feed``,
  ``/rss``) are requested first: they list what is new;
* the site's *listing pages* are requested again, conditionally (``If-None-Match`` with the stored
  ``ETag``, ``If-Modified-Since`` with the stored ``Last-Modified``): the seeds' start URLs and
  every stored page without a publication date that links to at least two stored pages with one
  (a front page, an archive page, a section).  A ``304 Not Modified`` costs nothing more; a
  changed listing's links are followed (the listing itself is not stored again);
* known articles are not requested again, unless ``-a refresh=all`` (every stored page, again
  conditionally) or ``-a refresh=REGEX`` (the stored pages whose URL matches) asks for it; their
  links are followed, their stored text kept;
* ``-a since=YYYY-MM-DD`` leaves out articles published before that day: links whose URL spells
  an earlier date are not requested, and a page whose publication date (matchers.page
  .publication_date) is earlier is neither stored nor followed.  Pages without a date (listings)
  are crawled as usual.

New articles are then paired against the stored ones as they arrive, within the date window
(``BITEXT_CONTENT_DATE_WINDOW``); earlier pairs stay unless the final resolution finds better.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from urllib.parse import urlsplit

from bitext_spider.user_errors import UserError

# Listing pages link to this many dated pages at least.
MIN_DATED_LINKS = 2
_FEED_PATH = re.compile(r"(\.(xml|rss|atom|rdf)(\.gz)?$)|(/(feed|feeds|rss|atom)(/|$))", re.IGNORECASE)


class RecrawlError(UserError):
    """A ``since`` or ``refresh`` spider argument that cannot be read."""


def parse_since(text: str | None) -> int | None:
    """``-a since=YYYY-MM-DD`` as a day ordinal (None when not given)."""
    if not text:
        return None
    try:
        return date.fromisoformat(text.strip()).toordinal()
    except ValueError:
        raise RecrawlError(f"since={text!r} is not a date: give YYYY-MM-DD, e.g. -a since=2024-03-01") from None


def parse_refresh(text: str | None) -> re.Pattern[str] | None:
    """``-a refresh=all`` or ``-a refresh=REGEX`` (matched anywhere in the URL)."""
    if not text:
        return None
    if text.strip().lower() == "all":
        return re.compile("")
    try:
        return re.compile(text)
    except re.error as exc:
        raise RecrawlError(f"refresh={text!r} is not a regular expression: {exc}") from None


def looks_like_feed(url: str) -> bool:
    return bool(_FEED_PATH.search(urlsplit(url).path))


@dataclass
class StoredValidators:
    """What a stored page needs for a conditional request and for the listing test."""

    url: str
    links: list[str]
    published: int | None
    etag: str = ""
    last_modified: str = ""


@dataclass
class RecrawlPlan:
    """The stored pages a repeated run requests again, with their validators."""

    revalidate: dict[str, tuple[str, str]] = field(default_factory=dict)  # url -> (etag, last_modified)

    @classmethod
    def of(cls, pages: Iterable[StoredValidators], start_urls: Iterable[str],
           refresh: re.Pattern[str] | None = None) -> RecrawlPlan:
        pages = list(pages)
        dated = {p.url for p in pages if p.published is not None}
        starts = set(start_urls)
        plan = cls()
        for p in pages:
            listing = p.published is None and sum(1 for u in set(p.links) if u in dated) >= MIN_DATED_LINKS
            if p.url in starts or listing or (refresh is not None and refresh.search(p.url)):
                plan.revalidate[p.url] = (p.etag, p.last_modified)
        return plan


def conditional_headers(etag: str, last_modified: str) -> dict[str, str]:
    headers = {}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    return headers
