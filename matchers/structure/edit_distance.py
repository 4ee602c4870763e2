"""Weighted edit distance between STRAND tag sequences, and the kernels that make it cheap.

Tomás et al., *WebMining* (section 2.2) compare two pages by the edit distance between their tag
sequences, with insert = delete = substitute = 1 and ``<text_n>`` against ``<text_m>`` costing
``min(|n - m| / 10, 1)``.  Everything here works in that metric scaled by ``SCALE = 10`` so the
costs are exact integers: insert/delete 10, tag substitution 0 or 10, tag against text 10, text
``n`` against text ``m`` ``min(|n - m|, 10)``.  Tokens are the int32 codes of
:mod:`matchers.page.linearize` (text ``n >= 1``, tags negative, never 0).

Why banded: the crawl only asks "is this pair within the structural threshold?", never for the
exact distance of an unrelated pair.  A cell ``(i, j)`` of the DP can only lie on a path of cost
``<= limit`` if ``SCALE * (|i - j| + |(m - i) - (n - j)|) <= limit`` (Ukkonen), so only a band of
diagonals around the main one has to be computed, and the computation can stop as soon as every
path has already exceeded the limit.  Together with the histogram lower bound, which rejects most
unrelated pairs before any DP, this is what keeps the structural filter from slowing a crawl
(measurements in ``docs/benchmarks.md``, (a) and (b)).

The DPs walk anti-diagonals: cells on one anti-diagonal do not depend on each other, so the inner
loop vectorizes.  One of the two sequences is reversed first so that both are read with
increasing indices along an anti-diagonal.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numba
import numpy as np
from numba import prange

# numba caches compiled code next to the source file; a module imported from a zipped egg
# (a Scrapyd deployment) has none, so there it compiles once per process instead.
_CACHE = os.path.isfile(__file__)

SCALE = 10

# Signed indices make numba emit negative-index wraparound selects, which turns the
# anti-diagonal loads into gathers (measured: 9.2 against 1.3 ns a cell); unsigned ones do not.
_U = np.uintp
_U1 = np.uintp(1)
_U2 = np.uintp(2)
_INT32_MAX = 2**31 - 1


def _cost_py(x: int, y: int) -> int:
    if x == y:
        return 0
    if x > 0 and y > 0:
        return min(abs(x - y), SCALE)
    return SCALE


def reference_distance(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray) -> int:
    """Plain two-row DP in pure Python: slow, obviously correct, the oracle for the tests."""
    a = [int(x) for x in a]
    b = [int(y) for y in b]
    prev = [SCALE * j for j in range(len(b) + 1)]
    for i, x in enumerate(a, 1):
        cur = [SCALE * i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + SCALE, cur[j - 1] + SCALE, prev[j - 1] + _cost_py(x, y))
        prev = cur
    return prev[-1]


@numba.njit(inline="always")
def _cost(x, y):
    # Branch-free so the anti-diagonal loop stays vectorized: both are texts iff the smaller is
    # positive.  numba widens x - y to int64, so arbitrary int32 codes cannot overflow.
    t = min(abs(x - y), SCALE)
    return t if min(x, y) > 0 else SCALE * (x != y)


@numba.njit(nogil=True, cache=_CACHE)
def full_distance(a: np.ndarray, b: np.ndarray) -> int:
    """Exact distance by the full anti-diagonal DP (benchmark baseline and test oracle)."""
    m = a.shape[0]
    n = b.shape[0]
    if m == 0 or n == 0:
        return SCALE * (m + n)
    br = b[::-1].copy()
    # Three rotating anti-diagonals indexed by i; int32 holds SCALE * (m + n) for any page.
    d2 = np.empty(m + 1, np.int32)  # anti-diagonal k - 2
    d1 = np.empty(m + 1, np.int32)  # anti-diagonal k - 1
    d0 = np.empty(m + 1, np.int32)  # anti-diagonal k
    d1[0] = 0
    for k in range(1, m + n + 1):
        lo = max(0, k - n)
        hi = min(m, k)
        if lo == 0:
            d0[0] = SCALE * k
        if hi == k:
            d0[k] = SCALE * k
        ilo = max(lo, 1)
        ihi = min(hi, k - 1)
        if ihi >= ilo:
            # Cell i = u + 1 (j = k - i) reads a[i - 1] and b[j - 1] = br[n - k + i]; both
            # offsets are >= 0 inside the matrix, so they can be unsigned.
            off = _U(n - k + 1)
            for u in range(_U(ilo - 1), _U(ihi)):
                v = min(d1[u], d1[u + _U1]) + SCALE
                d0[u + _U1] = min(v, d2[u] + _cost(a[u], br[off + u]))
        d2, d1, d0 = d1, d0, d2
    return int(d1[m])


@numba.njit(nogil=True, cache=_CACHE)
def _banded_kernel(a, br, limit, d2, d1, d0):
    # a: first sequence; br: second sequence reversed; d2/d1/d0: int32 scratch anti-diagonals of
    # length len(a) + 1.  The caller guarantees 0 <= limit <= SCALE * (m + n).  A cell exceeds
    # its largest neighbour by at most SCALE and the neighbours start at cap = limit + SCALE, so
    # no cell exceeds cap + SCALE * (m + n): int32 cannot overflow, and cells are not capped in
    # the hot loop.  Measured on 1000-token pairs, capping each cell and folding the minimum into
    # the DP loop was 1.5-1.9x slower, and int16 cells were no faster than int32 because numba
    # widens the arithmetic to int64 either way.
    m = a.shape[0]
    n = br.shape[0]
    cap = limit + SCALE  # "too far": the value of every cell outside the band
    k_band = limit // SCALE
    # Diagonals t = j - i allowed by the Ukkonen condition |t| + |(n - m) - t| <= k_band.
    delta = n - m
    slack = (k_band - abs(delta)) // 2
    tlo = min(0, delta) - slack
    thi = max(0, delta) + slack
    d2[:] = cap
    d1[:] = cap
    d0[:] = cap
    d1[0] = 0
    prev_min = 0  # min of anti-diagonal k - 1
    for k in range(1, m + n + 1):
        # Cells of anti-diagonal k inside the matrix and the band: i = (k - t) / 2.
        lo = max(0, k - n, -((thi - k) // 2))  # ceil((k - thi) / 2)
        hi = min(m, k, (k - tlo) // 2)
        cur_min = cap
        if lo <= hi:
            if lo == 0:
                d0[0] = min(SCALE * k, cap)
                cur_min = d0[0]
            if hi == k:
                d0[k] = min(SCALE * k, cap)
                cur_min = min(cur_min, d0[k])
            ilo = max(lo, 1)
            ihi = min(hi, k - 1)
            if ihi >= ilo:
                s = _U(ilo - 1)
                e = _U(ihi)
                off = _U(n - k + 1)
                for u in range(s, e):
                    v = min(d1[u], d1[u + _U1]) + SCALE
                    d0[u + _U1] = min(v, d2[u] + _cost(a[u], br[off + u]))
                # A separate pass over int32 loads vectorizes wider than a min folded into the
                # DP loop, whose values numba has widened to int64.
                mn = d0[s + _U1]
                for u in range(s + _U2, e + _U1):
                    mn = min(mn, d0[u])
                cur_min = min(cur_min, mn)
        # Out-of-band neighbours read by the next two anti-diagonals must read as "too far".
        # Both band edges are non-decreasing in k and move by at most one cell per
        # anti-diagonal, so anti-diagonals k + 1 and k + 2 read this one only within
        # [lo - 1, hi + 1].  Above hi no earlier anti-diagonal has written (hi never
        # decreases), so the initial fill still holds cap there; below lo the buffer holds
        # stale values from anti-diagonal k - 3, hence one guard cell.
        if lo >= 1:
            d0[lo - 1] = cap
        # A substitution steps from anti-diagonal k - 1 to k + 1, so a path can skip one
        # anti-diagonal but never two in a row: every path already exceeds the limit once two
        # consecutive anti-diagonals do, and costs never decrease along a path.
        if cur_min > limit and prev_min > limit:
            return limit + 1
        prev_min = cur_min
        d2, d1, d0 = d1, d0, d2
    return d1[m]


@numba.njit(nogil=True, cache=_CACHE)
def _banded_rev(a, br, limit):
    # banded_distance with the second sequence already reversed (batch_distances reverses the
    # query once for all its rows).
    m = a.shape[0]
    n = br.shape[0]
    if limit < 0 or SCALE * abs(m - n) > limit:
        return limit + 1
    if m == 0 or n == 0:
        return SCALE * (m + n)
    # No distance exceeds SCALE * (m + n); clamping keeps the guard value inside int32 for any
    # caller-supplied limit without changing the answer.
    lim = min(limit, SCALE * (m + n))
    res = _banded_kernel(
        a, br, lim, np.empty(m + 1, np.int32), np.empty(m + 1, np.int32), np.empty(m + 1, np.int32)
    )
    return res if res <= limit else limit + 1


@numba.njit(nogil=True, cache=_CACHE)
def banded_distance(a: np.ndarray, b: np.ndarray, limit: int) -> int:
    """Exact distance when it is ``<= limit``, otherwise ``limit + 1``.

    Only cells that some path of cost ``<= limit`` can cross are computed (Ukkonen band of
    ``limit // SCALE`` edits), and the DP stops as soon as every path exceeds ``limit``.
    """
    return _banded_rev(a, b[::-1].copy(), limit)


# Not nogil: it takes microseconds, and a thread that lets the GIL go beside the busy reactor
# waits up to the switch interval to have it back.
@numba.njit(cache=_CACHE)
def histogram(tokens: np.ndarray, nbuckets: int = 64) -> np.ndarray:
    """Token counts: all texts in bucket 0, tags hashed by code into buckets 1..nbuckets-1.

    ``nbuckets`` must be >= 2, and histograms compared by :func:`lower_bound` must share it.
    """
    h = np.zeros(nbuckets, np.int32)
    for t in tokens:
        if t > 0:
            h[0] += 1
        else:
            # Tag codes are already CRC-derived, so their residue is a good enough hash.
            h[1 + (-np.int64(t) - 1) % (nbuckets - 1)] += 1
    return h


@numba.njit(nogil=True, cache=_CACHE)
def lower_bound(len_a: int, len_b: int, hist_a: np.ndarray, hist_b: np.ndarray) -> int:
    """Exact lower bound on the distance: ``SCALE * max(|len_a - len_b|, P, N)``.

    P and N are the sums of the positive and of the negative parts of ``hist_b - hist_a`` over
    all buckets, the text bucket 0 included.  Pass ``hist[1:]`` to get the weaker tag-only form.

    Proof.  Let P(s), N(s) be those sums for ``hist(b) - hist(s)`` while an optimal edit script
    turns ``s = a`` into ``b``, where they end at 0.  Each operation changes the histogram of
    ``s`` as follows:

    * insertion or deletion (cost 10): one bucket by +-1;
    * substitution of two different tags (cost 10): one bucket -1 and one +1 (nothing if both
      hash to the same bucket); of two equal tags (cost 0): nothing;
    * substitution of a tag by a text or back (cost 10): the text bucket and one tag bucket,
      one by -1 and the other by +1;
    * substitution of two texts (cost 0..10): nothing, both are in bucket 0.

    So every operation that moves any bucket costs exactly 10 and lowers P by at most 1 and N
    by at most 1, and the script contains at least max(P, N) operations of cost 10.  That is why
    the text bucket may take part: the cheap text-text substitutions never move it, and the
    tag-text substitution moves it together with one tag bucket at the full cost of 10, exactly
    as a tag-tag substitution moves two tag buckets.  It makes the bound strictly tighter on
    some pairs: ``[<x>]`` vs ``[<y>, <text_3>]`` (x, y in different buckets) has tag-only bound
    10, this one 20, the true distance.  ``|len_a - len_b| <= max(P, N)`` since
    ``P - N = len_b - len_a``; it is kept only because it is the check callers reason about.
    """
    d = abs(len_a - len_b)
    pos = 0
    neg = 0
    for k in range(hist_a.shape[0]):
        x = np.int64(hist_b[k]) - np.int64(hist_a[k])
        if x > 0:
            pos += x
        else:
            neg -= x
    return SCALE * max(d, pos, neg)


@numba.njit(nogil=True, cache=_CACHE)
def batch_lower_bounds(
    nq: int, q_hist: np.ndarray, offsets: np.ndarray, hists: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """:func:`lower_bound` of a query of ``nq`` tokens against each of ``rows`` (int64)."""
    out = np.empty(rows.shape[0], np.int64)
    for k in range(rows.shape[0]):
        r = rows[k]
        out[k] = lower_bound(offsets[r + 1] - offsets[r], nq, hists[r], q_hist)
    return out


@numba.njit(nogil=True, cache=_CACHE)
def _row_distance(
    qr: np.ndarray, q_hist: np.ndarray, flat: np.ndarray, offsets: np.ndarray, hists: np.ndarray, r: int,
    limit: int,
) -> int:
    # Leaves room for lim + 1 in the int32 output; no distance comes near it anyway.
    lim = min(np.int64(limit), _INT32_MAX - 1)
    s = flat[offsets[r] : offsets[r + 1]]
    if lower_bound(s.shape[0], qr.shape[0], hists[r], q_hist) > lim:
        return lim + 1
    return _banded_rev(s, qr, lim)


@numba.njit(nogil=True, cache=_CACHE, parallel=True)
def batch_distances(
    query: np.ndarray,
    q_hist: np.ndarray,
    flat: np.ndarray,
    offsets: np.ndarray,
    hists: np.ndarray,
    rows: np.ndarray,
    limits: np.ndarray,
) -> np.ndarray:
    """One new page against many stored ones: per row the distance, or a value > its limit.

    ``flat[offsets[r]:offsets[r + 1]]`` is stored sequence ``r`` and ``hists[r]`` its
    histogram; ``rows`` selects the sequences to compare, ``limits[k]`` is the limit of
    ``rows[k]``; ``q_hist`` must have as many buckets as ``hists`` has columns.  The lower bound
    runs first and the banded DP only on pairs it lets through.  Rows are not bounds-checked.
    """
    # The query is the reversed side, so it is reversed once for the whole batch.
    qr = query[::-1].copy()
    out = np.empty(rows.shape[0], np.int32)
    # prange over pairs, not inside one DP: the pairs are independent (2x on 2 idle cores).
    for k in prange(rows.shape[0]):
        out[k] = _row_distance(qr, q_hist, flat, offsets, hists, rows[k], limits[k])
    return out


@numba.njit(nogil=True, cache=_CACHE)
def serial_distances(
    query: np.ndarray,
    q_hist: np.ndarray,
    flat: np.ndarray,
    offsets: np.ndarray,
    hists: np.ndarray,
    rows: np.ndarray,
    limits: np.ndarray,
) -> np.ndarray:
    """:func:`batch_distances` on the calling thread alone, for a call of one row: a parallel
    region waits for all its threads, one of which the other core's work may have descheduled
    (``matchers.structure.tag_store``)."""
    qr = query[::-1].copy()
    out = np.empty(rows.shape[0], np.int32)
    for k in range(rows.shape[0]):
        out[k] = _row_distance(qr, q_hist, flat, offsets, hists, rows[k], limits[k])
    return out
