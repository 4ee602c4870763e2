"""Dictionary filter stage (PCB), on when ``BITEXT_DICTIONARY`` names a Bitextor-format file:
each page's candidates of the dictionary's language pair scored as it arrives
(matchers.content.dictionary_judge; Tsvetkov & Wintner, section 3.2.2)."""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import NotConfigured

from bitext_spider.config import BitextConfig
from bitext_spider.items import PageItem
from bitext_spider.resolution import DictionaryConfigError, dictionary_enabled, load_filter
from bitext_spider.runtime import BitextRuntime
from matchers.content.dictionary_judge import DictionaryFilter, judge_candidates
from pipelines.base import MatchingStage, pages_only

__all__ = ["DictionaryConfigError", "DictionaryFilter", "DictionaryFilterPipeline", "load_filter"]


class DictionaryFilterPipeline(MatchingStage):
    """Off (NotConfigured) when ``BITEXT_DICTIONARY`` is unset; listed in ITEM_PIPELINES by
    default, so naming a dictionary is all a user does."""

    @classmethod
    def from_crawler(cls, crawler: Any) -> DictionaryFilterPipeline:
        if not dictionary_enabled(BitextConfig.from_crawler(crawler)):
            raise NotConfigured("BITEXT_DICTIONARY is not set")
        return super().from_crawler(crawler)

    def __init__(self, runtime: BitextRuntime) -> None:
        super().__init__(runtime)
        # The resolver's filter (loaded from the settings; its close step judges what came later).
        self.filter: DictionaryFilter | None = runtime.resolver.dictionary

    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if self.filter is None or item.content is None or not item.candidates or item.lang is None:
            return item
        index = self.runtime.site(item.site).index
        checked, rejected = judge_candidates(self.filter, item.lang, item.content, item.candidates, index,
                                             self.config.content_rescue_min_share)
        self.stats.inc_value("bitext/dictionary/checked", checked)
        self.stats.inc_value("bitext/dictionary/rejected", rejected)
        item.candidates = [c for c in item.candidates if len(c)]
        self.stats.inc_value("bitext/candidates/dictionary", sum(len(c) for c in item.candidates))
        return item
