"""Page-parse stage: every page's own parsing (matchers.page.page_parse.parse_page), once.

The page is decoded, linearized, identified and split into its main content by that one function:
in the crawl's parse worker process (bitext_spider.workers.page_parser) or, with
``BITEXT_PARSE_WORKERS=0``, in the crawl process.  The ``site`` spider parses each HTML page
itself, because the links it follows come from the same parse; this stage parses the items that
arrive without a result (from any other spider, through the page middleware).  The normalize,
language, link, image and main-content stages read ``item.parsed``.
"""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import DropItem

from bitext_spider.items import PageItem
from bitext_spider.workers.page_parser import ParseTimeout
from pipelines.base import MatchingStage, pages_only


class PageParsePipeline(MatchingStage):
    def open_spider(self, spider: Any = None) -> None:
        if self.runtime.page_parser is not None:
            self.runtime.page_parser.start()

    @pages_only
    async def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if item.parsed is None:
            try:
                item.parsed = await self.runtime.parse_page(item.body, item.content_type, item.url)
            except ParseTimeout as exc:
                raise DropItem(str(exc)) from None
        return item

    def close_spider(self, spider: Any = None) -> None:
        if self.runtime.page_parser is not None:
            self.runtime.page_parser.close()
