"""Page-parse stage: the page's own parsing (matchers.page.page_parse) from a worker process.

The spider already awaits the crawl's page parser (bitext_spider.workers.page_parser) for every HTML page,
because the links it follows come from the same parse; this stage parses the items that arrive
without a result (from a user's own spider, say) the same way.  The normalize, language, link,
image and main-content stages then take their results from ``item.parsed`` instead of computing
them.  With ``BITEXT_PARSE_WORKERS=0`` the stage is off and those stages compute the same
functions themselves.
"""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import DropItem, NotConfigured

from bitext_spider.items import PageItem
from bitext_spider.workers.page_parser import PageParser, ParseTimeout
from pipelines.base import MatchingStage, pages_only


class PageParsePipeline(MatchingStage):
    @classmethod
    def from_crawler(cls, crawler: Any) -> PageParsePipeline:
        stage = super().from_crawler(crawler)
        if stage.runtime.page_parser is None:
            raise NotConfigured("BITEXT_PARSE_WORKERS=0: the stages parse in the crawl process")
        return stage

    @property
    def parser(self) -> PageParser:
        assert self.runtime.page_parser is not None
        return self.runtime.page_parser

    def open_spider(self, spider: Any = None) -> None:
        self.parser.start()

    @pages_only
    async def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if item.parsed is None:
            try:
                item.parsed = await self.parser.parse(item.body, item.content_type, item.url)
            except ParseTimeout as exc:
                raise DropItem(str(exc)) from None
        return item

    def close_spider(self, spider: Any = None) -> None:
        self.parser.close()
