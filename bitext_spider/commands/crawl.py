"""``scrapy crawl``: one line for a user's error, exit status 1 when a feed failed.

A crawl that cannot start because of its input (bitext_spider.user_errors: a seeds file, a
setting, a database URL) ends with that one line on standard error and status 1 instead of
asyncio's "Task exception was never retrieved" and a traceback; any other exception is a bug and
keeps its traceback.  A crawl whose feed failed also exits with 1 (bitext_spider.crawl.feed_guard).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import traceback
from typing import Any

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.crawler import Crawler
from scrapy.exceptions import UsageError
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from bitext_spider.crawl.feed_guard import FeedGuard
from bitext_spider.user_errors import UserError


class Command(ScrapyCrawlCommand):
    def __init__(self) -> None:
        super().__init__()
        self._crawlers: list[Crawler] = []
        self._errors: list[BaseException] = []

    def _create_crawler(self, spidercls: Any) -> Crawler:
        crawler = super()._create_crawler(spidercls)
        self._crawlers.append(crawler)  # the process forgets its crawlers once they finish
        return crawler

    def _watch(self, started: Any) -> None:
        """Keep the exception that stopped the crawl from starting (and so mark it retrieved)."""
        if isinstance(started, asyncio.Future):
            def done(task: asyncio.Future) -> None:
                if not task.cancelled() and task.exception() is not None:
                    self._errors.append(task.exception())
            started.add_done_callback(done)
        elif isinstance(started, Deferred):
            def failed(failure: Failure) -> None:
                self._errors.append(failure.value)
            started.addErrback(failed)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("" if not args else "running 'scrapy crawl' with more than one spider is not supported")
        assert self.crawler_process
        self._watch(self.crawler_process.crawl(self._create_crawler(args[0]), **opts.spargs))
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed or self._errors:
            self.exitcode = 1
        for exc in self._errors:
            if isinstance(exc, UserError):
                print(f"error: {exc}", file=sys.stderr)
            else:
                traceback.print_exception(exc)
        if any(FeedGuard.failed(c) for c in self._crawlers):
            self.exitcode = 1
