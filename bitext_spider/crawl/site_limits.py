"""Downloader middleware: requests of the ``site`` spider that a site's limits refuse by the time
they are to be downloaded are dropped.

The spider checks a URL when it requests it, but a link trap is found after the frontier has
queued many of its URLs, and a site's time limit runs out while its URLs wait in the scheduler;
dropping them here keeps the crawl from spending its budget on them.  A dropped request ends in
the spider's errback as :class:`SiteLimitReached`, counted under ``bitext/traps/dropped`` or
``bitext/skipped/site_time_limit`` and logged at DEBUG only.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Request

from bitext_spider.config import BitextConfig
from bitext_spider.crawl.middlewares import SITE_META

logger = logging.getLogger(__name__)


class SiteLimitReached(IgnoreRequest):
    """A request dropped because its site hit a link trap or its time limit."""


def out_of_time(state: Any, limit: float) -> bool:
    """Whether the site of ``state`` has used up ``BITEXT_SITE_TIME_LIMIT`` (logged once per site)."""
    if not limit or state.started_at is None or time.monotonic() - state.started_at <= limit:
        return False
    if not state.timed_out:
        state.timed_out = True
        logger.warning("site %s: crawl time limit of %g s reached; its remaining URLs are dropped", state.key, limit)
    return True


class SiteLimitsMiddleware:
    def __init__(self, crawler: Any, config: BitextConfig) -> None:
        self.crawler = crawler
        self.config = config

    @classmethod
    def from_crawler(cls, crawler: Any) -> SiteLimitsMiddleware:
        config = BitextConfig.from_crawler(crawler)
        if not config.enabled:
            raise NotConfigured
        return cls(crawler, config)

    def process_request(self, request: Request, spider: Any = None) -> None:
        key = request.meta.get(SITE_META)
        runtime = getattr(self.crawler.spider, "runtime", None)
        state = runtime.sites.get(key) if key and runtime is not None else None
        if state is None or request.url.endswith("/robots.txt"):
            return
        if out_of_time(state, self.config.site_time_limit):
            self.crawler.stats.inc_value("bitext/skipped/site_time_limit")
            raise SiteLimitReached(f"site {state.key}: crawl time limit reached")
        if state.traps.refused(request.url) == "trap":
            self.crawler.stats.inc_value("bitext/traps/dropped")
            raise SiteLimitReached(f"site {state.key}: link trap")
