"""Downloader middlewares of the bitext project."""

from __future__ import annotations

from typing import Any

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as _ScrapyRobotsTxtMiddleware
from scrapy.http import Request
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred


class RobotsTxtMiddleware(_ScrapyRobotsTxtMiddleware):
    """Scrapy's robots.txt middleware, safe for many requests waiting on one robots.txt.

    In Scrapy 2.19 every request that arrives while a host's robots.txt is being fetched awaits
    the same Deferred through ``maybe_deferred_to_future``, whose adapter callback returns None:
    the first waiter gets the parser and every later one gets None, which means "allowed".  A
    resumed crawl starts with many requests at once and fetched disallowed pages that way.  Here
    each waiter gets its own Deferred, fed without consuming the shared result.
    """

    async def robot_parser(self, request: Request) -> Any:
        parser = self._parsers.get(urlparse_cached(request).netloc)
        if isinstance(parser, Deferred):
            waiter: Deferred[Any] = Deferred()

            def relay(result: Any) -> Any:
                waiter.callback(result)
                return result

            parser.addBoth(relay)
            return await maybe_deferred_to_future(waiter)
        return await super().robot_parser(request)
