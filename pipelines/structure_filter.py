"""Structure filter stage: runs :func:`matchers.structure.structure_filter.structure_filter` (weighted
tag-sequence edit distance under a threshold that grows with the page size, then the correlation
of the aligned text-chunk lengths) on each new page's size-passing candidates.

By default the filter runs in one thread of the crawl process, with one numba thread, since
numba's default threading layer must not be entered from two threads at once.  Its kernels
release the GIL, so they run on the second core while the reactor holds the first.
``BITEXT_STRUCTURE_WORKER=True`` runs it in a process of its own instead.  Side by side the two
take the same time within the runs' spread on the 10,000-page benchmark, W3C and a 10-language
site, and the thread uses 130-170 MB less: the worker's interpreter, numpy and numba, and its
copy of the tag sequences (docs/benchmarks.md (c), (h)).  On a site of 100,000 pages, with the
search of one language's candidates as separate kernels (it is one kernel, which releases the GIL
once), the two used the same memory and the process was faster by about a seventh ((j), one
crawl each).

The worker's side is bitext_spider.workers.structure_worker: it keeps its own copy of each site's tag
sequences and best-so-far records, fed with the rows registered since the previous request.
If the worker dies, the stage logs it, counts ``bitext/errors/structure_worker`` and goes on in
the thread, whose records start empty (it prunes less, it loses nothing).
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from bitext_spider.workers.channel import WorkerChannel, WorkerDied
from bitext_spider.workers.cpu_stat import CpuStat
from bitext_spider.workers.structure_worker import Request, filter_in_worker, init_worker, one_numba_thread
from matchers.gil_hold import hold_short_kernels
from matchers.site.page_index import SiteIndex
from matchers.structure.structure_filter import structure_filter
from pipelines.base import MatchingStage, pages_only

logger = logging.getLogger(__name__)


def _timed(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[float, float]:
    """Run ``fn(*args, **kwargs)``; return the CPU and the wall seconds this thread spent in it."""
    t0, w0 = time.thread_time(), time.perf_counter()
    fn(*args, **kwargs)
    return time.thread_time() - t0, time.perf_counter() - w0


def _stage_thread() -> None:
    # Beside the reactor: one numba thread, and short searches hold the GIL rather than wait to
    # have it back (matchers.gil_hold).
    one_numba_thread()
    hold_short_kernels()


class StructureFilterPipeline(MatchingStage):
    def __init__(self, runtime: BitextRuntime) -> None:
        super().__init__(runtime)
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="bitext-structure", initializer=_stage_thread
        )
        self._channel: WorkerChannel | None = None
        self._use_worker = self.config.structure_worker
        self._sent: dict[tuple[str, str], int] = {}  # (site, language) -> rows sent to the worker
        self._cpu = CpuStat("bitext/time/structure_cpu_ms")
        # In the thread, wall time beyond the CPU time is mostly the wait to win the GIL back
        # from the reactor after each kernel.
        self._thread_wall = CpuStat("bitext/time/structure_thread_wall_ms")

    def open_spider(self, spider: Any = None) -> None:
        # Start the worker with the crawl: its imports overlap the first requests.
        if self._use_worker:
            self._worker()

    def _worker(self) -> WorkerChannel:
        if self._channel is None:
            self._channel = WorkerChannel("bitext-structure", init_worker)
        return self._channel

    def worker_pid(self) -> int | None:
        return self._channel.pid if self._channel is not None else None

    @pages_only
    async def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if not item.candidates or item.features is None:
            return item
        index = self.runtime.site(item.site).index
        params = (
            self.config.structure_max_ratio,
            self.config.structure_min_correlation,
            self.config.max_candidates_per_lang,
        )
        margin = self.config.structure_best_margin
        where = index.locate(item.url)
        kwargs = {"lang": item.lang, "row": where[1] if where else None, "margin": margin if margin < 1.0 else None}
        cpu = None
        if self._use_worker:
            cpu = await self._filter_in_worker(item, index, params, kwargs)
        if cpu is None:
            cpu, wall = await asyncio.get_running_loop().run_in_executor(
                self._executor, _timed, structure_filter, (index, item.features.tokens, item.candidates, *params), kwargs
            )
            self._thread_wall.add(self.stats, wall)
        self._cpu.add(self.stats, cpu)
        item.candidates = [c for c in item.candidates if len(c)]
        self.stats.inc_value("bitext/candidates/structure", sum(len(c) for c in item.candidates))
        return item

    async def _filter_in_worker(
        self, item: PageItem, index: SiteIndex, params: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> float | None:
        """Filter ``item.candidates`` in the worker; None if the worker is gone (the caller then
        filters them in the thread)."""
        assert item.features is not None
        request: Request = (
            item.site,
            self._new_rows(item.site, index),
            index.tag_codes.encode(item.features.tokens, assign=False),  # the worker keeps the site's codes
            [(c.lang, c.rows) for c in item.candidates],
        )
        try:
            cpu, answers = await self._worker().call(filter_in_worker, request, params, kwargs)
        except WorkerDied as exc:
            self._give_up_worker(exc)
            return None
        for cand, (positions, scores) in zip(item.candidates, answers, strict=True):
            cand.take(positions)
            cand.add_scores(**scores)
        return cpu

    def _new_rows(self, site: str, index: SiteIndex) -> dict[str, tuple[int, list[np.ndarray]]]:
        """The rows of ``site`` registered since the last request (a resumed site's stored pages
        at its first), per language, from the first unsent row."""
        out = {}
        for lang, language in index.languages.items():
            sent = self._sent.get((site, lang), 0)
            if len(language.tags) > sent:
                out[lang] = (sent, [language.tags.tokens(r) for r in range(sent, len(language.tags))])
                self._sent[site, lang] = len(language.tags)
        return out

    def _give_up_worker(self, why: BaseException) -> None:
        if not self._use_worker:
            return  # another page already found the worker gone
        logger.error("structure-filter worker lost (%s); filtering in the crawl process from now on", why)
        self.stats.inc_value("bitext/errors/structure_worker")
        self._use_worker = False
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.kill()

    def close_spider(self, spider: Any = None) -> None:
        self._executor.shutdown(wait=True)
        if self._channel is not None:
            self._channel.close()
            self._channel = None
