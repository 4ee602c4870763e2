"""Near-duplicate stage: the page's paragraph hashes (ILSP-FC 3.8; matchers.site.near_duplicates); a
page that more than 0.8 of its paragraphs share with a longer page of its language is vetoed by
the decision at close, so a copy does not take its original's translation."""

from __future__ import annotations

from typing import Any

from bitext_spider.items import PageItem
from pipelines.base import EvidenceStage, pages_only


class NearDuplicatePipeline(EvidenceStage):
    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if item.eligible and item.lang is not None and item.content is not None:
            self.runtime.site(item.site).evidence.add_paragraph_hashes(item.url, item.lang, item.paragraphs)
        return item
