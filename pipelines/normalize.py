"""Normalize stage: decode the body with the right charset, linearize it (tag sequence, text blocks)."""

from __future__ import annotations

import logging
from typing import Any

from scrapy.exceptions import DropItem

from bitext_spider.items import PageItem
from matchers.decoding import decode_html, looks_binary
from matchers.linearize import linearize
from matchers.size_ratio import script_weighted_length
from pipelines.base import MatchingStage

logger = logging.getLogger(__name__)


class NormalizePipeline(MatchingStage):

    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if looks_binary(item.body):
            self.stats.inc_value("bitext/pages/dropped/binary")
            raise DropItem(f"binary content served as {item.content_type or 'unknown type'}: {item.url}")
        decoded = decode_html(item.body, item.content_type)
        item.html = decoded.text
        item.encoding = decoded.encoding
        item.size_chars = script_weighted_length(decoded.text)
        self.stats.inc_value(f"bitext/pages/charset/{decoded.source}")
        features = linearize(decoded.text, max_tokens=self.config.max_tag_tokens)
        item.features = features
        if self.config.max_tag_tokens and len(features.tokens) > self.config.max_tag_tokens:
            item.too_large = True
            item.note = f"tag sequence longer than BITEXT_MAX_TAG_TOKENS={self.config.max_tag_tokens}"
            self.stats.inc_value("bitext/pages/too_large")
            logger.warning("%s: %s; stored but not compared", item.url, item.note)
        if not len(features.tokens):
            self.stats.inc_value("bitext/pages/empty")
        return item
