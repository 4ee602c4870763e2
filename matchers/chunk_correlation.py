"""Correlation of the lengths of aligned text chunks of two tag sequences.

Resnik & Smith, *The Web as a Parallel Corpus* (STRAND, reference [7] of Tomás et al.,
*WebMining*, section 2.2), judge a structural alignment not only by how many tokens it leaves
unaligned but also by "the correlation r of the lengths of aligned nonmarkup chunks": in a
translation a long paragraph faces a long paragraph.  Unrelated pages built from one repetitive
template (link lists, sitemaps, archives) can be close in edit distance while their text lengths
do not correlate at all, so the structure filter also requires ``r`` above a threshold.

The alignment is the optimal one of the weighted edit distance (:mod:`matchers.edit_distance`),
recovered by a traceback over a full direction matrix.  It is computed only for the few pairs
that already passed the distance threshold; pairs too large for the matrix get no correlation
(NaN), which the filter treats as no evidence either way.  Lengths are compared as ``log(1 + n)``
so one very long chunk cannot decide the coefficient alone.
"""

from __future__ import annotations

import numba
import numpy as np

from matchers.edit_distance import SCALE, _cost

MAX_CELLS = 16_000_000  # 16 MB of directions: about 4,000 x 4,000 tokens
MIN_CHUNKS = 3


@numba.njit(nogil=True, cache=True)
def _aligned_text_lengths(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = a.shape[0]
    m = b.shape[0]
    # 0 = diagonal (match/substitute), 1 = up (delete from a), 2 = left (insert from b)
    move = np.empty((n + 1, m + 1), dtype=np.uint8)
    prev = np.empty(m + 1, dtype=np.int64)
    cur = np.empty(m + 1, dtype=np.int64)
    for j in range(m + 1):
        prev[j] = SCALE * j
        move[0, j] = 2
    for i in range(1, n + 1):
        cur[0] = SCALE * i
        move[i, 0] = 1
        x = a[i - 1]
        for j in range(1, m + 1):
            best = prev[j - 1] + _cost(x, b[j - 1])
            mv = 0
            if prev[j] + SCALE < best:
                best = prev[j] + SCALE
                mv = 1
            if cur[j - 1] + SCALE < best:
                best = cur[j - 1] + SCALE
                mv = 2
            cur[j] = best
            move[i, j] = mv
        prev, cur = cur, prev
    k = 0
    xs = np.empty(min(n, m) + 1, dtype=np.int64)
    ys = np.empty(min(n, m) + 1, dtype=np.int64)
    i = n
    j = m
    while i > 0 and j > 0:
        mv = move[i, j]
        if mv == 0:
            if a[i - 1] > 0 and b[j - 1] > 0:
                xs[k] = a[i - 1]
                ys[k] = b[j - 1]
                k += 1
            i -= 1
            j -= 1
        elif mv == 1:
            i -= 1
        else:
            j -= 1
    return xs[:k][::-1].copy(), ys[:k][::-1].copy()


def aligned_text_lengths(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Word counts of the text chunks the optimal alignment pairs, or None when too large."""
    if (len(a) + 1) * (len(b) + 1) > MAX_CELLS:
        return None
    return _aligned_text_lengths(np.ascontiguousarray(a, dtype=np.int32), np.ascontiguousarray(b, dtype=np.int32))


def chunk_correlation(a: np.ndarray, b: np.ndarray) -> tuple[float, int]:
    """``(r, n)``: Pearson r of log chunk lengths over the ``n`` aligned text chunks.

    r is NaN when it is undefined: too few chunks, constant lengths, or pages too large.
    """
    aligned = aligned_text_lengths(a, b)
    if aligned is None:
        return float("nan"), 0
    xs, ys = aligned
    n = len(xs)
    if n < MIN_CHUNKS:
        return float("nan"), n
    lx, ly = np.log1p(xs.astype(np.float64)), np.log1p(ys.astype(np.float64))
    if lx.std() == 0.0 or ly.std() == 0.0:
        return float("nan"), n
    return float(np.corrcoef(lx, ly)[0, 1]), n
