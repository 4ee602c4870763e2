"""Page evidence stage: the page's outgoing links (anchor text, hreflang), image file names and
main-content fingerprint go into its site's evidence (matchers.site_evidence), for the URL-key,
link, image and fingerprint evidence of the decision at close (pipelines/decision.py).
"""

from __future__ import annotations

from typing import Any

from bitext_spider.items import PageItem
from matchers.image_evidence import image_names
from matchers.outlinks import outlinks
from pipelines.base import MatchingStage


class PageEvidencePipeline(MatchingStage):

    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if item.html is None:
            return item
        item.outlinks = outlinks(item.html, item.url)
        item.images = image_names(item.html, item.url)
        if not item.eligible or item.lang is None:
            return item
        paragraphs = item.content.paragraphs if item.content is not None else []
        self.runtime.sites[item.site].evidence.add(item.url, item.lang, item.outlinks, item.images, paragraphs)
        self.stats.inc_value("bitext/evidence/pages")
        return item
