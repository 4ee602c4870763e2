"""Dictionary filter stage (PCB), on when ``BITEXT_DICTIONARY`` names a Bitextor-format file:
each page's candidates of the dictionary's language pair scored as it arrives
(bitext_spider.site_steps.dictionary; Tsvetkov & Wintner, section 3.2.2)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scrapy.exceptions import NotConfigured

from bitext_spider.config import BitextConfig
from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from bitext_spider.site_steps.dictionary import DictionaryConfigError, DictionaryFilter, load_filter
from pipelines.base import MatchingStage, pages_only

__all__ = ["DictionaryConfigError", "DictionaryFilter", "DictionaryFilterPipeline", "load_filter"]


class DictionaryFilterPipeline(MatchingStage):
    """Off (NotConfigured) when ``BITEXT_DICTIONARY`` is unset; listed in ITEM_PIPELINES by
    default, so naming a dictionary is all a user does."""

    @classmethod
    def from_crawler(cls, crawler: Any) -> DictionaryFilterPipeline:
        if not BitextConfig.from_crawler(crawler).dictionary:
            raise NotConfigured("BITEXT_DICTIONARY is not set")
        return super().from_crawler(crawler)

    def __init__(self, runtime: BitextRuntime) -> None:
        super().__init__(runtime)
        self.filter: DictionaryFilter | None = None
        if not self.config.dictionary:
            return
        self.filter = load_filter(self.config)
        runtime.resolver.dictionary = self.filter

    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if self.filter is None or item.content is None or not item.candidates or item.lang is None:
            return item
        index = self.runtime.site(item.site).index
        for cand in item.candidates:
            if not self.filter.covers(item.lang, cand.lang):
                continue
            contents = index.index(cand.lang).content
            own = np.full(len(cand), np.nan)
            other = np.full(len(cand), np.nan)
            keep = np.ones(len(cand), dtype=bool)
            for k, row in enumerate(cand.rows.tolist()):
                them = contents[row]
                if them is None:
                    continue
                s = self.filter.scores(item.content, them)
                own[k], other[k] = s
                keep[k] = self.filter.accept(item.content, s)
            cand.add_scores(**{f"dictionary_{item.lang}": own, f"dictionary_{cand.lang}": other})
            self.stats.inc_value("bitext/dictionary/checked", len(cand))
            self.stats.inc_value("bitext/dictionary/rejected", int((~keep).sum()))
            cand.narrow(keep)
        item.candidates = [c for c in item.candidates if len(c)]
        self.stats.inc_value("bitext/candidates/dictionary", sum(len(c) for c in item.candidates))
        return item
