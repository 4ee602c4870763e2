"""Language stage: identify the page's language; only languages of interest go on to matching."""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import NotConfigured

from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from matchers.language_id import UNDETERMINED


class LanguagePipeline:
    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.config = runtime.config
        self.stats = runtime.stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> LanguagePipeline:
        runtime = BitextRuntime.of(crawler)
        if not runtime.config.enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        return cls(runtime)

    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        features = item.features
        words = int(features.tokens[features.tokens > 0].sum()) if features is not None else 0
        if features is None or words < self.config.lang_min_words:
            item.lang, item.lang_score = UNDETERMINED, 0.0
        else:
            item.lang, item.lang_score = self.runtime.language.identify(
                features.text, self.config.lang_min_confidence
            )
        self.stats.inc_value(f"bitext/pages/lang/{item.lang}")
        item.eligible = self.config.wants(item.lang) and not item.too_large and features is not None
        if not item.eligible:
            self.stats.inc_value("bitext/pages/not_paired")
        return item
