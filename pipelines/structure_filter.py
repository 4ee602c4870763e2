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
from matchers.best_structure import pruning_limits
from matchers.chunk_correlation import batch_chunk_correlation
from matchers.edit_distance import SCALE
from matchers.page_index import CandidateSet, SiteIndex
from matchers.structure_threshold import longer_length, scaled_limits, similarity
from pipelines.base import MatchingStage


def structure_filter(
    index: SiteIndex,
    tokens: np.ndarray,
    candidates: list[CandidateSet],
    ratio: float,
    min_correlation: float,
    keep: int = 0,
    *,
    lang: str | None = None,
    row: int | None = None,
    margin: float | None = None,
) -> None:
    """Score and narrow ``candidates`` in place: distance threshold, then chunk-length correlation.

    With ``keep`` > 0 only the ``keep`` most similar candidates per language that pass both tests
    are wanted (the store keeps no more), which allows two savings with the same result:

    * the correlation is computed best-first, a few candidates at a time, until ``keep`` passed;
    * distances are first computed under half the threshold, where the banded kernel is several
      times cheaper (narrower band, earlier exit, more pairs cut by the lower bound).  If ``keep``
      candidates pass there, no other candidate can be more similar than they are, and the full
      threshold is never needed; otherwise the remaining candidates get it.

    With ``margin`` set, ``lang`` the new page's language and ``row`` its row in that language's
    index: an earlier page whose best candidate in ``lang`` so far has similarity ``s`` is only
    compared under the distance that brings the new page within ``margin`` of ``s``
    (matchers.best_structure); afterwards the kept candidates raise both pages' records.  Both
    run on the caller's thread, which must be the only one to call this for the index.
    """
    pruning = margin is not None and lang is not None
    for cand in candidates:
        other = index.index(cand.lang)
        store = other.tags
        other_len = store.lengths[cand.rows]
        limits = scaled_limits(len(tokens), other_len, ratio)
        stages = [scaled_limits(len(tokens), other_len, ratio * _FIRST_STAGE), limits] if keep > 0 else [limits]
        if pruning:
            prune = pruning_limits(
                other.best_structure.get(lang, cand.rows), longer_length(len(tokens), other_len), margin, SCALE
            )
            stages = [np.minimum(stage, prune).astype(np.int32) for stage in stages]
        n = len(cand)
        dist = np.full(n, -1, dtype=np.int64)  # -1: not within any limit tried
        corr = np.full(n, np.nan)
        chunks = np.zeros(n, dtype=np.int64)
        good = np.zeros(n, dtype=bool)
        tried = np.full(n, -1, dtype=np.int64)  # the largest limit each row has been computed under
        for stage in stages:
            todo = np.flatnonzero((dist < 0) & (stage > tried))
            if not len(todo):
                break
            d = store.distances(tokens, cand.rows[todo], stage[todo]).astype(np.int64)
            tried[todo] = stage[todo]
            found = todo[d <= stage[todo]]
            dist[found] = d[d <= stage[todo]]
            # Correlation for the new ones, most similar first, until `keep` have passed overall.
            sims = similarity(dist[found], len(tokens), other_len[found])
            found = found[np.argsort(-sims, kind="stable")]
            step = keep if keep > 0 else max(len(found), 1)
            for start in range(0, len(found), step):
                if keep and np.count_nonzero(good) >= keep:
                    break
                part = found[start : start + step]
                corr[part], chunks[part] = batch_chunk_correlation(tokens, *store.arrays(), cand.rows[part], dist[part])
                good[part] = np.isnan(corr[part]) | (corr[part] >= min_correlation)
            if keep and np.count_nonzero(good) >= keep:
                break
        known = dist >= 0
        structure = np.where(known, similarity(np.maximum(dist, 0), len(tokens), other_len), 0.0)
        if keep and np.count_nonzero(good) > keep:
            best = np.flatnonzero(good)[np.argsort(-structure[good], kind="stable")][:keep]
            good = np.zeros(n, dtype=bool)
            good[best] = True
        cand.add_scores(
            edit_distance=np.where(known, dist / SCALE, np.nan),
            structure_threshold=limits / SCALE,
            structure=structure,
            chunk_correlation=corr,
            aligned_chunks=chunks,
        )
        cand.narrow(good)
        if pruning and len(cand):
            kept = cand.scores["structure"]
            other.best_structure.raise_to(lang, cand.rows, kept)
            if row is not None:
                index.index(lang).best_structure.raise_to(cand.lang, np.array([row]), np.array([kept.max()]))


# The first, cheaper distance limit, as a fraction of the threshold (see structure_filter).
_FIRST_STAGE = 0.5


def _timed(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> float:
    """Run ``fn(*args, **kwargs)``; return the CPU seconds this thread spent in it."""
    t0 = time.thread_time()
    fn(*args, **kwargs)
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
        margin = self.config.structure_best_margin
        where = index.locate(item.url)
        kwargs = {"lang": item.lang, "row": where[1] if where else None, "margin": margin if margin < 1.0 else None}
        cpu = await asyncio.get_running_loop().run_in_executor(
            self._executor, _timed, structure_filter, args, kwargs
        )
        self.stats.inc_value("bitext/time/structure_cpu_ms", int(cpu * 1000))
        item.candidates = [c for c in item.candidates if len(c)]
        self.stats.inc_value("bitext/candidates/structure", sum(len(c) for c in item.candidates))
        return item

    def close_spider(self, spider: Any = None) -> None:
        self._executor.shutdown(wait=True)
