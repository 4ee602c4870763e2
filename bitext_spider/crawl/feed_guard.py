"""Make a failed feed a failed crawl: Scrapy logs feed errors and still exits with status 0.

Scrapy's FeedExporter writes each scraped item to every feed (``-o``/``-O``, ``FEEDS``) from its
``item_scraped`` handler and stores each feed at close.  An item that cannot be serialized, or a
feed file that cannot be opened, raises in that handler: Scrapy logs the error and goes on, and
the feed silently lacks items.  A storage failure at close is only counted
(``feedexport/failed_count/<storage>``).  ``scrapy crawl`` then exits 0, so a script running
``scrapy crawl ... -O pairs.jsonl && next-step`` goes on with a broken file.

:class:`FeedGuard` counts, per feed, the items its item filter accepts and compares that with the
items the feed's slots held when they closed (``feed_slot_closed``), and reads the storage
failure counters.  A feed that lost items, never closed or could not be stored is logged as an
error and counted under ``bitext/errors/feed``.  The project's ``crawl`` command
(bitext_spider.commands.crawl, named by ``COMMANDS_MODULE``) then exits with status 1.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.extensions.feedexport import FeedExporter

logger = logging.getLogger(__name__)


class FeedGuard:
    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.exporter: FeedExporter | None = None
        self.expected: Counter[str] = Counter()  # feed URI template -> items its filter accepted
        self.written: Counter[str] = Counter()  # ... -> items in its slots when they closed
        self.closed: set[str] = set()  # feed URI templates with at least one slot closed
        self.failures: list[str] = []
        self._checked = False

    @classmethod
    def from_crawler(cls, crawler: Any) -> FeedGuard:
        if not crawler.settings.getdict("FEEDS") and not crawler.settings.get("FEED_URI"):
            # No message: a crawl without feeds is the usual case, not worth Scrapy's warning.
            raise NotConfigured
        guard = cls(crawler)
        crawler.signals.connect(guard.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(guard.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(guard.feed_slot_closed, signal=signals.feed_slot_closed)
        crawler.signals.connect(guard.check, signal=signals.feed_exporter_closed)
        # If the exporter's close failed before it sent feed_exporter_closed.
        crawler.signals.connect(guard.check, signal=signals.engine_stopped)
        return guard

    @staticmethod
    def failed(crawler: Any) -> bool:
        """Whether a feed of ``crawler``'s finished crawl failed."""
        try:
            extensions = crawler.extensions
        except (AttributeError, RuntimeError):  # the crawl never started (Scrapy >= 2.14 raises)
            return False
        if extensions is None:
            return False
        return any(isinstance(ext, FeedGuard) and ext.failures for ext in extensions.middlewares)

    def spider_opened(self, spider: Any = None) -> None:
        self.exporter = self.crawler.get_extension(FeedExporter)

    def item_scraped(self, item: Any, spider: Any = None) -> None:
        if self.exporter is None:
            return
        for uri, item_filter in self.exporter.filters.items():
            if item_filter.accepts(item):
                self.expected[uri] += 1

    def feed_slot_closed(self, slot: Any) -> None:
        self.closed.add(slot.uri_template)
        self.written[slot.uri_template] += slot.itemcount

    def check(self, **_: Any) -> None:
        if self._checked or self.exporter is None:
            return
        self._checked = True
        stats = self.crawler.stats
        for key, n in sorted(stats.get_stats().items()):
            if key.startswith("feedexport/failed_count/") and n:
                self.failures.append(f"{n} feed(s) could not be stored ({key})")
        for uri, options in self.exporter.feeds.items():
            expected, written = self.expected[uri], self.written[uri]
            if written < expected:
                self.failures.append(f"feed {uri}: {expected - written} of {expected} items were not written")
            elif uri not in self.closed and (expected or options.get("store_empty")):
                self.failures.append(f"feed {uri} was not closed")
        for failure in self.failures:
            logger.error("%s; the crawl exits with status 1", failure)
        if self.failures:
            stats.set_value("bitext/errors/feed", len(self.failures))
