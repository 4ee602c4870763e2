"""Pair items into the item flow, page items out of it (bitext_spider.crawl.pair_flow).

``PairPipeline`` (after the decision stage, before the store) sends the provisional pairs of each
new page as :class:`~bitext_spider.items.PairItem` items.  ``PageSinkPipeline`` (last) takes page
items out of the flow once the store stage has handed them to the database: a page item holds the
body's bytes and is not a product of the crawl, so it must not reach ``item_scraped`` and the
feeds, which then hold the pairs and a user's own items only.  It drops them with
:class:`PageStored`, at DEBUG level, so Scrapy counts them as
``item_dropped_reasons_count/PageStored``, apart from items dropped for a fault.
"""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import DropItem, NotConfigured

from bitext_spider.config import BitextConfig
from bitext_spider.crawl.pair_flow import ProvisionalPairs, send_pair
from bitext_spider.items import PageItem
from bitext_spider.resolution import decision_enabled
from bitext_spider.runtime import BitextRuntime
from pipelines.base import MatchingStage, pages_only


class PageStored(DropItem):
    """A page item leaves the item flow: it is in the database (or on its way there)."""


class PairPipeline(MatchingStage):
    def __init__(self, runtime: BitextRuntime, crawler: Any) -> None:
        super().__init__(runtime)
        self.crawler = crawler
        self.pairs = ProvisionalPairs(decision_enabled(self.config), self.config.content_required)

    @classmethod
    def from_crawler(cls, crawler: Any) -> PairPipeline:
        # Checked before the runtime exists: a crawl with bitext off opens no database.
        config = BitextConfig.from_crawler(crawler)
        if not config.enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        if not config.provisional_pairs:
            raise NotConfigured("BITEXT_PROVISIONAL_PAIRS is off")
        return cls(BitextRuntime.of(crawler), crawler)

    @pages_only
    async def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if not item.eligible or item.lang is None or not item.candidates:
            return item
        index = self.runtime.site(item.site).index
        found = self.pairs.offer(item.site, item.url, item.lang, item.candidates, lambda lang: index.index(lang).urls)
        for pair in found:
            self.stats.inc_value("bitext/pairs/provisional")
            await send_pair(self.crawler, pair)
        return item


class PageSinkPipeline:
    """Drops page items quietly at the end of the chain; every other item passes."""

    @classmethod
    def from_crawler(cls, crawler: Any) -> PageSinkPipeline:
        if not crawler.settings.getbool("BITEXT_ENABLED", True):
            raise NotConfigured("BITEXT_ENABLED is off")
        return cls()

    def process_item(self, item: Any, spider: Any = None) -> Any:
        if isinstance(item, PageItem):
            raise PageStored("page stored", log_level="DEBUG")
        return item
