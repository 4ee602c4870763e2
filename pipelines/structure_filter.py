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
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np

from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from matchers.chunk_correlation import batch_chunk_correlation
from matchers.edit_distance import SCALE
from matchers.page_index import CandidateSet, SiteIndex
from matchers.structure_threshold import scaled_limits, similarity
from pipelines.base import MatchingStage


def structure_filter(
    index: SiteIndex,
    tokens: np.ndarray,
    candidates: list[CandidateSet],
    ratio: float,
    min_correlation: float,
    keep: int = 0,
) -> None:
    """Score and narrow ``candidates`` in place: distance threshold, then chunk-length correlation.

    With ``keep`` > 0 only the ``keep`` most similar candidates per language that pass the
    correlation test are kept: the correlation is computed best-first, a few at a time, and stops
    once that many have passed (the store keeps no more than that anyway).
    """
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
        dist = dist[ok]
        order = np.argsort(-cand.scores["structure"], kind="stable")
        corr = np.full(len(cand), np.nan)
        chunks = np.zeros(len(cand), dtype=np.int64)
        checked = np.zeros(len(cand), dtype=bool)
        step = keep if keep > 0 else len(cand)
        passed = 0
        for start in range(0, len(cand), max(step, 1)):
            part = order[start : start + step]
            corr[part], chunks[part] = batch_chunk_correlation(tokens, *store.arrays(), cand.rows[part], dist[part])
            checked[part] = True
            passed += int(np.count_nonzero(np.isnan(corr[part]) | (corr[part] >= min_correlation)))
            if keep and passed >= keep:
                break
        cand.add_scores(chunk_correlation=corr, aligned_chunks=chunks)
        good = checked & (np.isnan(corr) | (corr >= min_correlation))
        if keep and np.count_nonzero(good) > keep:
            best = order[good[order]][:keep]
            good = np.zeros(len(cand), dtype=bool)
            good[best] = True
        cand.narrow(good)


def _timed(fn: Any, args: tuple[Any, ...]) -> float:
    """Run ``fn(*args)``; return the CPU seconds this thread spent in it."""
    t0 = time.thread_time()
    fn(*args)
    return time.thread_time() - t0


def _one_numba_thread() -> None:
    # The reactor thread keeps one core busy; a two-thread prange would then wait on its
    # descheduled worker at every batch (docs/benchmarks.md), so the crawl's kernels run on
    # this one thread, beside the reactor.
    numba.set_num_threads(1)


class StructureFilterPipeline(MatchingStage):
    def __init__(self, runtime: BitextRuntime) -> None:
        super().__init__(runtime)
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="bitext-structure", initializer=_one_numba_thread
        )

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
            self.config.max_candidates_per_lang,
        )
        cpu = await asyncio.get_running_loop().run_in_executor(self._executor, _timed, structure_filter, args)
        self.stats.inc_value("bitext/time/structure_cpu_ms", int(cpu * 1000))
        item.candidates = [c for c in item.candidates if len(c)]
        self.stats.inc_value("bitext/candidates/structure", sum(len(c) for c in item.candidates))
        return item

    def close_spider(self, spider: Any = None) -> None:
        self._executor.shutdown(wait=True)
