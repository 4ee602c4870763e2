"""What every matching stage shares: the crawl's runtime, and being off when BITEXT_ENABLED is."""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from scrapy.exceptions import NotConfigured

from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime

_Stage = TypeVar("_Stage", bound="MatchingStage")


class MatchingStage:
    """Base of the matching pipelines; a user's own filter can subclass it too (docs/design.md).

    A stage's ``process_item`` sees pages only: Scrapy sends every item through every pipeline,
    and pair items (bitext_spider.pair_flow) and a user's own items pass the matching stages
    untouched.  The check is made here once, for every subclass, rather than in each stage.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("process_item")
        if own is None or getattr(own, "_pages_only", False):
            return

        @functools.wraps(own)
        def process_item(self: Any, item: Any, spider: Any = None) -> Any:
            if not isinstance(item, PageItem):
                return item
            # Scrapy passes the spider only to a process_item that requires it.
            return own(self, item) if spider is None else own(self, item, spider)

        process_item._pages_only = True  # type: ignore[attr-defined]
        cls.process_item = process_item  # type: ignore[method-assign]

    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.config = runtime.config
        self.stats = runtime.stats
        # What the page-only steps read (matchers.page_parse), for stages that run them here.
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
