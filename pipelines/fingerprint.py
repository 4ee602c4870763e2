"""Fingerprint stage: the main content's paragraph type/length fingerprint (ILSP-FC 3.9;
matchers.structure.fingerprint), compared at close."""

from __future__ import annotations

from typing import Any

from bitext_spider.items import PageItem
from pipelines.base import EvidenceStage, pages_only


class FingerprintPipeline(EvidenceStage):
    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if item.eligible and item.lang is not None and item.content is not None:
            self.runtime.site(item.site).evidence.add_fingerprint(item.url, item.lang, item.paragraphs)
        return item
