"""Normalize stage: the page's decoded text and its STRAND linearization (tag sequence, text
blocks) from its one parse (pipelines.page_parse); binary content is dropped here."""

from __future__ import annotations

import logging
from typing import Any

from scrapy.exceptions import DropItem

from bitext_spider.items import PageItem
from matchers.page.page_parse import too_large
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
        return item
