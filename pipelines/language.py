"""Language stage: identify the page's language; only languages of interest go on to matching."""

from __future__ import annotations

from typing import Any

from bitext_spider.items import PageItem
from matchers.language_id import UNDETERMINED
from pipelines.base import MatchingStage


class LanguagePipeline(MatchingStage):

    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        features = item.features
        if features is None or features.n_words < self.config.lang_min_words:
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
