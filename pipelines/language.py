"""Language stage: identify the page's language; only languages of interest go on to matching.

The identification comes from the page's one parse (pipelines.page_parse)."""

from __future__ import annotations

from typing import Any

from bitext_spider.items import PageItem
from pipelines.base import MatchingStage, pages_only


class LanguagePipeline(MatchingStage):
    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        features = item.features
        parsed = self.parsed(item)
        item.lang, item.lang_score = parsed.lang, parsed.lang_score
        self.stats.inc_value(f"bitext/pages/lang/{item.lang}")
        item.eligible = self.config.wants(item.lang) and not item.too_large and features is not None
        if not item.eligible:
            self.stats.inc_value("bitext/pages/not_paired")
        return item
