"""A page's outgoing links with what link evidence needs: anchor text and declared language.

Link evidence (pipelines/link_evidence.py, matchers/site/link_evidence.py) looks at three things a
link can say about its target: ``<link rel="alternate" hreflang>`` and ``<a hreflang>`` name its
language, the anchor text ("Français") or the URL (``/fr/``) of a language switcher does, and two
pages that link to each other are related.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from urllib.parse import urldefrag, urlsplit
from urllib.parse import urljoin as _plain_urljoin

from w3lib.html import strip_html5_whitespace
from w3lib.url import safe_url_string

from matchers.page.linearize import parse_html

Outlink = tuple[str, str, str]  # (absolute URL without fragment, anchor text, hreflang or "")

_MAX_ANCHOR = 200
_FOLLOW_SCHEMES = ("http", "https", "file", "ftp")


# Pages of a site link to the same URLs (menus, language switchers), and the link steps join and
# escape each href more than once: the URL functions are memoized (pure functions of strings).
urljoin = functools.lru_cache(maxsize=1 << 15)(_plain_urljoin)
_safe_url = functools.lru_cache(maxsize=1 << 15)(safe_url_string)


@functools.lru_cache(maxsize=8)
def _follower(ignored_extensions: tuple[str, ...]) -> Callable[[str], str | None]:
    """A memoized ``url -> url without its fragment if a crawler follows it (scheme, not a file),
    else None`` (one per extension list: the list is hashed once a page, not once a link)."""
    not_pages = tuple("." + ext for ext in ignored_extensions)

    @functools.lru_cache(maxsize=1 << 15)
    def followed(url: str) -> str | None:
        parts = urlsplit(url)
        if parts.scheme not in _FOLLOW_SCHEMES or parts.path.lower().endswith(not_pages):
            return None
        return urldefrag(url)[0]

    return followed


def _root(html: str | Any) -> Any:
    """A parsed page: ``html`` itself when it is already a tree (one parse for every step)."""
    return parse_html(html) if isinstance(html, str) else html


def _base(root: Any, base_url: str) -> str:
    for el in root.iter("base"):
        href = (el.get("href") or "").strip()
        if href:
            return urljoin(base_url, href)
        break
    return base_url


def outlinks(html: str | Any, base_url: str, max_links: int = 5000) -> list[Outlink]:
    """``(url, anchor text, hreflang)`` of the page's ``<a href>``, ``<area href>`` and
    ``<link rel=alternate hreflang>``, in document order, http(s) only, first occurrence of each
    (url, hreflang) kept.  ``html`` is the page source or its tree (matchers.page.linearize.parse_html).
    Never raises on bad HTML: an unparsable page has no links."""
    root = _root(html)
    if root is None:
        return []
    base = _base(root, base_url)
    seen: set[tuple[str, str]] = set()
    out: list[Outlink] = []
    for el in root.iter("a", "area", "link"):
        href = (el.get("href") or "").strip()
        if not href:
            continue
        hreflang = (el.get("hreflang") or "").strip().lower()
        if el.tag == "link" and not hreflang:
            continue
        url = urldefrag(urljoin(base, href))[0]
        if urlsplit(url).scheme not in ("http", "https"):
            continue
        key = (url, hreflang)
        if key in seen:
            continue
        seen.add(key)
        text = "" if el.tag == "link" else " ".join(el.text_content().split())[:_MAX_ANCHOR]
        if not text and el.tag == "a":
            # An image link: its alt text is the anchor ("English" flags).
            text = " ".join(" ".join(img.get("alt", "") for img in el.iter("img")).split())[:_MAX_ANCHOR]
        out.append((url, text, hreflang))
        if len(out) >= max_links:
            break
    return out


def canonical_link(html: str | Any, base_url: str) -> str | None:
    """The page's ``<link rel="canonical" href>``, resolved, when it names another URL (an http(s)
    one): a print version, an AMP copy or a page reachable at several URLs says which URL is the
    page itself."""
    root = _root(html)
    if root is None:
        return None
    for el in root.iter("link"):
        if "canonical" in (el.get("rel") or "").lower().split() and (el.get("href") or "").strip():
            url = urldefrag(urljoin(_base(root, base_url), el.get("href").strip()))[0]
            if urlsplit(url).scheme in ("http", "https") and url != base_url:
                return url
            return None
    return None


def follow_links(
    html: str | Any, base_url: str, encoding: str = "utf-8", ignored_extensions: tuple[str, ...] = ()
) -> list[str]:
    """The URLs a crawler follows from the page, in document order, each once, without fragment.

    What Scrapy's ``LinkExtractor(tags=("a", "area"), attrs=("href",), unique=True)`` returns
    (resolved against ``<base href>``, percent-escaped as ``encoding`` says, http/https/file/ftp
    only, no links to files with an extension in ``ignored_extensions``: the crawl passes Scrapy's
    ``IGNORED_EXTENSIONS``, bitext_spider.config.scrapy_ignored_extensions), then the ``href`` of
    ``<link hreflang>``, RSS/Atom ``<link>`` and ``<link rel=sitemap>``.  It works on the tree the
    other page steps use, so a page is parsed once, in the page-parse worker when there is one.
    """
    root = _root(html)
    if root is None:
        return []
    base = _base(root, base_url)
    followed = _follower(ignored_extensions)
    urls: dict[str, None] = {}
    for el in root.iter("a", "area"):
        href = el.get("href")
        if href is None:
            continue
        try:
            url = followed(urljoin(base_url, _safe_url(urljoin(base, strip_html5_whitespace(href)), encoding)))
        except ValueError:  # an invalid IPv6 host and the like
            continue
        if url is not None:
            urls[url] = None
    for el in root.iter("link"):
        href = el.get("href")
        kind = el.get("type") or ""
        if href is None or not (
            el.get("hreflang") is not None or "rss" in kind or "atom" in kind or el.get("rel") == "sitemap"
        ):
            continue
        try:
            urls[urldefrag(urljoin(base, href.strip()))[0]] = None
        except ValueError:
            continue
    return list(urls)
