"""Middlewares of the bitext project: the spider middleware that makes a page item of every HTML
response a spider receives, and a downloader middleware that fixes robots.txt for waiting requests."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as _ScrapyRobotsTxtMiddleware
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request, Response
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred

from bitext_spider.config import BitextConfig
from bitext_spider.crawl.seeds import page_site
from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime, SiteState

logger = logging.getLogger(__name__)

_HTML_TYPES = ("text/html", "application/xhtml+xml")
# Request meta keys: the seed site a request of the ``site`` spider belongs to (that spider makes
# its own pages), and a request's own opt-out (``False``: no page of its response).
SITE_META = "bitext_site"
PAGE_META = "bitext_page"


def is_html(response: Response) -> bool:
    """An HTML page, by Scrapy's response class or the Content-Type header."""
    if isinstance(response, HtmlResponse):
        return True
    ctype = response.headers.get("Content-Type", b"").decode("latin-1").lower()
    return any(t in ctype for t in _HTML_TYPES)


class PageItemMiddleware:
    """Spider middleware: a :class:`PageItem` of every HTML response the spider receives.

    The spider's own output passes through untouched and in order; the page follows it, with the
    URLs the spider requested from the response as its links.  No page is made of a response
    whose output already has a page item (a spider that makes its own, as ``site`` does), of a
    request of the ``site`` spider, of a request with ``meta={"bitext_page": False}``, of a
    non-2xx response (one the spider asked to see), of a non-HTML one, of a URL stored by an
    earlier run or already taken in this one, or beyond ``BITEXT_MAX_PAGES_PER_SITE``.  The
    page's site is derived from its URL (bitext_spider.crawl.seeds.page_site) and opened on first use
    as the ``site`` spider opens its seed sites: a resumed crawl rebuilds its index from the
    database.
    """

    def __init__(self, crawler: Any, runtime: BitextRuntime) -> None:
        self.crawler = crawler
        self.runtime = runtime
        self._opening: dict[str, asyncio.Future[SiteState]] = {}

    @classmethod
    def from_crawler(cls, crawler: Any) -> PageItemMiddleware:
        if not BitextConfig.from_crawler(crawler).enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        return cls(crawler, BitextRuntime.of(crawler))

    @property
    def stats(self) -> Any:
        return self.crawler.stats

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        requested: list[str] = []
        has_page = False
        async for out in result:
            if isinstance(out, PageItem):
                has_page = True
            elif isinstance(out, Request):
                requested.append(out.url)
            yield out
        if not has_page:
            page = await self._page(response, requested)
            if page is not None:
                yield page

    async def _page(self, response: Response, requested: Iterable[str]) -> PageItem | None:
        meta = response.meta if response.request is not None else {}
        if meta.get(SITE_META) or meta.get(PAGE_META) is False:
            return None
        if not 200 <= response.status < 300:
            self.stats.inc_value("bitext/skipped/error_status")
            return None
        if not is_html(response):
            self.stats.inc_value("bitext/skipped/non_html")
            return None
        domains = getattr(self.crawler.spider, "allowed_domains", None) or ()
        site = page_site(response.url, domains)
        state = self.runtime.sites.get(site.key)
        if state is None:
            # The first pages of a site wait for one opening, which reads its stored pages (a
            # resumed crawl) off the reactor thread.
            opening = self._opening.get(site.key)
            if opening is None:
                opening = asyncio.ensure_future(asyncio.to_thread(self.runtime.open_site, site))
                self._opening[site.key] = opening
                self.stats.inc_value("bitext/sites/derived")
            state = await opening
        if response.url in state.stored_urls:
            self.stats.inc_value("bitext/skipped/stored")
            return None
        cap = self.runtime.config.max_pages_per_site
        if cap and state.pages_seen >= cap:
            self.stats.inc_value("bitext/skipped/page_cap")
            return None
        state.pages_seen += 1
        # Two requests redirected to one URL make one page.
        state.stored_urls.add(response.url)
        links = [u for u in dict.fromkeys(requested) if page_site(u, domains).key == site.key]
        return PageItem(
            url=response.url,
            site=site.key,
            body=response.body,
            requested_url=response.request.url if response.request is not None else response.url,
            status=response.status,
            depth=int(meta.get("depth", 0)),
            fetched_at=time.time(),
            content_type=response.headers.get("Content-Type", b"").decode("latin-1"),
            links=links,
        )


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
