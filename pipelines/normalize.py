"""Normalize stage: the page's decoded text and its STRAND linearization (tag sequence, text
blocks) from its one parse (pipelines.page_parse); binary content is dropped here, and a page whose
rel=canonical names another URL is marked a copy of it (the decision never pairs it in its place)."""

from __future__ import annotations

import logging
from typing import Any

from scrapy.exceptions import DropItem

from bitext_spider.items import PageItem
from matchers.page.page_parse import too_large
from matchers.site.url_canonical import canonical_url
from pipelines.base import MatchingStage, pages_only

logger = logging.getLogger(__name__)


class NormalizePipeline(MatchingStage):
    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        parsed = self.parsed(item)
        if parsed.binary or parsed.decoded is None or parsed.features is None:
            self.stats.inc_value("bitext/pages/dropped/binary")
            raise DropItem(f"binary content served as {item.content_type or 'unknown type'}: {item.url}")
        decoded, features, item.size_chars = parsed.decoded, parsed.features, parsed.size_chars
        item.html = decoded.text
        item.encoding = decoded.encoding
        self.stats.inc_value(f"bitext/pages/charset/{decoded.source}")
        item.features = features
        if too_large(features, self.parse_options):
            item.too_large = True
            item.note = f"tag sequence longer than BITEXT_MAX_TAG_TOKENS={self.config.max_tag_tokens}"
            self.stats.inc_value("bitext/pages/too_large")
            logger.warning("%s: %s; stored but not compared", item.url, item.note)
        if not len(features.tokens):
            self.stats.inc_value("bitext/pages/empty")
        if parsed.published is not None:  # else the day a feed gave it, if any
            item.published = parsed.published
        if parsed.canonical is not None and canonical_url(parsed.canonical) != canonical_url(item.url):
            item.canonical = parsed.canonical
            self.stats.inc_value("bitext/pages/canonical_elsewhere")
        return item
