"""URL-key stage: the page's URL joins its site's URL pairing keys (Kit & Ng; matchers.site.url_keys).

Keys are recomputed as the site grows (each time it has doubled, and at close), so
``bitext/url_keys/keys`` follows the crawl; the decision at close uses the final keys.  Only that
stat needs them during the crawl, and a recount costs the reactor time linear in the site's size:
doubling keeps the sum of the recounts under twice the last one.
"""

from __future__ import annotations

from typing import Any

from bitext_spider.items import PageItem
from pipelines.base import EvidenceStage, pages_only

_GROWTH = 2.0
_MIN_PAGES = 50


class UrlKeyPipeline(EvidenceStage):
    def __init__(self, runtime: Any) -> None:
        super().__init__(runtime)
        self._recomputed_at: dict[str, int] = {}

    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if not item.eligible or item.lang is None:
            return item
        evidence = self.runtime.site(item.site).evidence
        evidence.add_url(item.url, item.lang)
        if item.canonical:
            evidence.add_canonical(item.url, item.canonical)
        n = len(evidence.url_keys)
        if n >= _MIN_PAGES and n >= _GROWTH * self._recomputed_at.get(item.site, 0):
            evidence.url_keys.recompute()
            self._recomputed_at[item.site] = n
            self.stats.set_value("bitext/url_keys/keys", len(evidence.url_keys.keys()))
            self.stats.inc_value("bitext/url_keys/recomputed")
        return item
