"""Link ranking for a focused crawl: each outgoing link's score from the domain terms around it,
plus a bonus for a link to a likely translation of the page.

Papavassiliou et al., *ILSP-FC* (section 3.6, Link Extractor): "the links should be ranked and the
most promising links (i.e. links that point to "in-domain" web pages or candidate translations)
should be followed first.  To this end, a score s_l is calculated for each link l"::

    s_l = c + p/L + sum_i n_i * w_i

where p is the page's relevance score (matchers.page.topic_relevance), L the number of links of
the page, n_i the occurrences of domain term i in the link's surrounding text and w_i its weight;
"the parameter c ... gets a high positive value if the link under consideration originates from a
web page in L1 and "points" to a web page that is probably in L2", e.g. an anchor "Deutsch".

Read here:

* surrounding text: the anchor text (an image link's ``alt``), the link's ``title``, and the text
  of the block the link is in (its list item, paragraph, table cell, heading), at most
  :data:`CONTEXT_WORDS` words either side of the anchor.  A URL linked several times scores as its
  best link.
* a link to a likely translation (``c``): an ``hreflang`` naming another language, an anchor that
  names another language (a language switcher, matchers.site.link_evidence.language_in_anchor),
  or a URL that is the page's own but for the language code in it (``a.en.html`` -> ``a.de.html``,
  ``/tutorial/`` -> ``/de/tutorial/``).  The bonus is given on relevant pages only: it is there to
  fetch the translations of what the crawl keeps, and a translation of an off-topic page is
  off-topic too.
* p/L, likewise, on relevant pages only: the few terms an off-topic page mentions in passing say
  nothing of where its links lead, and would put every link of a long off-topic page before the
  links of the domain's own listing pages.  An off-topic page's links are still followed, ranked
  by the terms around them alone, after the better ones.

:func:`priority` turns a score into the Scrapy request priority (an integer, larger first) on a
logarithmic scale, so that scores a term weight apart stay apart and the scheduler keeps few
priority queues.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag, urlsplit

from w3lib.html import strip_html5_whitespace

from matchers.page.domain_terms import Domain
from matchers.page.lang_codes import same_language
from matchers.page.outlinks import _base, _follower, _safe_url, urljoin
from matchers.site.link_evidence import language_in_anchor, url_languages

# Words of the block around a link read as its context, on each side of the anchor.
CONTEXT_WORDS = 12
# Priority = round(PRIORITY_SCALE * log2(1 + score)): a score of 100 (one term of weight 100) is
# priority 66, a bonus of 1000 is 100.
PRIORITY_SCALE = 10.0
MAX_PRIORITY = 300

# Elements whose text is a link's surrounding text; a link elsewhere (a bare <div>, <body>) has
# only its anchor and title.
_CONTEXT_BLOCKS = frozenset({"p", "li", "td", "th", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6",
                             "caption", "figcaption", "blockquote", "summary", "label", "option"})
_SPLIT = re.compile(r"[/.?=&_-]+")


@dataclass
class LinkContext:
    """A followed URL as the page links it: each link's surrounding text, and its hreflangs and
    anchors (for the translation test)."""

    url: str
    texts: list[str]
    anchors: list[str]
    hreflangs: list[str]


def link_contexts(root: Any, base_url: str, encoding: str = "utf-8",
                  ignored_extensions: tuple[str, ...] = ()) -> dict[str, LinkContext]:
    """URL -> :class:`LinkContext`, for the URLs :func:`matchers.page.outlinks.follow_links` gives
    (the same resolution and escaping, so the keys are the URLs the spider requests)."""
    out: dict[str, LinkContext] = {}
    if root is None:
        return out
    base = _base(root, base_url)
    followed = _follower(ignored_extensions)
    for el in root.iter("a", "area", "link"):
        href = el.get("href")
        if href is None:
            continue
        hreflang = (el.get("hreflang") or "").strip().lower()
        try:
            if el.tag == "link":
                if not hreflang:
                    continue
                url: str | None = urldefrag(urljoin(base, href.strip()))[0]
            else:
                url = followed(urljoin(base_url, _safe_url(urljoin(base, strip_html5_whitespace(href)), encoding)))
        except ValueError:
            continue
        if url is None:
            continue
        ctx = out.get(url)
        if ctx is None:
            ctx = out[url] = LinkContext(url, [], [], [])
        if hreflang:
            ctx.hreflangs.append(hreflang)
        if el.tag != "link":
            anchor = _anchor(el)
            ctx.anchors.append(anchor)
            ctx.texts.append(_surrounding(el, anchor))
    return out


def _anchor(el: Any) -> str:
    text = " ".join(el.text_content().split())
    if not text:
        text = " ".join(" ".join(img.get("alt", "") for img in el.iter("img")).split())
    return text


def _surrounding(el: Any, anchor: str) -> str:
    title = " ".join((el.get("title") or "").split())
    block = el.getparent()
    while block is not None and block.tag not in _CONTEXT_BLOCKS:
        if block.tag in ("div", "section", "article", "body", "main", "nav", "ul", "ol", "table"):
            block = None
            break
        block = block.getparent()
    around = ""
    if block is not None:
        words = block.text_content().split()
        if len(words) <= 2 * CONTEXT_WORDS + len(anchor.split()):
            around = " ".join(words)
        else:
            around = _window(words, anchor.split())
    parts = [anchor, title] if not around else [around, title]
    return " ".join(p for p in parts if p)


def _window(words: list[str], anchor: list[str]) -> str:
    n = len(anchor)
    start = next((i for i in range(len(words) - n + 1) if words[i:i + n] == anchor), None)
    if start is None or n == 0:
        return " ".join(anchor)
    lo, hi = max(0, start - CONTEXT_WORDS), min(len(words), start + n + CONTEXT_WORDS)
    return " ".join(words[lo:hi])


def _language_free_key(url: str) -> tuple[str, tuple[str, ...]] | None:
    """The URL without its language codes (host, path and query tokens), or None when it has none."""
    codes = {c.lower() for c in url_languages(url)}
    if not codes:
        return None
    parts = urlsplit(url)
    labels = [x for x in (parts.hostname or "").split(".") if x not in codes]
    tokens = [t for t in _SPLIT.split(f"{parts.path}?{parts.query}".lower()) if t and t not in codes]
    return ".".join(labels), tuple(tokens)


def _plain_key(url: str) -> tuple[str, tuple[str, ...]]:
    parts = urlsplit(url)
    return parts.hostname or "", tuple(t for t in _SPLIT.split(f"{parts.path}?{parts.query}".lower()) if t)


def is_translation_link(page_url: str, page_lang: str | None, ctx: LinkContext) -> bool:
    """Whether the link looks like one to a translation of the page (module docstring)."""
    if not page_lang or ctx.url == page_url:
        return False
    for code in ctx.hreflangs:
        if code != "x-default" and not same_language(code, page_lang):
            return True
    for anchor in ctx.anchors:
        named = language_in_anchor(anchor) if anchor and len(anchor) <= 40 else None
        if named and not same_language(named, page_lang):
            return True
    other = _language_free_key(ctx.url)
    if other is None or not any(not same_language(c, page_lang) for c in url_languages(ctx.url)):
        return False
    own = _language_free_key(page_url) or _plain_key(page_url)
    return other == own


def link_scores(domain: Domain, lang: str | None, page_url: str, contexts: Iterable[LinkContext],
                p: float, n_links: int, relevant: bool, bonus: float) -> tuple[dict[str, float], set[str]]:
    """s_l of every link (module docstring), and the links given c (``bonus``) as links to a
    translation; c and p/L count on ``relevant`` pages only."""
    matcher = domain.matcher(lang)
    weights = [t.weight for t in domain.terms]
    share = p / n_links if n_links and relevant else 0.0
    out: dict[str, float] = {}
    translations: set[str] = set()
    for ctx in contexts:
        terms = max((_terms_score(matcher.count(text), weights) for text in ctx.texts), default=0.0)
        score = share + terms
        if relevant and bonus and is_translation_link(page_url, lang, ctx):
            score += bonus
            translations.add(ctx.url)
        out[ctx.url] = score
    return out, translations


def _terms_score(counts: dict[int, int], weights: Sequence[float]) -> float:
    return sum(n * weights[i] for i, n in counts.items())


def priority(score: float) -> int:
    """The Scrapy request priority of a link score (module docstring)."""
    if score <= 0 or score != score:
        return 0
    return min(MAX_PRIORITY, int(round(PRIORITY_SCALE * math.log2(1.0 + score))))
