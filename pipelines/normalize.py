"""Normalize stage: decode the body with the right charset, linearize it (tag sequence, text blocks).

Both come from the page-parse worker when there is one (pipelines.page_parse)."""

from __future__ import annotations

import logging
from typing import Any

from scrapy.exceptions import DropItem

from bitext_spider.items import PageItem
from matchers.page.decoding import decode_html, looks_binary
from matchers.page.linearize import linearize
from matchers.page.page_parse import too_large
from matchers.structure.size_ratio import script_weighted_length
from pipelines.base import MatchingStage, pages_only

logger = logging.getLogger(__name__)


class NormalizePipeline(MatchingStage):
    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        parsed = item.parsed
        if parsed.binary if parsed is not None else looks_binary(item.body):
            self.stats.inc_value("bitext/pages/dropped/binary")
            raise DropItem(f"binary content served as {item.content_type or 'unknown type'}: {item.url}")
        if parsed is not None and parsed.decoded is not None and parsed.features is not None:
            decoded, features, item.size_chars = parsed.decoded, parsed.features, parsed.size_chars
        else:
            decoded = decode_html(item.body, item.content_type)
            item.size_chars = script_weighted_length(decoded.text)
            features = linearize(decoded.text, max_tokens=self.config.max_tag_tokens)
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
