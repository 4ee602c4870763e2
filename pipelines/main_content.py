"""Main-content stage: the page's content paragraphs (boilerplate out, types kept, language per
paragraph), split into sentences and word tokens for the content filters (matchers.main_content,
matchers.page_content).

Papavassiliou et al., *ILSP-FC*, sections 3.3-3.4.  A paragraph of at least ``_MIN_LID_WORDS``
words gets its own language; shorter ones are too short to identify and take the page's.
"""

from __future__ import annotations

from typing import Any

from bitext_spider.items import PageItem
from matchers.linearize import word_count
from matchers.main_content import extract_paragraphs
from matchers.page_content import StoredParagraph, page_content
from pipelines.base import MatchingStage

_MIN_LID_WORDS = 6


class MainContentPipeline(MatchingStage):

    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if not item.eligible or item.html is None or item.lang is None:
            return item
        if not (self.config.content_enabled or self.config.dictionary):
            return item
        site = self.runtime.sites[item.site]
        paragraphs = extract_paragraphs(item.html, item.lang)
        site.boilerplate.observe(paragraphs, item.lang)
        kept: list[StoredParagraph] = []
        other_lang = 0
        for p in site.boilerplate.mark(paragraphs, item.lang):
            if p.boilerplate:
                continue
            lang = item.lang
            if word_count(p.text) >= _MIN_LID_WORDS:
                lang, _ = self.runtime.language.identify(p.text, self.config.lang_min_confidence)
                if lang != item.lang and lang != "und":
                    other_lang += 1
            kept.append((p.kind, lang, p.text))
        item.content = page_content(kept, item.lang)
        self.stats.inc_value("bitext/content/paragraphs", len(kept))
        self.stats.inc_value("bitext/content/boilerplate", len(paragraphs) - len(kept))
        if other_lang:
            self.stats.inc_value("bitext/content/paragraphs_other_lang", other_lang)
        self.stats.inc_value("bitext/content/sentences", len(item.content))
        return item
