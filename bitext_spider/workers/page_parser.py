"""Each page's own parsing (matchers.page.page_parse) in ``BITEXT_PARSE_WORKERS`` worker processes.

Decoding, the tag sequence, fastText, jusText and the link and image extraction are pure Python
or hold the GIL; on the reactor thread they took about as much time per page as Scrapy's own
crawling (docs/benchmarks.md (c)).  The crawl's runtime owns one :class:`PageParser`.  The spider
awaits it for every HTML page, so the page is parsed once, in the worker, for both the links it
follows and the matching stages (pipelines.page_parse attaches the result to items that arrive
without one).

A worker that dies (a crash in a parser, the OOM killer) costs nothing: the page is parsed in the
crawl process, the worker is started again, and ``bitext/errors/parse_worker`` counts it.  A page
that keeps a worker busy longer than ``BITEXT_PARSE_TIMEOUT`` seconds raises
:class:`ParseTimeout` (the caller drops it with a message) and the worker is killed and replaced;
the other pages it held are parsed in the crawl process.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bitext_spider.config import BitextConfig
from bitext_spider.workers.channel import WorkerChannel, WorkerDied
from bitext_spider.workers.cpu_stat import CpuStat
from bitext_spider.workers.parse_worker import PageWorker, init_worker, parse_in_worker
from matchers.page.page_parse import ParsedPage

logger = logging.getLogger(__name__)


class ParseTimeout(Exception):
    """A page kept its worker longer than ``BITEXT_PARSE_TIMEOUT``; the worker was replaced."""


class PageParser:
    """The page-parse workers, each replaced when it dies or hangs."""

    def __init__(self, config: BitextConfig, crawler: Any) -> None:
        self.config = config
        self.options = config.parse_options()
        self._crawler = crawler
        self._workers: list[WorkerChannel | None] = [None] * config.parse_workers
        self._local: PageWorker | None = None  # parses in this process when a worker has failed
        self._closed = False
        self._cpu = CpuStat("bitext/time/parse_cpu_ms")

    @property
    def stats(self) -> Any:
        # The crawler's stats exist only once the crawl starts, after components are built.
        return self._crawler.stats

    def start(self) -> None:
        """Start the workers: their imports and model load overlap the first requests."""
        for slot in range(len(self._workers)):
            self._worker(slot)

    def worker_pids(self) -> list[int]:
        return [w.pid for w in self._workers if w is not None and w.pid is not None]

    def _worker(self, slot: int) -> WorkerChannel:
        worker = self._workers[slot]
        if worker is None:
            worker = self._workers[slot] = WorkerChannel("bitext-parse", init_worker, (self.options,))
        return worker

    def _least_busy(self) -> WorkerChannel:
        slot = min(range(len(self._workers)), key=lambda i: w.pending if (w := self._workers[i]) else 0)
        return self._worker(slot)

    async def parse(self, body: bytes, content_type: str, url: str) -> ParsedPage:
        """The page parsed in a worker (or here, if it failed); raises :class:`ParseTimeout`."""
        if self._closed:
            return self._parse_here(body, content_type, url)
        timeout = self.config.parse_timeout or None
        worker = self._least_busy()
        try:
            parsed = await asyncio.wait_for(worker.call(parse_in_worker, body, content_type, url), timeout)
        except TimeoutError:
            # The worker is stuck in this page; parsing it here would stall the crawl instead.
            self.stats.inc_value("bitext/pages/dropped/parse_timeout")
            self._replace(worker, f"no result after {timeout:g} s")
            raise ParseTimeout(f"parsing took longer than BITEXT_PARSE_TIMEOUT={timeout:g} s: {url}") from None
        except WorkerDied as exc:
            self._replace(worker, exc)
            parsed = self._parse_here(body, content_type, url)
        except Exception:
            # parse_page does not raise on bad pages; if it ever does, the page is parsed here,
            # where the same error is reported as the stages would without workers.
            logger.exception("page-parse worker failed on %s; parsing it here", url)
            parsed = self._parse_here(body, content_type, url)
        self._cpu.add(self.stats, parsed.cpu_seconds)
        return parsed

    def _parse_here(self, body: bytes, content_type: str, url: str) -> ParsedPage:
        if self._local is None:
            self._local = PageWorker(self.options)
        return self._local.parse(body, content_type, url)

    def _replace(self, worker: WorkerChannel, why: BaseException | str) -> None:
        """Kill ``worker``; the next page starts a new one.  The other pages it held fail with
        WorkerDied and are parsed here."""
        if worker not in self._workers:
            return  # another of its pages already replaced it
        logger.error("page-parse worker replaced (%s)", why)
        self.stats.inc_value("bitext/errors/parse_worker")
        self._workers[self._workers.index(worker)] = None
        worker.kill()

    def close(self) -> None:
        """Stop the workers (idempotent); a page parsed after this is parsed here."""
        self._closed = True
        for slot, worker in enumerate(self._workers):
            if worker is not None:
                worker.close()
                self._workers[slot] = None
