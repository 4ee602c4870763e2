"""Structure filter stage: weighted tag-sequence edit distance under a threshold that grows with
the page size (matchers.edit_distance, matchers.structure_threshold), then the correlation of the
aligned text-chunk lengths (matchers.chunk_correlation).

The batched numba kernel releases the GIL and runs in a worker thread, so the reactor keeps
downloading while a page is compared against thousands of earlier ones.  One thread only, and
one numba thread in it: numba's default threading layer must not be entered from two threads at
once, and the reactor already keeps the other core busy.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np
from scrapy.exceptions import NotConfigured

from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from matchers.chunk_correlation import batch_chunk_correlation
from matchers.edit_distance import SCALE
from matchers.page_index import CandidateSet, SiteIndex
from matchers.structure_threshold import scaled_limits, similarity


def structure_filter(
    index: SiteIndex, tokens: np.ndarray, candidates: list[CandidateSet], ratio: float, min_correlation: float
) -> None:
    """Score and narrow ``candidates`` in place: distance threshold, then chunk-length correlation."""
    for cand in candidates:
        store = index.index(cand.lang).tags
        other_len = store.lengths[cand.rows]
        limits = scaled_limits(len(tokens), other_len, ratio)
        dist = store.distances(tokens, cand.rows, limits)
        ok = dist <= limits
        cand.add_scores(
            edit_distance=np.where(ok, dist / SCALE, np.nan),
            structure_threshold=limits / SCALE,
            structure=np.where(ok, similarity(dist, len(tokens), other_len), 0.0),
        )
        cand.narrow(ok)
        # Text-length correlation only for the few pairs within the distance threshold.
        corr, chunks = batch_chunk_correlation(tokens, *store.arrays(), cand.rows, dist[ok])
        cand.add_scores(chunk_correlation=corr, aligned_chunks=chunks)
        cand.narrow(np.isnan(corr) | (corr >= min_correlation))


def _one_numba_thread() -> None:
    # The reactor thread keeps one core busy; a two-thread prange would then wait on its
    # descheduled worker at every batch (docs/benchmarks.md), so the crawl's kernels run on
    # this one thread, beside the reactor.
    numba.set_num_threads(1)


class StructureFilterPipeline:
    def __init__(self, runtime: BitextRuntime) -> None:
        self.runtime = runtime
        self.config = runtime.config
        self.stats = runtime.stats
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="bitext-structure", initializer=_one_numba_thread
        )

    @classmethod
    def from_crawler(cls, crawler: Any) -> StructureFilterPipeline:
        runtime = BitextRuntime.of(crawler)
        if not runtime.config.enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        return cls(runtime)

    async def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if not item.candidates or item.features is None:
            return item
        index = self.runtime.sites[item.site].index
        args = (
            index,
            item.features.tokens,
            item.candidates,
            self.config.structure_max_ratio,
            self.config.structure_min_correlation,
        )
        await asyncio.get_running_loop().run_in_executor(self._executor, structure_filter, *args)
        item.candidates = [c for c in item.candidates if len(c)]
        self.stats.inc_value("bitext/candidates/structure", sum(len(c) for c in item.candidates))
        return item

    def close_spider(self, spider: Any = None) -> None:
        self._executor.shutdown(wait=True)
