"""``scrapy crawl``, exiting with status 1 when a feed failed (bitext_spider.crawl.feed_guard)."""

from __future__ import annotations

import argparse
from typing import Any

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.crawler import Crawler

from bitext_spider.crawl.feed_guard import FeedGuard


class Command(ScrapyCrawlCommand):
    def __init__(self) -> None:
        super().__init__()
        self._crawlers: list[Crawler] = []

    def _create_crawler(self, spidercls: Any) -> Crawler:
        crawler = super()._create_crawler(spidercls)
        self._crawlers.append(crawler)  # the process forgets its crawlers once they finish
        return crawler

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        super().run(args, opts)
        if any(FeedGuard.failed(c) for c in self._crawlers):
            self.exitcode = 1
