"""Structure filter stage: weighted tag-sequence edit distance under a threshold that grows with
the page size (matchers.edit_distance, matchers.structure_threshold), then the correlation of the
aligned text-chunk lengths (matchers.chunk_correlation).

The filter runs in a process of its own (``BITEXT_STRUCTURE_WORKER``, default on).  In a thread
of the crawl process its numba kernels released the GIL, but every step between them had to win
the GIL back from the reactor, which holds it nearly all the time: at 3,183 pages the thread was
busy 30-35 s of wall time for 6.5 s of CPU, and pages queued behind it.  The crawl gained less
than that suggests (docs/benchmarks.md (c)): the reactor, not this filter, sets its pace.

The worker keeps its own copy of each site's tag sequences and best-so-far records
(:class:`_SiteTags`): each request carries the rows the crawl process registered since the
previous one, in registration order, and one worker answers the requests one at a time in the
order they were sent, so it computes what the thread computed.

If the worker dies, the stage logs it, counts ``bitext/errors/structure_worker`` and goes on in a
thread of the crawl process, whose records start empty (it prunes less, it loses nothing).
With ``BITEXT_STRUCTURE_WORKER=False`` it runs in that thread from the start: one thread, and one
numba thread in it, since numba's default threading layer must not be entered from two threads
at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np

from bitext_spider.cpu_stat import CpuStat
from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from bitext_spider.worker_process import WorkerChannel, WorkerDied
from matchers.best_structure import BestStructure, pruning_limits
from matchers.chunk_correlation import batch_chunk_correlation
from matchers.edit_distance import SCALE
from matchers.page_index import CandidateSet, SiteIndex
from matchers.structure_threshold import longer_length, scaled_limits, similarity
from matchers.tag_store import TagSequenceStore
from pipelines.base import MatchingStage

logger = logging.getLogger(__name__)


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
            dist, corr, chunks, good = _best_k(
                store, tokens, cand.rows, other_len, search, min_correlation, keep, margin if pruning else None
            )
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
    margin: float | None = None,
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

    With ``margin``, the new page's own best so far bounds the search the way an earlier page's
    does in :func:`matchers.best_structure.pruning_limits`: once a row with similarity ``s`` has
    passed, only rows that can come within ``margin`` of ``s`` are compared, and of the rows
    that pass, only those within ``margin`` of the best are kept.  With ``keep`` above 1 the
    ``keep``-th row of a templated site is usually a same-template page near the threshold, so
    the ``keep``-th alone barely narrows the search; the best usually is the translation, far
    below it (docs/benchmarks.md (c), eighth session).
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
    best = 0.0  # similarity of the best row that passed both tests (0: none yet)
    pending = np.zeros(0, dtype=np.int64)  # within the limit, correlation not computed yet
    pos, size = 0, max(4 * keep, _FIRST_BATCH)
    while pos < len(order):
        batch = order[pos : pos + size]
        pos, size = pos + size, 2 * size
        lim = limits[batch]
        if kth is not None or best > 0:
            if kth is not None:
                lim = np.minimum(lim, kth[0] * longer[batch] // kth[1])
            if best > 0 and margin is not None:
                lim = np.minimum(lim, _margin_limits(best, longer[batch], margin))
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
            if best > 0 and margin is not None and dist[pending[i]] > _margin_limits(best, longer[pending[i]], margin):
                break  # sorted by similarity: the rest are further from the best
            part = pending[i : i + keep]
            i += keep
            corr[part], chunks[part] = batch_chunk_correlation(tokens, flat, offsets, rows[part], dist[part])
            good[part] = np.isnan(corr[part]) | (corr[part] >= min_correlation)
            passed = np.flatnonzero(good)
            if not len(passed):
                continue
            s = similarity(dist[passed], nq, lengths[passed])
            best = max(best, float(s.max()))
            if len(passed) >= keep:
                k = int(np.argsort(-s, kind="stable")[keep - 1])
                kth = (int(dist[passed[k]]), int(longer[passed[k]]), float(s[k]))
        pending = pending[i:]
    if best > 0 and margin is not None:
        good &= dist <= _margin_limits(best, longer, margin)
    return dist, corr, chunks, good


def _margin_limits(best: float, longer: Any, margin: float) -> Any:
    """Scaled distance under which a row comes within ``margin`` of similarity ``best``."""
    return pruning_limits(np.full(np.shape(longer), best), np.asarray(longer), margin, SCALE)


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
    # one thread, beside the reactor.
    numba.set_num_threads(1)


class _LanguageTags:
    """What the structure filter reads of one language's index: tag sequences, best-so-far records."""

    def __init__(self) -> None:
        self.tags = TagSequenceStore()
        self.best_structure = BestStructure()


