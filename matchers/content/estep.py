"""The E-step of the translation model's incremental EM (matchers.content.translation_model):
Tomás et al., *WebMining*, section 2.3, "the counts obtained in the previous expectation are kept
and incremented applying the actual estimation of the parameters to the new parallel page"; the
posteriors are IBM-1's (Brown et al. 1993, Model 1), over each sentence pair's words and NULL.

An update's sentence pairs go from their tokens to the new delta table of counts in one kernel
(:func:`update_counts`): the content filter's thread runs it beside the busy reactor, and each
return from code that let the GIL go waits for the reactor to hand it back (docs/benchmarks.md
(j)).  The distinct word pairs are found by bucketing (:func:`unique_keys`), the parameters by the
M-step's closed form on the kept counts (:func:`_probabilities`).
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numba
import numpy as np

from matchers.content.model_counts import Store, _merge_sorted
from matchers.gil_hold import holds_short_kernels

# numba caches compiled code next to the source file; a module imported from a zipped egg
# (a Scrapyd deployment) has none, so there it compiles once per process instead.
_CACHE = os.path.isfile(__file__)


# Word-pair combinations one E-step chunk holds.  An update's combinations number about a hundred
# per sentence pair, and an update is a sixteenth of the model's training so far, so unchunked
# the sort of its keys (about 50 bytes a combination with its temporaries) would grow with the
# site: some 40 MB at 10,000 pages, ten times that at 100,000.
ESTEP_CHUNK = 1 << 18


class Parameters(NamedTuple):
    """What the M-step's closed form reads: the count tables (main, delta), ``c(e)``, ``c(f)``,
    the identity links and the smoothing (matchers.content.translation_model)."""

    main_keys: np.ndarray
    main_c21: np.ndarray
    main_c12: np.ndarray
    delta_keys: np.ndarray
    delta_c21: np.ndarray
    delta_c12: np.ndarray
    tot1: np.ndarray
    tot2: np.ndarray
    same1: np.ndarray
    smoothing: float
    uniform: float


def update_counts(
    ids1: np.ndarray, off1: np.ndarray, ids2: np.ndarray, off2: np.ndarray, params: Parameters,
    chunk: int = ESTEP_CHUNK,
) -> tuple[Store, Store]:
    """The E-step of sentence pairs (tokens ``ids1``/``ids2`` as model ids, split by the pairs'
    offsets) with the parameters ``params`` before the update: the expected counts ``(keys, n21,
    n12)`` of every co-occurring word pair, sorted, distinct and nonzero, and the delta table of
    ``params`` with them added.

    The pairs go through in chunks of about ``chunk`` word-pair combinations whose counts are
    summed, so every chunk sees the same parameters and the result is the unchunked one up to the
    order of floating-point sums.  One kernel from the tokens to the new delta table: it runs in
    the content filter's thread beside the busy reactor, and every return from code that let the
    GIL go waits for the reactor to hand it back (docs/benchmarks.md (j)); there a small update
    holds the GIL instead (matchers.gil_hold).
    """
    pairs = max(1, len(off1) - 1)
    combinations = (len(ids1) + pairs) * (len(ids2) + pairs) // pairs  # about: each pair's (l + 1)(m + 1)
    short = holds_short_kernels() and combinations <= HOLD_GIL_COMBINATIONS
    kernel = _expected_counts_held if short else _expected_counts
    keys, n21, n12, _, delta = kernel(
        np.ascontiguousarray(ids1, np.int64), np.ascontiguousarray(off1, np.int64),
        np.ascontiguousarray(ids2, np.int64), np.ascontiguousarray(off2, np.int64), int(chunk), *params)
    return (keys, n21, n12), delta


# In a crawl's stage thread an update of at most this many word-pair combinations (about 2 ms)
# holds the GIL: letting it go would make the thread wait longer than that to have it back from
# the busy reactor (matchers.gil_hold).
HOLD_GIL_COMBINATIONS = 20_000


@numba.njit(cache=_CACHE)
def _expected_counts_held(ids1, off1, ids2, off2, chunk, main_keys, main_c21, main_c12, delta_keys, delta_c21,
                          delta_c12, tot1, tot2, same1, lam, uniform):  # pragma: no cover - compiled
    return _expected_counts(ids1, off1, ids2, off2, chunk, main_keys, main_c21, main_c12, delta_keys, delta_c21,
                            delta_c12, tot1, tot2, same1, lam, uniform)


@numba.njit(cache=_CACHE, nogil=True)
def _lookup_counts(ukeys, keys, a, b, c21, c12):  # pragma: no cover - compiled
    # Adds the counts of the sorted ``ukeys`` that the sorted table holds.
    if keys.size == 0:
        return
    idx = np.searchsorted(keys, ukeys)
    last = keys.size - 1
    for k in range(ukeys.size):
        i = min(idx[k], last)
        if keys[i] == ukeys[k]:
            c21[k] += a[i]
            c12[k] += b[i]


@numba.njit(cache=_CACHE, nogil=True)
def _probabilities(ukeys, main_keys, main_c21, main_c12, delta_keys, delta_c21, delta_c12, tot1, tot2, same1,
                   lam, uniform):  # pragma: no cover - compiled
    # t(f|e) and t(e|f) of sorted keys: (c + lam * t0) / (c(e) + lam), the counts summed over
    # the main and delta tables.
    n = ukeys.size
    c21 = np.zeros(n)
    c12 = np.zeros(n)
    _lookup_counts(ukeys, main_keys, main_c21, main_c12, c21, c12)
    _lookup_counts(ukeys, delta_keys, delta_c21, delta_c12, c21, c12)
    t21 = np.empty(n)
    t12 = np.empty(n)
    for k in range(n):
        e = ukeys[k] >> 32
        f = ukeys[k] & 0xFFFFFFFF
        t0 = 1.0 if e > 0 and f > 0 and same1[e] == f else uniform
        t21[k] = (c21[k] + lam * t0) / (tot1[e] + lam)
        t12[k] = (c12[k] + lam * t0) / (tot2[f] + lam)
    return t21, t12


@numba.njit(cache=_CACHE, nogil=True)
def _unique_sorted(keys):  # pragma: no cover - compiled
    # np.unique(keys, return_inverse=True) by a sort: for keys _unique_keys does not take.
    n = keys.size
    order = np.argsort(keys, kind="mergesort")
    out = np.empty(n, np.int64)
    inverse = np.empty(n, np.int64)
    u = -1
    for p in range(n):
        k = keys[order[p]]
        if u < 0 or out[u] != k:
            u += 1
            out[u] = k
        inverse[order[p]] = u
    return out[:u + 1].copy(), inverse


@numba.njit(cache=_CACHE, nogil=True)
def _expected_counts(ids1, off1, ids2, off2, chunk, main_keys, main_c21, main_c12, delta_keys, delta_c21,
                     delta_c12, tot1, tot2, same1, lam, uniform):  # pragma: no cover - compiled
    # The chunks' sorted counts, then pairwise merges of them (linear each, log2(chunks) rounds);
    # also returns the number of chunks and the delta table with the counts added.
    npairs = off1.size - 1
    parts = [(np.zeros(0, np.int64), np.zeros(0), np.zeros(0))]
    parts.pop()
    p0 = 0
    while p0 < npairs:
        size = 0
        p1 = p0
        while p1 < npairs:
            grow = (off1[p1 + 1] - off1[p1] + 1) * (off2[p1 + 1] - off2[p1] + 1)
            if p1 > p0 and size + grow > chunk:
                break
            size += grow
            p1 += 1
        o1 = off1[p0:p1 + 1] - off1[p0]
        o2 = off2[p0:p1 + 1] - off2[p0]
        keys = _pair_keys(ids1[off1[p0]:off1[p1]], o1, ids2[off2[p0]:off2[p1]], o2)
        ukeys, inv = _distinct_keys(keys)
        t21, t12 = _probabilities(ukeys, main_keys, main_c21, main_c12, delta_keys, delta_c21, delta_c12, tot1,
                                  tot2, same1, lam, uniform)
        n21 = np.zeros(ukeys.size)
        n12 = np.zeros(ukeys.size)
        _estep(o1, o2, inv, t21, t12, n21, n12)
        kept = 0
        for q in range(ukeys.size):
            if n21[q] != 0.0 or n12[q] != 0.0:
                ukeys[kept], n21[kept], n12[kept] = ukeys[q], n21[q], n12[q]
                kept += 1
        parts.append((ukeys[:kept].copy(), n21[:kept].copy(), n12[:kept].copy()))
        p0 = p1
    chunks = len(parts)
    if chunks == 0:
        parts.append((np.zeros(0, np.int64), np.zeros(0), np.zeros(0)))
    while len(parts) > 1:
        merged = [parts[0]]
        merged.pop()
        for i in range(0, len(parts), 2):
            if i + 1 < len(parts):
                a, b = parts[i], parts[i + 1]
                merged.append(_merge_sorted(a[0], a[1], a[2], b[0], b[1], b[2]))
            else:
                merged.append(parts[i])
        parts = merged
    k, a, b = parts[0]
    return k, a, b, chunks, _merge_sorted(delta_keys, delta_c21, delta_c12, k, a, b)


@numba.njit(cache=_CACHE)
def _add_totals(ukeys, n21, n12, ids1, ids2, tot1, tot2, uni1, uni2, ptot1, ptot2, puni1, puni2):  # pragma: no cover
    # c(e), c(f) and the unigram counts of an update, added to the model's and the pending ones.
    # Holds the GIL: a few loops over the vocabulary, shorter than a wait to have it back.
    inc1 = np.zeros(tot1.size)
    inc2 = np.zeros(tot2.size)
    for k in range(ukeys.size):
        inc1[ukeys[k] >> 32] += n21[k]
        inc2[ukeys[k] & 0xFFFFFFFF] += n12[k]
    tok1 = np.zeros(uni1.size, np.int64)
    tok2 = np.zeros(uni2.size, np.int64)
    for i in range(ids1.size):
        tok1[ids1[i]] += 1
    for i in range(ids2.size):
        tok2[ids2[i]] += 1
    for i in range(tot1.size):
        tot1[i] += inc1[i]
        ptot1[i] += inc1[i]
        uni1[i] += tok1[i]
        puni1[i] += tok1[i]
    for i in range(tot2.size):
        tot2[i] += inc2[i]
        ptot2[i] += inc2[i]
        uni2[i] += tok2[i]
        puni2[i] += tok2[i]




@numba.njit(cache=_CACHE, nogil=True)
def _pair_keys(ids1, off1, ids2, off2):  # pragma: no cover - compiled
    # Every (e, f) combination of each sentence pair, NULL (id 0) first on both sides, e-major:
    # the E-step below walks the same layout.
    total = 0
    for k in range(off1.size - 1):
        total += (off1[k + 1] - off1[k] + 1) * (off2[k + 1] - off2[k] + 1)
    keys = np.empty(total, np.int64)
    pos = 0
    for k in range(off1.size - 1):
        for a in range(off1[k + 1] - off1[k] + 1):
            e = np.int64(0) if a == 0 else ids1[off1[k] + a - 1]
            for b in range(off2[k + 1] - off2[k] + 1):
                f = np.int64(0) if b == 0 else ids2[off2[k] + b - 1]
                keys[pos] = (e << 32) | f
                pos += 1
    return keys


def unique_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for keys ``e << 32 | f`` of word ids (the same
    sorted distinct keys and the same inverse), without the comparison sort of every key: the
    keys are bucketed by ``e`` (a counting sort over the word ids) and each bucket's distinct
    ``f`` found with a marker array over the other vocabulary, so only a bucket's distinct ``f``
    are sorted.  The E-step's keys repeat a lot (a word pair once per sentence pair it occurs
    in): about five times faster than the full sort on 200,000 such keys.  Keys that are not
    word ids (negative, or ids far beyond the number of keys) take a full sort, so the marker
    arrays stay small."""
    return _distinct_keys(np.ascontiguousarray(keys, np.int64))


