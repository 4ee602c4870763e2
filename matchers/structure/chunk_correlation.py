"""Correlation of the lengths of aligned text chunks of two tag sequences.

Resnik & Smith, *The Web as a Parallel Corpus* (STRAND, reference [7] of Tomás et al.,
*WebMining*, section 2.2), judge a structural alignment not only by how many tokens it leaves
unaligned but also by "the correlation r of the lengths of aligned nonmarkup chunks": in a
translation a long paragraph faces a long paragraph.  Unrelated pages built from one repetitive
template (link lists, sitemaps, archives) can be close in edit distance while their text lengths
do not correlate at all, so the structure filter also requires ``r`` above a threshold.

The alignment is the optimal one of the weighted edit distance (:mod:`matchers.structure.edit_distance`),
recovered by a traceback over a direction matrix.  It is computed only for the pairs that already
passed the distance threshold, and only on the diagonals their distance allows; pairs too
large for the matrix get no correlation (NaN), which the filter treats as no evidence either way.  Lengths are compared as ``log(1 + n)``
so one very long chunk cannot decide the coefficient alone.
"""

from __future__ import annotations

import os

import numba
import numpy as np

from matchers.structure.edit_distance import SCALE, _cost

# numba caches compiled code next to the source file; a module imported from a zipped egg
# (a Scrapyd deployment) has none, so there it compiles once per process instead.
_CACHE = os.path.isfile(__file__)

MAX_CELLS = 16_000_000  # bytes of directions one alignment may take (rows x band width)
MIN_CHUNKS = 3


@numba.njit(nogil=True, cache=_CACHE, boundscheck=False)
def _aligned_text_lengths_banded(a: np.ndarray, b: np.ndarray, dlo: int, dhi: int) -> tuple[np.ndarray, np.ndarray]:
    """Word counts of the text chunks paired by an optimal alignment, searched on the diagonals
    ``dlo <= j - i <= dhi`` (:func:`diagonals`).

    Exact when every path of the distance's cost stays on them; the alignment is then the one
    the whole matrix gives, ties included: a cell off those diagonals lies on no such path, so it
    is never the best predecessor of a cell that does.  Band cell ``(i, t)`` is matrix cell
    ``(i, i + t + dlo)``; each row's valid ``t`` range is computed once so the inner loop has no
    bounds tests.
    """
    n = a.shape[0]
    m = b.shape[0]
    k = -dlo  # band column of the main diagonal
    w = dhi - dlo + 1
    inf = np.int32(1 << 29)
    move = np.zeros((n + 1, w), dtype=np.uint8)
    prev = np.full(w + 1, inf, dtype=np.int32)  # one guard cell at t = w
    cur = np.full(w + 1, inf, dtype=np.int32)
    for j in range(min(m, dhi) + 1):
        prev[j + k] = SCALE * j
        move[0, j + k] = 2
    for i in range(1, n + 1):
        x = a[i - 1]
        t_lo = max(0, k - i)  # j >= 0
        t_hi = min(w - 1, m + k - i)  # j <= m
        for t in range(t_lo):
            cur[t] = inf
        t0 = t_lo
        if k - i >= 0:  # j == 0 lies in the band: only deletions reach it
            cur[t_lo] = SCALE * i
            move[i, t_lo] = 1
            t0 = t_lo + 1
        left = cur[t0 - 1] if t0 >= 1 else inf
        for t in range(t0, t_hi + 1):
            j = i + t - k
            best = prev[t] + _cost(x, b[j - 1])
            mv = 0
            up = prev[t + 1] + SCALE
            if up < best:
                best = up
                mv = 1
            lf = left + SCALE
            if lf < best:
                best = lf
                mv = 2
            cur[t] = best
            move[i, t] = mv
            left = best
        for t in range(t_hi + 1, w + 1):
            cur[t] = inf
        prev, cur = cur, prev
    cnt = 0
    xs = np.empty(min(n, m) + 1, dtype=np.int64)
    ys = np.empty(min(n, m) + 1, dtype=np.int64)
    i = n
    j = m
    while i > 0 and j > 0:
        mv = move[i, j - i + k]
        if mv == 0:
            if a[i - 1] > 0 and b[j - 1] > 0:
                xs[cnt] = a[i - 1]
                ys[cnt] = b[j - 1]
                cnt += 1
            i -= 1
            j -= 1
        elif mv == 1:
            i -= 1
        else:
            j -= 1
    return xs[:cnt][::-1].copy(), ys[:cnt][::-1].copy()


