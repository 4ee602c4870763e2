"""Focused crawling (``scrapy crawl site -a domain=FILE``): each page's relevance to the domain and
its links' priorities, and the best-first frontier that spends a site's page budget on them.

The scores are ILSP-FC's (Papavassiliou et al., sections 3.5-3.6): the page's p and m
(matchers.page.topic_relevance) and each link's s_l (matchers.page.link_relevance), computed from
the page's one parse plus a parse of its markup for the ``<meta>`` fields and the text around
each link (which the parse does not keep), in the crawl process, on focused crawls only.

Why a frontier of our own.  Scrapy's scheduler orders the requests it holds by priority, but a
site's budget (``BITEXT_MAX_PAGES_PER_SITE``) is spent when requests are made: the first N links
found would be the N pages fetched, in whatever order.  With a domain, the spider keeps each site's
links in a :class:`BestFirstFrontier` (best score first, then the shallowest, then the first
found) and hands Scrapy only a few at a time (:data:`WINDOW` beyond those being fetched), so every
request is chosen from all the links found so far.  A link found again from a better place keeps
its best score.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any

from bitext_spider.config import BitextConfig
from bitext_spider.user_errors import UserError
from matchers.page.domain_terms import Domain, DomainFileError, domain_at
from matchers.page.linearize import parse_html
from matchers.page.link_relevance import link_contexts, link_scores, priority
from matchers.page.page_parse import ParsedPage
from matchers.page.topic_relevance import PageLocations, TopicScore, head_fields, score_page

# Requests of a site handed to Scrapy at a time (queued or downloading), beyond which links wait in
# the site's frontier: enough to keep CONCURRENT_REQUESTS_PER_DOMAIN (8) busy.
WINDOW = 16
# Under a page budget, at most one in this many of its pages is in flight: every request in the
# window was picked from the links known when it went out, so a window of 16 would spend half of a
# 32-page budget on what the start page alone suggested.
BUDGET_SHARE_IN_FLIGHT = 8

# The priority of a site's start URLs and of a resumed crawl's frontier: before any link.
START_PRIORITY = 1000


def window_for(budget: int) -> int:
    """Requests of a site in flight at a time, for a page budget (0: no budget)."""
    if not budget:
        return WINDOW
    return max(1, min(WINDOW, budget // BUDGET_SHARE_IN_FLIGHT))


class DomainError(UserError):
    """The domain file cannot be used (missing, unreadable, or without a valid line)."""


def load_domain(config: BitextConfig) -> Domain | None:
    """The crawl's domain (``BITEXT_DOMAIN``), or None for a crawl without one."""
    if not config.domain:
        return None
    try:
        return domain_at(config.domain)
    except DomainFileError as exc:
        raise DomainError(f"{exc}: give -a domain=FILE with WEIGHT:TERM=SUBDOMAIN[>LANG] lines "
                          "(docs/focused_crawl.md)") from exc


def page_locations(parsed: ParsedPage, root: Any) -> PageLocations:
    """The four locations of ILSP-FC's score from the page's parse and its tree."""
    features = parsed.features
    if parsed.paragraphs is not None:
        text = tuple(p.text for p in parsed.paragraphs if not p.boilerplate)
    elif features is not None:
        # No main content (the content stages are off, or the page is not in BITEXT_LANGS):
        # the text blocks less menus and page chrome.
        text = tuple(b for b, chrome in zip(features.blocks, features.block_chrome, strict=False) if not chrome)
    else:
        text = ()
    metadata, keywords = head_fields(root)
    return PageLocations(features.title if features is not None else "", metadata, keywords, text)


@dataclass
class FocusedPage:
    topic: TopicScore
    priorities: dict[str, int] = field(default_factory=dict)  # followed URL -> request priority
    translation_links: int = 0  # links given the translation bonus


def focus_page(domain: Domain, config: BitextConfig, parsed: ParsedPage, url: str,
               ignored_extensions: tuple[str, ...] = ()) -> FocusedPage:
    """The page's relevance and its links' priorities."""
    if parsed.decoded is None:
        return FocusedPage(TopicScore(0.0, 0, False))
    root = parse_html(parsed.decoded.text)
    topic = score_page(domain, parsed.lang, page_locations(parsed, root), config.topic_min_score,
                       config.topic_min_terms)
    contexts = link_contexts(root, url, parsed.decoded.encoding, ignored_extensions)
    scores, translations = link_scores(domain, parsed.lang, url, contexts.values(), topic.p,
                                       len(parsed.follow) or len(contexts), topic.relevant,
                                       config.topic_translation_bonus)
    return FocusedPage(topic, {u: priority(s) for u, s in scores.items()}, len(translations))


@dataclass
class BestFirstFrontier:
    """One site's links waiting to be requested, best first (module docstring)."""

    window: int = WINDOW
    in_flight: int = 0  # requests handed to Scrapy and not yet answered
    _heap: list[tuple[int, int, int, str]] = field(default_factory=list)
    _best: dict[str, int] = field(default_factory=dict)  # URL -> best priority pushed
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)  # URL -> its request's meta (a feed's day)
    _order: itertools.count = field(default_factory=itertools.count)  # type: ignore[type-arg]

    def __len__(self) -> int:
        return len(self._best)

    def push(self, url: str, prio: int, depth: int) -> None:
        best = self._best.get(url)
        if best is not None and best >= prio:
            return
        self._best[url] = prio
        heapq.heappush(self._heap, (-prio, depth, next(self._order), url))

    def pop(self) -> tuple[str, int, int] | None:
        """(url, priority, depth) of the best waiting link, or None."""
        while self._heap:
            neg, depth, _, url = heapq.heappop(self._heap)
            if self._best.get(url) == -neg:
                del self._best[url]
                return url, -neg, depth
        return None

    def room(self) -> int:
        return max(0, self.window - self.in_flight)