@numba.njit(cache=_CACHE, nogil=True)
def _distinct_keys(keys):  # pragma: no cover - compiled
    out, inverse, ok = _unique_keys(keys)
    if not ok:
        return _unique_sorted(keys)
    return out, inverse


@numba.njit(cache=_CACHE, nogil=True)
def _unique_keys(keys):  # pragma: no cover - compiled
    n = keys.size
    inverse = np.empty(n, np.int64)
    if n == 0:
        return np.empty(0, np.int64), inverse, True
    low = np.int64(0xFFFFFFFF)
    n1 = np.int64(0)
    n2 = np.int64(0)
    for k in range(n):
        if keys[k] < 0:
            return np.empty(0, np.int64), inverse, False
        e = keys[k] >> 32
        f = keys[k] & low
        if e >= n1:
            n1 = e + 1
        if f >= n2:
            n2 = f + 1
    if n1 + n2 > 4 * n + (1 << 20):
        return np.empty(0, np.int64), inverse, False
    start = np.zeros(n1 + 1, np.int64)
    for k in range(n):
        start[(keys[k] >> 32) + 1] += 1
    for e in range(n1):
        start[e + 1] += start[e]
    fill = start[:-1].copy()
    order = np.empty(n, np.int64)  # positions grouped by e, in key order within a group
    for k in range(n):
        e = keys[k] >> 32
        order[fill[e]] = k
        fill[e] += 1
    slot = np.full(n2, -1, np.int64)
    out = np.empty(n, np.int64)
    distinct = np.empty(n2, np.int64)
    u = 0
    for e in range(n1):
        lo, hi = start[e], start[e + 1]
        if lo == hi:
            continue
        d = 0
        for p in range(lo, hi):
            f = keys[order[p]] & low
            if slot[f] < 0:
                slot[f] = 0
                distinct[d] = f
                d += 1
        fs = np.sort(distinct[:d])
        for i in range(d):
            slot[fs[i]] = u + i
            out[u + i] = (np.int64(e) << 32) | fs[i]
        for p in range(lo, hi):
            k = order[p]
            inverse[k] = slot[keys[k] & low]
        for i in range(d):
            slot[fs[i]] = -1
        u += d
    return out[:u].copy(), inverse, True


@numba.njit(cache=_CACHE, nogil=True)
def _estep(off1, off2, inv, t21, t12, n21, n12):  # pragma: no cover - compiled
    pos = 0
    for k in range(off1.size - 1):
        ln = off1[k + 1] - off1[k]
        m = off2[k + 1] - off2[k]
        w = m + 1
        for b in range(1, m + 1):  # each lang2 token, generated by a lang1 token or NULL
            z = 0.0
            for a in range(ln + 1):
                z += t21[inv[pos + a * w + b]]
            for a in range(ln + 1):
                q = inv[pos + a * w + b]
                n21[q] += t21[q] / z
        for a in range(1, ln + 1):  # each lang1 token, generated by a lang2 token or NULL
            z = 0.0
            for b in range(w):
                z += t12[inv[pos + a * w + b]]
            for b in range(w):
                q = inv[pos + a * w + b]
                n12[q] += t12[q] / z
        pos += (ln + 1) * w
