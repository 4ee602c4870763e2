"""The structure filter's best-k search over one language's candidates, as one numba kernel.

The search is that of Tomás et al., *WebMining*, section 2.2 (edit distance under the threshold,
then the chunk-length correlation), narrowed as described in
:func:`matchers.structure.structure_filter._search`: rows compared lowest lower bound first in
growing batches, the ``keep``-th passed row and the best one bounding what is left.

It is one call that releases the GIL for a page's whole search (or holds it, for a short search).
The filter runs in a thread beside the reactor by default, and a thread that lets the GIL go waits
up to the switch interval to have it back: as separate kernels (the bounds, each batch of
distances, each batch of correlations) with numpy between them, a page waited once per kernel
(docs/benchmarks.md (c)).
It runs on one numba thread, as the crawl does, so the batches are plain loops.
"""

from __future__ import annotations

import os

import numba
import numpy as np

from matchers.structure.chunk_correlation import _aligned_text_lengths_banded, _log_pearson, diagonals
from matchers.structure.edit_distance import _INT32_MAX, SCALE, _banded_rev, batch_lower_bounds

_CACHE = os.path.isfile(__file__)

# The first batch: enough rows that ``keep`` good ones are usually among them.
FIRST_BATCH = 32


@numba.njit(cache=_CACHE)
def _similarity(dist: np.ndarray, nq: int, lengths: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`matchers.structure.structure_threshold.similarity`, the same operations in order."""
    out = np.empty(dist.shape[0])
    for k in range(dist.shape[0]):
        t = np.float64(max(lengths[k], nq))
        if t > 0:
            s = 1.0 - (np.float64(dist[k]) / SCALE) / t
            out[k] = min(1.0, max(0.0, s))
        else:
            out[k] = 1.0
    return out


@numba.njit(cache=_CACHE)
def _margin_limit(best: float, longer: int, margin: float) -> int:  # pragma: no cover - compiled
    """:func:`matchers.structure.best_structure.pruning_limits` of one row."""
    if best <= 0:
        return _INT32_MAX
    return np.int64(np.floor((1.0 - best + margin) * np.float64(longer) * SCALE + 1e-9))


@numba.njit(nogil=True, cache=_CACHE)
def best_k_search(
    query, q_hist, flat, offsets, hists, rows, lengths, limits, min_correlation, keep, use_margin, margin, max_cells
):  # pragma: no cover - compiled
    """``(dist, corr, chunks, good)`` of :func:`matchers.structure.structure_filter._search`.

    ``query`` int32 tokens with histogram ``q_hist``; ``flat``/``offsets``/``hists`` the
    store's arrays; ``rows``, ``lengths`` and ``limits`` (scaled, int64) per candidate.
    """
    n = rows.shape[0]
    nq = query.shape[0]
    qr = query[::-1].copy()
    longer = np.maximum(lengths, nq)
    dist = np.full(n, -1, np.int64)
    corr = np.full(n, np.nan)
    chunks = np.zeros(n, np.int64)
    good = np.zeros(n, np.bool_)
    lower = batch_lower_bounds(nq, q_hist, offsets, hists, rows)
    order = np.argsort(lower, kind="mergesort")
    order = order[lower[order] <= limits[order]]
    has_kth = False
    kth_d, kth_t, kth_s = 0, 1, 0.0
    best = 0.0
    pending = np.zeros(0, np.int64)
    pos, size = 0, max(4 * keep, FIRST_BATCH)
    while pos < order.shape[0]:
        batch = order[pos : pos + size]
        pos, size = pos + size, 2 * size
        lim = limits[batch].copy()
        if has_kth or best > 0:
            for j in range(batch.shape[0]):
                if has_kth:
                    lim[j] = min(lim[j], kth_d * longer[batch[j]] // kth_t)
                if best > 0 and use_margin:
                    lim[j] = min(lim[j], _margin_limit(best, longer[batch[j]], margin))
            reach = lower[batch] <= lim
            batch, lim = batch[reach], lim[reach]
            if batch.shape[0] == 0:
                continue
        hit = np.zeros(batch.shape[0], np.bool_)
        for j in range(batch.shape[0]):
            r = rows[batch[j]]
            # The lower bound is within every limit here, so the DP runs on each row.
            d = _banded_rev(flat[offsets[r] : offsets[r + 1]], qr, min(lim[j], _INT32_MAX - 1))
            if d <= lim[j]:
                dist[batch[j]] = d
                hit[j] = True
        pending = np.concatenate((pending, batch[hit]))
        sims = _similarity(dist[pending], nq, lengths[pending])
        by_sim = np.argsort(-sims, kind="mergesort")
        pending, sims = pending[by_sim], sims[by_sim]
        i = 0
        while i < pending.shape[0] and (not has_kth or sims[i] >= kth_s):
            if best > 0 and use_margin and dist[pending[i]] > _margin_limit(best, longer[pending[i]], margin):
                break  # sorted by similarity: the rest are further from the best
            part = pending[i : i + keep]
            i += keep
            for p in part:
                other = flat[offsets[rows[p]] : offsets[rows[p] + 1]]
                dlo, dhi = diagonals(nq, other.shape[0], dist[p])
                if (nq + 1) * (dhi - dlo + 1) <= max_cells:
                    xs, ys = _aligned_text_lengths_banded(query, other, dlo, dhi)
                    chunks[p] = xs.shape[0]
                    corr[p] = _log_pearson(xs, ys)
                good[p] = np.isnan(corr[p]) or corr[p] >= min_correlation
            passed = np.flatnonzero(good)
            if passed.shape[0] == 0:
                continue
            s = _similarity(dist[passed], nq, lengths[passed])
            best = max(best, s.max())
            if passed.shape[0] >= keep:
                k = np.argsort(-s, kind="mergesort")[keep - 1]
                has_kth = True
                kth_d, kth_t, kth_s = dist[passed[k]], longer[passed[k]], s[k]
        pending = pending[i:]
    if best > 0 and use_margin:
        for k in range(n):
            if dist[k] > _margin_limit(best, longer[k], margin):
                good[k] = False
    return dist, corr, chunks, good


@numba.njit(nogil=True, cache=_CACHE)
def search_candidates(
    query, q_hist, flat, offsets, hists, store_lengths, rows, ratio, best_col, use_margin, margin,
    min_correlation, keep, max_cells,
):  # pragma: no cover - compiled
    """:func:`search_candidates_held`, letting the GIL go for the whole search."""
    return search_candidates_held(
        query, q_hist, flat, offsets, hists, store_lengths, rows, ratio, best_col, use_margin, margin,
        min_correlation, keep, max_cells,
    )


@numba.njit(cache=_CACHE)
def search_candidates_held(
    query, q_hist, flat, offsets, hists, store_lengths, rows, ratio, best_col, use_margin, margin,
    min_correlation, keep, max_cells,
):  # pragma: no cover - compiled
    """One language's part of :func:`matchers.structure.structure_filter.structure_filter` with
    ``keep`` > 0, from the candidates' rows to the kept ones, in one call, holding the GIL
    (:func:`search_candidates` lets it go).

    Returns ``(positions, edit_distance, structure_threshold, structure, chunk_correlation,
    aligned_chunks)``: the increasing positions in ``rows`` of the candidates kept and their
    scores.  ``best_col`` is the language's record of each earlier page's best similarity with
    the new page's language (``BestStructure``; rows past its end know nothing), read only with
    ``use_margin``.  The thresholds and margins are those of
    :func:`matchers.structure.structure_threshold.scaled_limits` and
    :func:`matchers.structure.best_structure.pruning_limits`, the same operations in order.

    Why one call: numpy releases the GIL inside most operations on a few thousand elements, and
    a thread that lets it go beside the busy reactor waits up to the switch interval to have it
    back.  With the limits, the records and the narrowing in numpy around the search, a page of
    a large site waited once for each of them.
    """
    n = rows.shape[0]
    nq = query.shape[0]
    lengths = np.empty(n, np.int64)
    threshold = np.empty(n, np.int64)
    limits = np.empty(n, np.int64)
    for k in range(n):
        length = store_lengths[rows[k]]
        lengths[k] = length
        longer = max(length, nq)
        threshold[k] = np.int32(np.floor(ratio * longer * SCALE + 1e-9))
        limits[k] = threshold[k]
        if use_margin and rows[k] < best_col.shape[0]:
            limits[k] = min(limits[k], _margin_limit(best_col[rows[k]], longer, margin))
    dist, corr, chunks, good = best_k_search(
        query, q_hist, flat, offsets, hists, rows, lengths, limits, min_correlation, keep, use_margin, margin,
        max_cells,
    )
    passed = np.flatnonzero(good)
    sims = _similarity(dist[passed], nq, lengths[passed])
    if passed.shape[0] > keep:
        top = np.argsort(-sims, kind="mergesort")[:keep]
        passed, sims = passed[top], sims[top]
        by_row = np.argsort(passed)
        passed, sims = passed[by_row], sims[by_row]
    return (
        passed,
        dist[passed] / SCALE,
        threshold[passed] / SCALE,
        sims,
        corr[passed],
        chunks[passed],
    )
