"""Image-evidence stage: the page's image file names join its site's image frequencies
(ILSP-FC 3.9; matchers.site.image_evidence); the Jaccard of critical images is scored at close."""

from __future__ import annotations

from typing import Any

from bitext_spider.items import PageItem
from pipelines.base import EvidenceStage, pages_only


class ImageEvidencePipeline(EvidenceStage):
    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if item.html is None:
            return item
        item.images = self.parsed(item).images
        if item.eligible and item.lang is not None:
            self.runtime.site(item.site).evidence.add_images(item.url, item.lang, item.images)
        return item
