"""Content filter stage: each page's candidates judged on content as it arrives, in one thread
(matchers.content.content_filter, Tomás et al., *WebMining*, section 2.3)."""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from scrapy.exceptions import NotConfigured

from bitext_spider.config import BitextConfig
from bitext_spider.items import PageItem
from bitext_spider.resolution import content_enabled
from bitext_spider.runtime import BitextRuntime, SiteState
from bitext_spider.workers.cpu_stat import CpuStat
from matchers.content.content_filter import ContentFilter
from matchers.gil_hold import hold_short_kernels
from pipelines.base import MatchingStage, pages_only

logger = logging.getLogger(__name__)


def _timed(fn: Any, *args: Any) -> tuple[Any, float, float]:
    """``fn(*args)``, and the CPU and the wall seconds this thread spent in it."""
    t0, w0 = time.thread_time(), time.perf_counter()
    out = fn(*args)
    return out, time.thread_time() - t0, time.perf_counter() - w0


def _judge(content: ContentFilter, state: SiteState, item: PageItem) -> tuple[Any, Any]:
    """The page's candidates judged, then the young candidates whose model has matured since
    (None if that failed: the close judges them, and the page must not be lost for it)."""
    aligned = content.filter_page(state.site_id, state.index, item.content, item.candidates, item.published,
                                  item.visible)
    try:
        page = state.index.locate(item.url)
        if page is not None:
            content.note_young(state.site_id, page, item.candidates)
        return aligned, content.rejudge_matured(state.site_id, state.index)
    except Exception:
        logger.exception("judging young candidates again failed at %s; the close judges them", item.url)
        return aligned, None


class ContentFilterPipeline(MatchingStage):
    def __init__(self, runtime: BitextRuntime) -> None:
        super().__init__(runtime)
        # The resolver's filter: the close-time steps (rejudging, the close sweep, the final pairs'
        # sentences, bitext_spider.resolution) know the checks made here at arrival.
        content = runtime.resolver.content
        assert content is not None  # from_crawler builds this stage only when the filter is on
        self.filter: ContentFilter = content
        # One thread: the models are updated (and merged with other processes' training, in
        # ModelRegistry.updated) in it, so no lock is needed around them.
        # Beside the reactor, short kernels hold the GIL rather than wait to have it back.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bitext-content",
                                            initializer=hold_short_kernels)
        self._cpu = CpuStat("bitext/time/content_cpu_ms")
        # Wall time beyond the CPU time is mostly the wait to win the GIL back from the reactor.
        self._wall = CpuStat("bitext/time/content_thread_wall_ms")

    @classmethod
    def from_crawler(cls, crawler: Any) -> ContentFilterPipeline:
        if not content_enabled(BitextConfig.from_crawler(crawler)):
            raise NotConfigured("BITEXT_CONTENT_ENABLED is off")
        return super().from_crawler(crawler)

    def _publish(self) -> None:
        for key, n in self.filter.counts.items():
            self.stats.set_value(f"bitext/content/{key}", n)

    @pages_only
    async def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if item.content is None or not item.eligible:
            return item
        state = self.runtime.site(item.site)
        (aligned, matured), cpu, wall = await asyncio.get_running_loop().run_in_executor(
            self._executor, _timed, _judge, self.filter, state, item,
        )
        self._cpu.add(self.stats, cpu)
        self._wall.add(self.stats, wall)
        if matured is None:
            self.stats.inc_value("bitext/errors/young_judgments")
            matured = []
        index = state.index.index
        item.aligned = [(index(lang).urls[row], lang, kept) for lang, row, kept in aligned]
        item.realigned = [(index(a[0]).urls[a[1]], a[0], index(b[0]).urls[b[1]], b[0], kept)
                          for a, b, kept in matured]
        item.candidates = [c for c in item.candidates if len(c)]
        self.stats.inc_value("bitext/candidates/content", sum(len(c) for c in item.candidates))
        self._publish()
        return item

    def close_spider(self, spider: Any = None) -> None:
        self._executor.shutdown(wait=True)
