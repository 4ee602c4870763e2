"""What every matching stage shares: the crawl's runtime, and being off when BITEXT_ENABLED is."""

from __future__ import annotations

from typing import Any, TypeVar

from scrapy.exceptions import NotConfigured

from bitext_spider.runtime import BitextRuntime

_Stage = TypeVar("_Stage", bound="MatchingStage")


class MatchingStage:
    """Base of the matching pipelines; a user's own filter can subclass it too (docs/design.md)."""

    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.config = runtime.config
        self.stats = runtime.stats
        # What the page-only steps read (matchers.page.page_parse), for stages that run them here.
        self.parse_options = runtime.config.parse_options()

    @classmethod
    def from_crawler(cls: type[_Stage], crawler: Any) -> _Stage:
        runtime = BitextRuntime.of(crawler)
        if not runtime.config.enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        return cls(runtime)


class EvidenceStage(MatchingStage):
    """A stage that gathers site-level evidence for the decision at close; off with
    ``BITEXT_EVIDENCE_ENABLED=False``."""

    @classmethod
    def from_crawler(cls: type[_Stage], crawler: Any) -> _Stage:
        if not BitextRuntime.of(crawler).config.evidence_enabled:
            raise NotConfigured("BITEXT_EVIDENCE_ENABLED is off")
        return super().from_crawler(crawler)  # type: ignore[misc]
