"""Decision stage: turns the combined decision on for the close-time sequence
(bitext_spider.site_steps.decision, run by bitext_spider.resolution); pages pass untouched as
they arrive, since the site-wide evidence is complete only at close.  With both the content
filter and the site evidence off there is nothing to weigh: the stage is off, and the candidates
are resolved on the page filters' scores alone (WebMining, section 2)."""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import NotConfigured

from bitext_spider.config import BitextConfig
from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from bitext_spider.site_steps.decision import SiteDecision, decision_enabled
from pipelines.base import MatchingStage, pages_only


class DecisionPipeline(MatchingStage):
    """Turns the decision on for the crawl's close (bitext_spider.resolution runs it there); pages
    pass untouched as they arrive, since the site-wide evidence is complete only at close."""

    def __init__(self, runtime: BitextRuntime) -> None:
        super().__init__(runtime)
        runtime.resolver.decision = SiteDecision(runtime)

    @classmethod
    def from_crawler(cls, crawler: Any) -> DecisionPipeline:
        cfg = BitextConfig.from_crawler(crawler)
        if not decision_enabled(cfg):
            raise NotConfigured("BITEXT_CONTENT_ENABLED and BITEXT_EVIDENCE_ENABLED are off")
        return super().from_crawler(crawler)

    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        return item