class _SiteTags:
    """The worker's copy of a site's index, as far as :func:`structure_filter` reads it."""

    def __init__(self) -> None:
        self.languages: dict[str, _LanguageTags] = {}

    def index(self, lang: str) -> _LanguageTags:
        return self.languages[lang]

    def add_rows(self, new_rows: dict[str, tuple[int, list[np.ndarray]]]) -> None:
        for lang, (start, sequences) in new_rows.items():
            tags = self.languages.setdefault(lang, _LanguageTags()).tags
            if start != len(tags):
                # Rows are numbered by the crawl process; a gap would pair the wrong pages.
                raise RuntimeError(f"structure worker out of step: {lang} row {start}, has {len(tags)}")
            for tokens in sequences:
                tags.add(tokens)


# The worker process's sites (a worker's initializer can only leave state at module level).  It is
# set in the worker process only, never in the crawl process.
_worker_sites: dict[str, _SiteTags] | None = None

_Request = tuple[str, dict[str, tuple[int, list[np.ndarray]]], np.ndarray, list[tuple[str, np.ndarray]]]
_Answer = tuple[float, list[tuple[np.ndarray, dict[str, np.ndarray]]]]


def _init_worker() -> None:
    global _worker_sites
    _worker_sites = {}
    _one_numba_thread()


def _filter_in_worker(request: _Request, params: tuple[Any, ...], kwargs: dict[str, Any]) -> _Answer:
    """:func:`structure_filter` on the worker's copy of the site: per candidate set, the positions
    of the rows kept and their scores (the size scores stay in the crawl process)."""
    assert _worker_sites is not None, "the worker initializer did not run"
    t0 = time.thread_time()
    site, new_rows, tokens, wanted = request
    state = _worker_sites.setdefault(site, _SiteTags())
    state.add_rows(new_rows)
    candidates = [CandidateSet(lang, rows) for lang, rows in wanted]
    structure_filter(state, tokens, candidates, *params, **kwargs)  # type: ignore[arg-type]
    answers = [(_positions(rows, c.rows), c.scores) for (_, rows), c in zip(wanted, candidates, strict=True)]
    return time.thread_time() - t0, answers


def _positions(rows: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Where the ``kept`` rows are in ``rows`` (kept is a subsequence of rows)."""
    if len(rows) < 2 or bool(np.all(rows[1:] > rows[:-1])):
        return np.searchsorted(rows, kept)  # the usual case: rows in registration order
    return np.flatnonzero(np.isin(rows, kept, assume_unique=True))


class StructureFilterPipeline(MatchingStage):
    def __init__(self, runtime: BitextRuntime) -> None:
        super().__init__(runtime)
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="bitext-structure", initializer=_one_numba_thread
        )
        self._channel: WorkerChannel | None = None
        self._use_worker = self.config.structure_worker
        self._sent: dict[tuple[str, str], int] = {}  # (site, language) -> rows sent to the worker
        self._cpu = CpuStat("bitext/time/structure_cpu_ms")

    def open_spider(self, spider: Any = None) -> None:
        # Start the worker with the crawl: its imports overlap the first requests.
        if self._use_worker:
            self._worker()

    def _worker(self) -> WorkerChannel:
        if self._channel is None:
            self._channel = WorkerChannel("bitext-structure", _init_worker)
        return self._channel

    def worker_pid(self) -> int | None:
        return self._channel.pid if self._channel is not None else None

    async def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        if not item.candidates or item.features is None:
            return item
        index = self.runtime.sites[item.site].index
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
            cpu = await asyncio.get_running_loop().run_in_executor(
                self._executor, _timed, structure_filter, (index, item.features.tokens, item.candidates, *params), kwargs
            )
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
        request: _Request = (
            item.site,
            self._new_rows(item.site, index),
            item.features.tokens,
            [(c.lang, c.rows) for c in item.candidates],
        )
        try:
            cpu, answers = await self._worker().call(_filter_in_worker, request, params, kwargs)
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
