"""Size filter stage: register the page in its site's index and keep the earlier pages of other
languages whose file size, tag count and paragraph count are close (matchers.size_ratio).

An exact copy of an earlier page of the same language (same tag sequence) is stored but not
registered, so it cannot take its original's translation.
"""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import NotConfigured

from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from matchers.page_index import PageFeatures
from matchers.size_ratio import size_mask, size_scores


class SizeFilterPipeline:
    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.config = runtime.config
        self.stats = runtime.stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> SizeFilterPipeline:
        runtime = BitextRuntime.of(crawler)
        if not runtime.config.enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        return cls(runtime)

    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if not item.eligible or item.features is None or item.lang is None:
            return item
        site = self.runtime.sites[item.site]
        f = item.features
        size_chars = len(item.html or "")
        page = PageFeatures(item.url, item.lang, len(item.body), size_chars, f.n_tags, f.n_paragraphs, f.tokens)
        original = site.index.duplicate_of(page)
        if original is not None:
            item.eligible = False
            item.note = f"duplicate of {original}"
            self.stats.inc_value("bitext/pages/duplicates")
            return item
        item.candidates = site.index.register(page)
        compared = passed = 0
        for cand in item.candidates:
            index = site.index.index(cand.lang)
            scores = size_scores((len(item.body), size_chars, f.n_tags, f.n_paragraphs), index.sizes(cand.rows))
            cand.add_scores(**scores)
            compared += len(cand)
            cand.narrow(
                size_mask(
                    cand.scores,
                    self.config.size_file_tolerance,
                    self.config.size_tags_tolerance,
                    self.config.size_paragraphs_tolerance,
                )
            )
            passed += len(cand)
        item.candidates = [c for c in item.candidates if len(c)]
        self.stats.inc_value("bitext/candidates/compared", compared)
        self.stats.inc_value("bitext/candidates/size", passed)
        return item
