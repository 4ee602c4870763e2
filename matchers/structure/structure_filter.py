"""The structure filter of Tomás et al., *WebMining*, section 2.2: the weighted edit distance
between two pages' tag sequences under a threshold that grows with the page size
(matchers.structure.edit_distance, matchers.structure.structure_threshold), then the correlation of the lengths of
the text chunks the edit script aligns (matchers.structure.chunk_correlation).

:func:`structure_filter` narrows a new page's candidate sets; it runs wherever the stage puts it
(pipelines.structure_filter): in the structure worker process or in a thread of the crawl.
"""

from __future__ import annotations

import numpy as np

from matchers.gil_hold import holds_short_kernels
from matchers.site.page_index import CandidateSet, SiteIndex
from matchers.structure.best_k_search import search_candidates, search_candidates_held
from matchers.structure.best_structure import pruning_limits
from matchers.structure.chunk_correlation import MAX_CELLS, batch_chunk_correlation
from matchers.structure.edit_distance import SCALE
from matchers.structure.structure_threshold import longer_length, scaled_limits, similarity
from matchers.structure.tag_store import TagSequenceStore


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
    are wanted (the store keeps no more), so the search is a best-k search (:func:`_search`):
    once ``keep`` candidates have passed, a candidate is only compared under the distance that
    would make it at least as similar as the ``keep``-th of them.  The result is that of
    scoring every pair.

    With ``margin`` set, ``lang`` the new page's language and ``row`` its row in that language's
    index: an earlier page whose best candidate in ``lang`` so far has similarity ``s`` is only
    compared under the distance that brings the new page within ``margin`` of ``s``
    (matchers.structure.best_structure); afterwards the kept candidates raise both pages' records.  Both
    run on the caller's thread, which must be the only one to call this for the index.
    """
    pruning = margin is not None and lang is not None
    query = _own_codes(index, lang, row, len(tokens))
    for cand in candidates:
        other = index.index(cand.lang)
        if keep > 0:
            if query is None:
                codes = other.tags.encode(tokens)
                query = (codes, other.tags.query_histogram(codes, encoded=True))
            positions, *scores = _search(other.tags, query, cand.rows, ratio, min_correlation, keep,
                                         other.best_structure.column(lang) if pruning else None, margin)
            cand.take(positions)
            cand.add_scores(**dict(zip(SCORES, scores, strict=True)))
        else:
            _score_all(other.tags, tokens, cand, ratio, min_correlation,
                       other.best_structure.get(lang, cand.rows) if pruning else None, margin)
        if pruning and len(cand):
            kept = cand.scores["structure"]
            other.best_structure.raise_to(lang, cand.rows, kept)
            if row is not None:
                index.index(lang).best_structure.raise_to(cand.lang, np.array([row]), np.array([kept.max()]))


def _own_codes(
    index: SiteIndex, lang: str | None, row: int | None, n_tokens: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """The new page's tag sequence in the site's codes and its histogram, as its own language's
    store holds them, or None when the page is not registered there.

    Every language of a site shares one numbering of tags, and the page was registered before it
    is filtered, so its stored row is its tokens encoded, each of its tags with a code: the very
    query an encoding of its tokens gives, without encoding it again for each language.  (Past
    ``MAX_TAGS`` names its late tags read ``OVERFLOW``, as they do when the decision compares
    stored rows, where an encoding would give ``UNSEEN``; matchers.structure.tag_codes.)"""
    if lang is None or row is None or lang not in index.languages:
        return None
    store = index.index(lang).tags
    if not 0 <= row < len(store) or int(store.lengths[row]) != n_tokens:
        return None
    return store.tokens(row), store.histogram(row)


# A search that lets the GIL go makes the filter's thread wait to have it back from the busy
# reactor, up to the switch interval (50 ms in a crawl) and several milliseconds on average, for
# a search of a few hundred microseconds on a small site.  Searches whose work (candidates times
# the squared length of the new page's tag sequence, which bounds the banded distances' cells)
# is at most this, about 2 ms of the search, hold the GIL.
HOLD_GIL_WORK = 8_000_000

# The scores the filter adds to each candidate it keeps.
SCORES = ("edit_distance", "structure_threshold", "structure", "chunk_correlation", "aligned_chunks")


def _score_all(
    store: TagSequenceStore, tokens: np.ndarray, cand: CandidateSet, ratio: float, min_correlation: float,
    best: np.ndarray | None, margin: float | None,
) -> None:
    """Score every candidate (:func:`_all_within`) and keep those that pass both tests; with
    ``best`` (the candidates' records) and ``margin``, each under its pruning limit too."""
    other_len = store.lengths[cand.rows]
    limits = scaled_limits(len(tokens), other_len, ratio)
    search = limits.astype(np.int64)
    if best is not None and margin is not None:
        search = np.minimum(search, pruning_limits(best, longer_length(len(tokens), other_len), margin, SCALE))
    dist, corr, chunks, good = _all_within(store, tokens, cand.rows, search, min_correlation)
    known = dist >= 0
    cand.add_scores(
        edit_distance=np.where(known, dist / SCALE, np.nan),
        structure_threshold=limits / SCALE,
        structure=np.where(known, similarity(np.maximum(dist, 0), len(tokens), other_len), 0.0),
        chunk_correlation=corr,
        aligned_chunks=chunks,
    )
    cand.narrow(good)


_Scores = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _all_within(
    store: TagSequenceStore, tokens: np.ndarray, rows: np.ndarray, limits: np.ndarray, min_correlation: float
) -> _Scores:
    """Distance of every row under its limit, correlation of every row within it."""
    n = len(rows)
    query = store.encode(tokens)
    d = store.distances(query, rows, limits, encoded=True).astype(np.int64)
    dist = np.where(d <= limits, d, -1)  # -1: not within the limit
    corr = np.full(n, np.nan)
    chunks = np.zeros(n, dtype=np.int64)
    found = np.flatnonzero(dist >= 0)
    corr[found], chunks[found] = batch_chunk_correlation(query, *store.arrays(), rows[found], dist[found])
    good = (dist >= 0) & (np.isnan(corr) | (corr >= min_correlation))
    return dist, corr, chunks, good


def _search(
    store: TagSequenceStore,
    query: tuple[np.ndarray, np.ndarray],
    rows: np.ndarray,
    ratio: float,
    min_correlation: float,
    keep: int,
    best: np.ndarray | None,
    margin: float | None,
) -> tuple[np.ndarray, ...]:
    """The ``keep`` most similar rows that pass both tests, as :func:`_all_within` would rank
    them: ``(positions in rows, *scores)`` in the order of :data:`SCORES`.  ``query``: the new
    page's tokens in the site's codes and their histogram.

    Rows are compared in batches, lowest lower bound first, so that good candidates turn up
    early.  Once ``keep`` rows have passed, the ``keep``-th of them (distance ``d_k``, longer
    length ``T_k``) bounds the rest: row ``r`` (longer length ``T_r``) can only be at least as
    similar if its distance is ``<= d_k * T_r / T_k`` (exact in integers, ties included), a
    narrower band with an earlier exit for the DP and more rows cut by the lower bound.  On
    templated sites most size-passing pairs lie near the threshold, so this is where the time
    goes.  Correlations are computed most similar first, only for rows that can still enter the
    best ``keep``.

    With ``best`` (the earlier pages' records, matchers.structure.best_structure) and
    ``margin``, an earlier page is only compared under the distance that brings the new page
    within ``margin`` of its best so far, and the new page's own best bounds its search the same
    way: once a row with similarity ``s`` has passed, only rows that can come within ``margin``
    of ``s`` are compared, and of the rows that pass, only those within ``margin`` of the best
    are kept.  With ``keep`` above 1 the ``keep``-th row of a templated site is usually a
    same-template page near the threshold, so the ``keep``-th alone barely narrows the search;
    the best usually is the translation, far below it (docs/benchmarks.md, "Structure search").

    The limits, the search and the choice of the kept rows run as one numba kernel
    (matchers.structure.best_k_search.search_candidates), so a page's search in the filter's
    thread lets the GIL go and waits to have it back once per language; there a search whose
    work is at most :data:`HOLD_GIL_WORK` holds the GIL instead (matchers.gil_hold).
    """
    codes, hist = query
    flat, offsets = store.arrays()
    use_margin = best is not None and margin is not None
    short = holds_short_kernels() and len(rows) * len(codes) ** 2 <= HOLD_GIL_WORK
    search = search_candidates_held if short else search_candidates
    return search(
        codes, hist, flat, offsets, store.histograms(), store.lengths,
        np.ascontiguousarray(rows, dtype=np.int64), float(ratio),
        best if use_margin else np.zeros(0), use_margin, float(margin) if use_margin else 0.0,
        float(min_correlation), int(keep), MAX_CELLS,
    )
