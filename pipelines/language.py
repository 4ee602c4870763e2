"""Language stage: identify the page's language; only languages of interest go on to matching.

The identification comes from the page-parse worker when there is one (pipelines.page_parse)."""

from __future__ import annotations

from typing import Any

from bitext_spider.items import PageItem
from matchers.page.page_parse import page_language
from pipelines.base import MatchingStage, pages_only


class LanguagePipeline(MatchingStage):
    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        features = item.features
        if item.parsed is not None:
            item.lang, item.lang_score = item.parsed.lang, item.parsed.lang_score
        else:
            item.lang, item.lang_score = page_language(features, self.parse_options, self.runtime.language)
        self.stats.inc_value(f"bitext/pages/lang/{item.lang}")
        item.eligible = self.config.wants(item.lang) and not item.too_large and features is not None
        if not item.eligible:
            self.stats.inc_value("bitext/pages/not_paired")
        return item
