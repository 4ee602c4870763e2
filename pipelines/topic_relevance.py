"""Topic stage of a focused crawl (``BITEXT_DOMAIN``, ``-a domain=FILE``): pages not relevant to
the domain are stored, and their links followed, but never paired.

The relevance (ILSP-FC's p and m, matchers.page.topic_relevance) comes with the page from the
``site`` spider, which needs it to rank the page's links (bitext_spider.crawl.focused); a page of
another spider is scored here.  Runs after the main-content stage, whose paragraphs it annotates
with their domain terms (the ``topic`` of ``bitext export documents --format cesdoc``), and before
every stage that registers or compares the page.
"""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import NotConfigured

from bitext_spider.config import BitextConfig
from bitext_spider.crawl.focused import load_domain, page_locations
from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from matchers.page.domain_terms import Domain
from matchers.page.linearize import parse_html
from matchers.page.topic_relevance import TopicScore, paragraph_terms, score_page
from pipelines.base import MatchingStage, pages_only


class TopicRelevancePipeline(MatchingStage):
    def __init__(self, runtime: BitextRuntime, domain: Domain) -> None:
        super().__init__(runtime)
        self.domain = domain

    @classmethod
    def from_crawler(cls, crawler: Any) -> TopicRelevancePipeline:
        config = BitextConfig.from_crawler(crawler)
        if not config.enabled or not config.domain:
            raise NotConfigured("no domain: not a focused crawl")
        domain = load_domain(config)
        assert domain is not None
        return cls(BitextRuntime.of(crawler), domain)

    @pages_only
    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if item.topic is None:
            item.topic = self._score(item)
        topic = item.topic
        self.stats.inc_value("bitext/domain/relevant" if topic.relevant else "bitext/domain/irrelevant")
        if item.paragraphs:
            item.paragraph_topics = paragraph_terms(self.domain, item.lang, [text for _, _, text in item.paragraphs])
        if not topic.relevant and item.eligible:
            item.eligible = False
            item.note = (f"not relevant to the domain {topic.domain}: p {topic.p:g}, m {topic.m} "
                         f"(thresholds {self.config.topic_min_score:g}, {self.config.topic_min_terms})")
        return item

    def _score(self, item: PageItem) -> TopicScore:
        parsed = self.parsed(item)
        if parsed.decoded is None:
            return TopicScore(0.0, 0, False, domain=self.domain.name)
        root = parse_html(parsed.decoded.text)
        return score_page(self.domain, parsed.lang, page_locations(parsed, root), self.config.topic_min_score,
                          self.config.topic_min_terms)
