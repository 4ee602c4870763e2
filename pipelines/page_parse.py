"""Page-parse stage: each page's own parsing (matchers.page_parse) in a worker process.

Decoding, the tag sequence, fastText, jusText and the link and image extraction are pure Python
or hold the GIL, and in the crawl process they ran on the reactor thread: about as much time per
page as Scrapy's own crawling (docs/benchmarks.md (c)).  This stage sends the response body to
``BITEXT_PARSE_WORKERS`` processes and attaches their :class:`~matchers.page_parse.ParsedPage` to
the item; the normalize, language, link, image and main-content stages then take their results
from it instead of computing them.  With ``BITEXT_PARSE_WORKERS=0`` the stage is off and those
stages compute the same functions themselves.

A worker that dies (a crash in a parser, the OOM killer) costs nothing: the page is parsed in the
crawl process, the pool is started again, and ``bitext/errors/parse_worker`` counts it.  A page
that keeps a worker busy longer than ``BITEXT_PARSE_TIMEOUT`` seconds is dropped with a message
(``bitext/pages/dropped/parse_timeout``) and the worker is killed and replaced; the other pages
it held are parsed in the crawl process.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor
from typing import Any

from scrapy.exceptions import DropItem, NotConfigured

from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from matchers.language_id import LanguageIdentifier
from matchers.page_parse import ParsedPage, ParseOptions, parse_page
from pipelines.base import MatchingStage, exit_with_parent

logger = logging.getLogger(__name__)


class _Worker:
    """What one worker process keeps between pages: the options and its own fastText model."""

    def __init__(self, options: ParseOptions) -> None:
        self.options = options
        self.language = LanguageIdentifier()

    def parse(self, body: bytes, content_type: str, url: str) -> ParsedPage:
        return parse_page(body, content_type, url, self.options, self.language)


# The worker process's state: a pool initializer can only leave it at module level.  It is set
# in worker processes only, never in the crawl process.
_worker: _Worker | None = None


def _init_worker(options: ParseOptions) -> None:
    global _worker
    _worker = _Worker(options)
    exit_with_parent("bitext-parse-parent-watch")


def _parse_in_worker(body: bytes, content_type: str, url: str) -> ParsedPage:
    assert _worker is not None, "the pool initializer did not run"
    return _worker.parse(body, content_type, url)


class PageParsePipeline(MatchingStage):
    def __init__(self, runtime: BitextRuntime) -> None:
        super().__init__(runtime)
        self._pool: ProcessPoolExecutor | None = None
        self._local: _Worker | None = None  # parses in this process when the pool has failed

    @classmethod
    def from_crawler(cls, crawler: Any) -> PageParsePipeline:
        stage = super().from_crawler(crawler)
        if stage.config.parse_workers <= 0:
            raise NotConfigured("BITEXT_PARSE_WORKERS=0: the stages parse in the crawl process")
        return stage

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: the crawl process has threads (writer, structure, content) and a
            # running reactor, which a forked child must not inherit.
            self._pool = ProcessPoolExecutor(
                max_workers=self.config.parse_workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker,
                initargs=(self.parse_options,),
            )
        return self._pool

    def open_spider(self, spider: Any = None) -> None:
        # Start the workers with the crawl: their imports and model load overlap the first requests.
        self._executor()

    async def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        timeout = self.config.parse_timeout or None
        try:
            future = self._executor().submit(_parse_in_worker, item.body, item.content_type, item.url)
            item.parsed = await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except TimeoutError:
            # The worker is stuck in this page; parsing it here would stall the crawl instead.
            self.stats.inc_value("bitext/pages/dropped/parse_timeout")
            self._restart(f"no result after {timeout:g} s", kill=True)
            raise DropItem(f"parsing took longer than BITEXT_PARSE_TIMEOUT={timeout:g} s: {item.url}") from None
        except BrokenExecutor as exc:
            self._restart(exc)
            item.parsed = self._parse_here(item)
        except Exception:
            # parse_page does not raise on bad pages; if it ever does, the page is parsed here,
            # where the same error is reported as the stages would without workers.
            logger.exception("page-parse worker failed on %s; parsing it here", item.url)
            item.parsed = self._parse_here(item)
        self.stats.inc_value("bitext/time/parse_cpu_ms", int(item.parsed.cpu_seconds * 1000))
        return item

    def _parse_here(self, item: PageItem) -> ParsedPage:
        if self._local is None:
            self._local = _Worker(self.parse_options)
        return self._local.parse(item.body, item.content_type, item.url)

    def _restart(self, why: BaseException | str, kill: bool = False) -> None:
        """Drop the pool (killing its workers if ``kill``); the next page starts a new one.  Pages
        already sent to the old pool fail with BrokenExecutor and are parsed here."""
        logger.error("page-parse worker replaced (%s)", why)
        self.stats.inc_value("bitext/errors/parse_worker")
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if kill:
            for process in list(getattr(pool, "_processes", {}).values()):
                process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def close_spider(self, spider: Any = None) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
