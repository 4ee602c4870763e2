"""What every matching stage shares: the crawl's runtime, being off when BITEXT_ENABLED is, and
passing on the items that are not pages."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from scrapy.exceptions import NotConfigured

from bitext_spider.config import BitextConfig
from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from matchers.page.page_parse import ParsedPage, parse_page

_Stage = TypeVar("_Stage", bound="MatchingStage")
_Method = TypeVar("_Method", bound=Callable[..., Any])


def pages_only(process_item: _Method) -> _Method:
    """Decorate a pipeline's ``process_item`` (plain or ``async``) so that an item which is not a
    :class:`PageItem` (a user spider's own item, a dict) goes on untouched: with the add-on the
    stages run in every spider's item flow."""
    if inspect.iscoroutinefunction(process_item):
        @functools.wraps(process_item)
        async def process_page_async(self: Any, item: Any, spider: Any = None) -> Any:
            if not isinstance(item, PageItem):
                return item
            return await process_item(self, item, spider)

        return process_page_async  # type: ignore[return-value]

    @functools.wraps(process_item)
    def process_page(self: Any, item: Any, spider: Any = None) -> Any:
        if not isinstance(item, PageItem):
            return item
        return process_item(self, item, spider)

    return process_page  # type: ignore[return-value]


class MatchingStage:
    """Base of the matching pipelines; a user's own filter can subclass it too (docs/custom_filter.md).
    Decorate ``process_item`` with :func:`pages_only`."""

    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.config = runtime.config
        self.stats = runtime.stats
        # What the page-only steps read (matchers.page.page_parse), for stages that run them here.
        self.parse_options = runtime.config.parse_options()

    @classmethod
    def from_crawler(cls: type[_Stage], crawler: Any) -> _Stage:
        # Checked before the runtime exists: a crawl with bitext off opens no database.
        if not BitextConfig.from_crawler(crawler).enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        return cls(BitextRuntime.of(crawler))


    def parsed(self, item: PageItem) -> ParsedPage:
        """The page's one parse: ``item.parsed``, from the page-parse stage (or the spider); made
        here by the same function when no earlier stage made it (a chain built without that
        stage), and kept on the item for the stages after this one."""
        if item.parsed is None:
            item.parsed = parse_page(item.body, item.content_type, item.url, self.parse_options,
                                     self.runtime.language)
        return item.parsed


class EvidenceStage(MatchingStage):
    """A stage that gathers site-level evidence for the decision at close; off with
    ``BITEXT_EVIDENCE_ENABLED=False``."""

    @classmethod
    def from_crawler(cls: type[_Stage], crawler: Any) -> _Stage:
        if not BitextConfig.from_crawler(crawler).evidence_enabled:
            raise NotConfigured("BITEXT_EVIDENCE_ENABLED is off")
        return super().from_crawler(crawler)  # type: ignore[misc]
