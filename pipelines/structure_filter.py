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
from matchers.tag_store import TagSequenceStore
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
    are wanted (the store keeps no more), so the search is a best-k search (:func:`_best_k`):
    once ``keep`` candidates have passed, a candidate is only compared under the distance that
    would make it at least as similar as the ``keep``-th of them.  The result is that of
    scoring every pair.

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
        search = limits.astype(np.int64)
        if pruning:
            best = other.best_structure.get(lang, cand.rows)
            search = np.minimum(search, pruning_limits(best, longer_length(len(tokens), other_len), margin, SCALE))
        if keep > 0:
            dist, corr, chunks, good = _best_k(store, tokens, cand.rows, other_len, search, min_correlation, keep)
        else:
            dist, corr, chunks, good = _all_within(store, tokens, cand.rows, search, min_correlation)
        known = dist >= 0
        structure = np.where(known, similarity(np.maximum(dist, 0), len(tokens), other_len), 0.0)
        if keep and np.count_nonzero(good) > keep:
            best_rows = np.flatnonzero(good)[np.argsort(-structure[good], kind="stable")][:keep]
            good = np.zeros(len(cand), dtype=bool)
            good[best_rows] = True
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


_Scores = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _all_within(
    store: TagSequenceStore, tokens: np.ndarray, rows: np.ndarray, limits: np.ndarray, min_correlation: float
) -> _Scores:
    """Distance of every row under its limit, correlation of every row within it."""
    n = len(rows)
    d = store.distances(tokens, rows, limits).astype(np.int64)
    dist = np.where(d <= limits, d, -1)  # -1: not within the limit
    corr = np.full(n, np.nan)
    chunks = np.zeros(n, dtype=np.int64)
    found = np.flatnonzero(dist >= 0)
    corr[found], chunks[found] = batch_chunk_correlation(tokens, *store.arrays(), rows[found], dist[found])
    good = (dist >= 0) & (np.isnan(corr) | (corr >= min_correlation))
    return dist, corr, chunks, good


def _best_k(
    store: TagSequenceStore,
    tokens: np.ndarray,
    rows: np.ndarray,
    lengths: np.ndarray,
    limits: np.ndarray,
    min_correlation: float,
    keep: int,
) -> _Scores:
    """Enough of :func:`_all_within` to know the ``keep`` most similar rows that pass both tests.

    Rows are compared in batches, lowest lower bound first, so that good candidates turn up
    early.  Once ``keep`` rows have passed, the ``keep``-th of them (distance ``d_k``, longer
    length ``T_k``) bounds the rest: row ``r`` (longer length ``T_r``) can only be at least as
    similar if its distance is ``<= d_k * T_r / T_k`` (exact in integers, ties included), a
    narrower band with an earlier exit for the DP and more rows cut by the lower bound.  On
    templated sites most size-passing pairs lie near the threshold, so this is where the time
    goes.  Correlations are computed most similar first, only for rows that can still enter the
    best ``keep``.  Rows never compared keep distance -1.
    """
    n = len(rows)
    nq = len(tokens)
    longer = longer_length(nq, lengths)
    dist = np.full(n, -1, dtype=np.int64)
    corr = np.full(n, np.nan)
    chunks = np.zeros(n, dtype=np.int64)
    good = np.zeros(n, dtype=bool)
    flat, offsets = store.arrays()
    lower = store.lower_bounds(tokens, rows)
    order = np.argsort(lower, kind="stable")
    order = order[lower[order] <= limits[order]]  # the others cannot come within their limit
    kth: tuple[int, int, float] | None = None  # (distance, longer length, similarity) of the keep-th
    pending = np.zeros(0, dtype=np.int64)  # within the limit, correlation not computed yet
    pos, size = 0, max(4 * keep, _FIRST_BATCH)
    while pos < len(order):
        batch = order[pos : pos + size]
        pos, size = pos + size, 2 * size
        lim = limits[batch]
        if kth is not None:
            lim = np.minimum(lim, kth[0] * longer[batch] // kth[1])
            reach = lower[batch] <= lim
            batch, lim = batch[reach], lim[reach]
            if not len(batch):
                continue
        d = store.distances(tokens, rows[batch], lim).astype(np.int64)
        hit = d <= lim
        dist[batch[hit]] = d[hit]
        pending = np.concatenate([pending, batch[hit]])
        sims = similarity(dist[pending], nq, lengths[pending])
        by_sim = np.argsort(-sims, kind="stable")
        pending, sims = pending[by_sim], sims[by_sim]
        i = 0
        while i < len(pending) and (kth is None or sims[i] >= kth[2]):
            part = pending[i : i + keep]
            i += keep
            corr[part], chunks[part] = batch_chunk_correlation(tokens, flat, offsets, rows[part], dist[part])
            good[part] = np.isnan(corr[part]) | (corr[part] >= min_correlation)
            passed = np.flatnonzero(good)
            if len(passed) >= keep:
                s = similarity(dist[passed], nq, lengths[passed])
                k = int(np.argsort(-s, kind="stable")[keep - 1])
                kth = (int(dist[passed[k]]), int(longer[passed[k]]), float(s[k]))
        pending = pending[i:]
    return dist, corr, chunks, good


# The first batch of the best-k search: enough rows that `keep` good ones are usually among them.
_FIRST_BATCH = 32


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
