"""A page's outgoing links with what link evidence needs: anchor text and declared language.

Link evidence (pipelines/link_evidence.py, matchers/link_evidence.py) looks at three things a
link can say about its target: ``<link rel="alternate" hreflang>`` and ``<a hreflang>`` name its
language, the anchor text ("Français") or the URL (``/fr/``) of a language switcher does, and two
pages that link to each other are related.
"""

from __future__ import annotations

from urllib.parse import urldefrag, urljoin, urlsplit

import lxml.html

Outlink = tuple[str, str, str]  # (absolute URL without fragment, anchor text, hreflang or "")

_MAX_ANCHOR = 200


def outlinks(html: str, base_url: str, max_links: int = 5000) -> list[Outlink]:
    """``(url, anchor text, hreflang)`` of the page's ``<a href>``, ``<area href>`` and
    ``<link rel=alternate hreflang>``, in document order, http(s) only, first occurrence of each
    (url, hreflang) kept.  Never raises on bad HTML: an unparsable page has no links."""
    if not html or html.isspace():
        return []
    try:
        root = lxml.html.document_fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return []
    base = base_url
    for el in root.iter("base"):
        href = (el.get("href") or "").strip()
        if href:
            base = urljoin(base_url, href)
        break
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
