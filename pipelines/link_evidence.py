"""Link-evidence stage: the page's outgoing links with anchor text and hreflang
(matchers.page.outlinks) join its site's evidence, scored at close (matchers.site.link_evidence)."""

from __future__ import annotations

from typing import Any

from bitext_spider.items import PageItem
from pipelines.base import EvidenceStage, pages_only


class LinkEvidencePipeline(EvidenceStage):
    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if item.html is None:
            return item
        item.outlinks = self.parsed(item).outlinks
        if item.eligible and item.lang is not None:
            self.runtime.site(item.site).evidence.add_links(item.url, item.lang, item.outlinks)
        return item