@numba.njit(inline="always")
def diagonals(n: int, m: int, distance: int) -> tuple[int, int]:  # pragma: no cover - compiled
    """The diagonals ``d = j - i`` a path of scaled cost ``distance`` can use between sequences of
    ``n`` and ``m`` tokens (Ukkonen): reaching diagonal ``d`` and then the end's diagonal
    ``m - n`` takes ``|d| + |d - (m - n)|`` insertions and deletions at ``SCALE`` each, so ``d``
    lies within ``(distance // SCALE - |m - n|) // 2`` of the diagonals between 0 and ``m - n``."""
    delta = m - n
    slack = max(0, (distance // SCALE - abs(delta)) // 2)
    return min(0, delta) - slack, max(0, delta) + slack


@numba.njit(nogil=True, cache=_CACHE)
def _log_pearson(xs: np.ndarray, ys: np.ndarray) -> float:
    n = xs.shape[0]
    if n < MIN_CHUNKS:
        return np.nan
    sx = sy = sxx = syy = sxy = 0.0
    for k in range(n):
        x = np.log1p(xs[k])
        y = np.log1p(ys[k])
        sx += x
        sy += y
        sxx += x * x
        syy += y * y
        sxy += x * y
    vx = sxx - sx * sx / n
    vy = syy - sy * sy / n
    if vx <= 1e-12 or vy <= 1e-12:
        return np.nan
    return (sxy - sx * sy / n) / np.sqrt(vx * vy)


@numba.njit(nogil=True, parallel=True, cache=_CACHE)
def _batch(query, flat, offsets, rows, distances, max_cells):  # pragma: no cover - compiled
    r = np.full(rows.shape[0], np.nan)
    n = np.zeros(rows.shape[0], dtype=np.int64)
    for p in numba.prange(rows.shape[0]):
        row = rows[p]
        other = flat[offsets[row] : offsets[row + 1]]
        dlo, dhi = diagonals(query.shape[0], other.shape[0], distances[p])
        if (query.shape[0] + 1) * (dhi - dlo + 1) > max_cells:
            continue
        xs, ys = _aligned_text_lengths_banded(query, other, dlo, dhi)
        n[p] = xs.shape[0]
        r[p] = _log_pearson(xs, ys)
    return r, n


def batch_chunk_correlation(
    query: np.ndarray, flat: np.ndarray, offsets: np.ndarray, rows: np.ndarray, distances: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`chunk_correlation` of ``query`` against stored rows (flat tokens + offsets), in parallel.

    ``distances`` are the rows' scaled edit distances to ``query`` (from the structure filter):
    they bound the diagonals the alignment can lie on, so only those are computed.
    """
    if len(rows) == 0:
        return np.empty(0), np.empty(0, dtype=np.int64)
    return _batch(
        np.ascontiguousarray(query, dtype=np.int32), flat, offsets, np.ascontiguousarray(rows, dtype=np.int64),
        np.asarray(distances, dtype=np.int64), MAX_CELLS,
    )


def aligned_text_lengths(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Word counts of the text chunks the optimal alignment pairs, or None when too large."""
    if (len(a) + 1) * (len(a) + len(b) + 1) > MAX_CELLS:
        return None
    return _aligned_text_lengths_banded(  # every diagonal: the whole matrix
        np.ascontiguousarray(a, dtype=np.int32), np.ascontiguousarray(b, dtype=np.int32), -len(a), len(b)
    )


def chunk_correlation(a: np.ndarray, b: np.ndarray) -> tuple[float, int]:
    """``(r, n)``: Pearson r of log chunk lengths over the ``n`` aligned text chunks.

    r is NaN when it is undefined: too few chunks, constant lengths, or pages too large.
    """
    aligned = aligned_text_lengths(a, b)
    if aligned is None:
        return float("nan"), 0
    xs, ys = aligned
    return float(_log_pearson(xs, ys)), len(xs)
