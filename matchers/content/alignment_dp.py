"""The sentence aligner's dynamic programme (matchers.content.sentence_align): the band, the lexical
terms of the sentence pairs it uses, the best path and its beads' terms, compiled.

Tomás et al., *WebMining*, section 2.3 (the alignment by dynamic programming and eq. (1)); the
decisions (beads, priors, band, blocks, length and lexical terms) are stated in
:mod:`matchers.content.sentence_align`.  :func:`align_band` runs one band from the two documents'
word indices to the path: one kernel, because the content filter's thread runs it beside the busy
reactor and each return from code that let the GIL go waits for the reactor to hand it back
(docs/benchmarks.md (j)); a short band holds the GIL instead.  The dense translation tables of
each block are filled inside it (:func:`matchers.content.model_counts.dense_tables`).
"""

from __future__ import annotations

import math
import os

import numba
import numpy as np

from matchers.content.model_counts import TableSource, dense_tables
from matchers.gil_hold import holds_short_kernels

# numba caches compiled code next to the source file; a module imported from a zipped egg
# (a Scrapyd deployment) has none, so there it compiles once per process instead.
_CACHE = os.path.isfile(__file__)

# Bead types: index -> (sentences of doc1, sentences of doc2).
ONE_ONE, ONE_ZERO, ZERO_ONE, TWO_ONE, ONE_TWO, TWO_TWO = range(6)
DI = (1, 1, 0, 2, 1, 2)
DJ = (1, 0, 1, 1, 2, 2)


# A kernel that lets the GIL go makes a stage thread wait to have it back from the busy reactor, up
# to the switch interval (50 ms in a crawl) and several milliseconds on average: a band whose work
# is shorter than that costs the crawl less done holding the GIL (matchers.gil_hold).  The work is the first page's tokens
# times the band's half-width; 15,000 is about 2 ms (benchmarks/bench_content_gil.py).
HOLD_GIL_WORK = 15_000


def align_band(
    k: int, src: TableSource, ids1: np.ndarray, off1: np.ndarray, ids2: np.ndarray, off2: np.ndarray,
    bg1: np.ndarray, bg2: np.ndarray, ch1: np.ndarray, ch2: np.ndarray, ratio: float, var: float, log_sd: float,
    coef: float, logprior: np.ndarray, block_rows: int,
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """The best path within ``k`` of the diagonal: ``(jlo, jhi, terms, path)``, ``terms`` the
    pair terms ``(tlo, a11, b11, a21, b12)`` and ``path`` the beads' ``(types, ii, jj, la, lb,
    ll)``; ``src`` the model's :class:`~matchers.content.model_counts.TableSource`.  One kernel,
    which holds the GIL in a crawl's stage thread (matchers.gil_hold) when the band's work is at
    most :data:`HOLD_GIL_WORK`, and lets it go otherwise."""
    short = holds_short_kernels() and ids1.size * k <= HOLD_GIL_WORK
    kernel = _align_band_held if short else _align_band_released
    return kernel(k, src, ids1, off1, ids2, off2, bg1, bg2, ch1, ch2, ratio, var, log_sd, coef, logprior,
                  block_rows)


@numba.njit(cache=_CACHE, nogil=True)
def _align_band_released(k, src, ids1, off1, ids2, off2, bg1, bg2, ch1, ch2, ratio, var, log_sd, coef, logprior,
                         block_rows):  # pragma: no cover - compiled
    return _align_band(k, src, ids1, off1, ids2, off2, bg1, bg2, ch1, ch2, ratio, var, log_sd, coef, logprior,
                       block_rows)


@numba.njit(cache=_CACHE)
def _align_band_held(k, src, ids1, off1, ids2, off2, bg1, bg2, ch1, ch2, ratio, var, log_sd, coef, logprior,
                     block_rows):  # pragma: no cover - compiled
    return _align_band(k, src, ids1, off1, ids2, off2, bg1, bg2, ch1, ch2, ratio, var, log_sd, coef, logprior,
                       block_rows)


@numba.njit(cache=_CACHE)
def _align_band(k, src, ids1, off1, ids2, off2, bg1, bg2, ch1, ch2, ratio, var, log_sd, coef, logprior,
                block_rows):  # pragma: no cover - compiled
    n1, n2 = off1.size - 1, off2.size - 1
    jlo, jhi = _band(n1, n2, k)
    tlo, a11, b11, a21, b12 = _pair_terms(src, ids1, off1, ids2, off2, jlo, jhi, bg1, bg2, block_rows)
    back = _dp(jlo, jhi, tlo, a11, b11, a21, b12, ch1, ch2, ratio, var, log_sd, coef, logprior)
    path = _path(back, jlo, tlo, a11, b11, a21, b12, ch1, ch2, ratio, var, log_sd, coef)
    return jlo, jhi, (tlo, a11, b11, a21, b12), path


@numba.njit(cache=_CACHE)
def sentence_backgrounds(bg, ids, off):  # pragma: no cover - compiled
    """Each sentence's ``sum log bg`` over its tokens (``bg`` per distinct word).  Holds the GIL:
    a loop over a page's tokens."""
    out = np.zeros(off.size - 1)
    for s in range(off.size - 1):
        acc = 0.0
        for p in range(off[s], off[s + 1]):
            acc += math.log(bg[ids[p]])
        out[s] = acc
    return out


@numba.njit(cache=_CACHE)
def _band(n1, n2, k):  # pragma: no cover - compiled
    # Columns jlo[i]..jhi[i] of DP row i: within k of the diagonal i * n2 / n1.  Where the
    # diagonal is steeper than the band is wide (n2 >> n1), a row reaches on to the next row's
    # first column so that every cell of the band can be reached.
    jlo = np.empty(n1 + 1, np.int64)
    jhi = np.empty(n1 + 1, np.int64)
    for i in range(n1 + 1):
        jlo[i] = max(0, (i * n2) // n1 - k)
        jhi[i] = min(n2, -((-i * n2) // n1) + k)
    for i in range(n1):
        jhi[i] = max(jhi[i], jlo[i + 1])
    return jlo, jhi


@numba.njit(cache=_CACHE)
def _pair_terms(src, ids1, off1, ids2, off2, jlo, jhi, bg1, bg2, block_rows):  # pragma: no cover - compiled
    # Lexical log-likelihood ratios of every sentence pair the band's beads use.  For sentence s
    # of doc1 and t in tlo[s]..thi[s] (column t - tlo[s]): a11/b11 the two directions of the 1-1
    # bead, a21 direction A of ({s-1, s}, {t}), b12 direction B of ({s}, {t-1, t}); every other
    # bead's terms are sums of these.
    n1, n2 = off1.size - 1, off2.size - 1
    tlo = np.empty(n1, np.int64)
    thi = np.empty(n1, np.int64)
    width = 0
    for s in range(n1):
        tlo[s] = max(0, jlo[s + 1] - 2)
        thi[s] = min(n2 - 1, jhi[min(s + 2, n1)] - 1)
        width = max(width, thi[s] - tlo[s] + 1)
    a11 = np.zeros((n1, width))
    b11 = np.zeros((n1, width))
    a21 = np.zeros((n1, width))
    b12 = np.zeros((n1, width))
    for b0 in range(0, n1, block_rows):
        b1 = min(n1, b0 + block_rows)
        s0 = max(b0 - 1, 0)  # the row before the block: 2-x beads reach back to it
        wlo, whi = tlo[s0], thi[b1 - 1]
        rows, bid1 = _block_words(ids1, off1[s0], off1[b1], src.gid1.size)
        cols, bid2 = _block_words(ids2, off2[wlo], off2[whi + 1], src.gid2.size)
        t21, t12 = dense_tables(src, rows, cols, np.float32)
        _block_terms(b0, b1, s0, bid1, off1, bid2, off2, off2[wlo], t21, t12, tlo, thi, bg1, bg2,
                     a11, b11, a21, b12)
    return tlo, a11, b11, a21, b12


@numba.njit(cache=_CACHE)
def _block_words(ids, start, stop, n_words):  # pragma: no cover - compiled
    # The distinct words of tokens start:stop (sorted word indices) and each token's 1-based
    # position among them: the rows or columns of a block's tables.  A block that spans the whole
    # document (most pages fit in one) has every word, in order (matchers.content.token_ids
    # numbers the words as they first appear).
    tok = ids[start:stop]
    if start == 0 and stop == ids.size:
        return np.arange(n_words), tok + 1
    rank = np.zeros(n_words + 1, np.int64)
    for p in range(tok.size):
        rank[tok[p] + 1] = 1
    words = np.empty(n_words, np.int64)
    n = 0
    for w in range(n_words + 1):
        if rank[w]:
            words[n] = w - 1
            n += 1
            rank[w] = n
    bid = np.empty(tok.size, np.int64)
    for p in range(tok.size):
        bid[p] = rank[tok[p] + 1]
    return words[:n].copy(), bid


# A running product of the kernel's factors (each between the smallest NULL translation
# probability and a sentence's length plus one) is folded into its log-sum past these bounds.
_TINY = 1e-150
_HUGE = 1e150


@numba.njit(cache=_CACHE)
def _block_terms(b0, b1, s0, bid1, off1, bid2, off2, base2, t21, t12, tlo, thi, bg1, bg2,
                 a11, b11, a21, b12):  # pragma: no cover - compiled
    # bid1: block-local word ids (1-based) of doc1's tokens from sentence s0 on; bid2 those of
    # doc2's tokens from token base2 on.  pa[p] = sum_{e in s} t(f_p|e) for the window's tokens p
    # (kept for s and s - 1: merges add them); pb[t, q] = sum_{f in t} t(e_q|f) for e_q in s.
    base1 = off1[s0]
    nwin = off2[thi[b1 - 1] + 1] - base2
    pa_prev = np.zeros(nwin)
    pa_cur = np.zeros(nwin)
    for s in range(s0, b1):
        q0, q1 = off1[s], off1[s + 1]
        ls = q1 - q0
        lo, hi = tlo[s], thi[s]
        for p in range(off2[lo] - base2, off2[hi + 1] - base2):
            pa_cur[p] = 0.0
        pb = np.zeros((hi - lo + 1, ls))
        for q in range(ls):
            e = bid1[q0 + q - base1]
            r21 = t21[e]
            r12 = t12[e]
            for t in range(lo, hi + 1):
                acc = 0.0
                # Unsigned indices spare numba's negative-index wraparound in the hottest loop
                # (20% faster here).
                for p in range(np.uintp(off2[t] - base2), np.uintp(off2[t + 1] - base2)):
                    f = np.uintp(bid2[p])
                    pa_cur[p] += r21[f]
                    acc += r12[f]
                pb[t - lo, q] = acc
        if s >= b0:
            lprev = off1[s] - off1[s - 1] if s > 0 else 0
            for t in range(lo, hi + 1):
                c = t - lo
                lt = off2[t + 1] - off2[t]
                merge = s > 0 and t <= thi[s - 1]  # ({s-1, s}, {t}) is a bead of the band
                # Sums of logarithms as logarithms of products: the logarithm was most of this
                # kernel's time.  A product goes into the sum before it could leave float64's range.
                acc = 0.0
                acc2 = 0.0
                pr = 1.0
                pr2 = 1.0
                for p in range(off2[t] - base2, off2[t + 1] - base2):
                    null = t21[0, bid2[p]]
                    pr *= null + pa_cur[p]
                    if pr < _TINY or pr > _HUGE:
                        acc += math.log(pr)
                        pr = 1.0
                    if merge:
                        pr2 *= null + pa_prev[p] + pa_cur[p]
                        if pr2 < _TINY or pr2 > _HUGE:
                            acc2 += math.log(pr2)
                            pr2 = 1.0
                a11[s, c] = acc + math.log(pr) - bg2[t] - lt * math.log(ls + 1)
                if merge:
                    a21[s, c] = acc2 + math.log(pr2) - bg2[t] - lt * math.log(lprev + ls + 1)
                acc = 0.0
                acc2 = 0.0
                pr = 1.0
                pr2 = 1.0
                ltp = off2[t] - off2[t - 1] if t > 0 else 0
                for q in range(ls):
                    null = t12[bid1[q0 + q - base1], 0]
                    pr *= null + pb[c, q]
                    if pr < _TINY or pr > _HUGE:
                        acc += math.log(pr)
                        pr = 1.0
                    if c > 0:
                        pr2 *= null + pb[c - 1, q] + pb[c, q]
                        if pr2 < _TINY or pr2 > _HUGE:
                            acc2 += math.log(pr2)
                            pr2 = 1.0
                b11[s, c] = acc + math.log(pr) - bg1[s] - ls * math.log(lt + 1)
                if c > 0:
                    b12[s, c] = acc2 + math.log(pr2) - bg1[s] - ls * math.log(ltp + lt + 1)
        pa_prev, pa_cur = pa_cur, pa_prev


@numba.njit(inline="always")
def _length(l1, l2, ratio, var, log_sd, coef):  # pragma: no cover - compiled
    # log N(d; 0, 1) - log N(d; 0, sd^2), d^2 = (l2 - c*l1)^2 / (var * mean length): no sqrt, no log.
    x = ratio * l1
    return log_sd - coef * (l2 - x) * (l2 - x) / (var * max(0.5 * (x + l2), 1.0))


@numba.njit(cache=_CACHE)
def terms(bt, i, j, tlo, a11, b11, a21, b12, ch1, ch2, ratio, var, log_sd, coef):  # pragma: no cover
    # (direction A, direction B, length) log-likelihood ratios of bead type bt ending at (i, j).
    if DI[bt] * DJ[bt] == 0:  # an unaligned sentence: no evidence either way
        return 0.0, 0.0, 0.0
    s, t = i - 1, j - 1
    c = t - tlo[s]
    if bt == ONE_ONE:
        return a11[s, c], b11[s, c], _length(ch1[s], ch2[t], ratio, var, log_sd, coef)
    if bt == TWO_ONE:
        return (a21[s, c], b11[s - 1, t - tlo[s - 1]] + b11[s, c],
                _length(ch1[s - 1] + ch1[s], ch2[t], ratio, var, log_sd, coef))
    if bt == ONE_TWO:
        return (a11[s, c - 1] + a11[s, c], b12[s, c],
                _length(ch1[s], ch2[t - 1] + ch2[t], ratio, var, log_sd, coef))
    return (a21[s, c - 1] + a21[s, c], b12[s - 1, t - tlo[s - 1]] + b12[s, c],
            _length(ch1[s - 1] + ch1[s], ch2[t - 1] + ch2[t], ratio, var, log_sd, coef))


@numba.njit(cache=_CACHE)
def _dp(jlo, jhi, tlo, a11, b11, a21, b12, ch1, ch2, ratio, var, log_sd, coef, logprior):  # pragma: no cover
    # One explicit block per bead type: a shared branchy helper made numba/LLVM 30x slower here.
    n1 = jlo.size - 1
    width = 0
    for i in range(n1 + 1):
        width = max(width, jhi[i] - jlo[i] + 1)
    score = np.full((n1 + 1, width), -np.inf)
    back = np.full((n1 + 1, width), -1, np.int8)
    score[0, 0] = 0.0
    p11, p10, p01, p21, p12, p22 = logprior[0], logprior[1], logprior[2], logprior[3], logprior[4], logprior[5]
    for i in range(n1 + 1):
        s = i - 1
        for j in range(jlo[i], jhi[i] + 1):
            if i == 0 and j == 0:
                continue
            t = j - 1
            best = -np.inf
            arg = -1
            # Ties keep the earlier type: 1-1 first.
            if i >= 1 and j >= 1 and jlo[i - 1] <= j - 1 <= jhi[i - 1]:
                prev = score[i - 1, j - 1 - jlo[i - 1]]
                c = t - tlo[s]
                v = prev + p11 + 0.5 * (a11[s, c] + b11[s, c]) + _length(ch1[s], ch2[t], ratio, var, log_sd, coef)
                if v > best:
                    best, arg = v, ONE_ONE
            if i >= 1 and jlo[i - 1] <= j <= jhi[i - 1]:
                v = score[i - 1, j - jlo[i - 1]] + p10
                if v > best:
                    best, arg = v, ONE_ZERO
            if j >= 1 and j - 1 >= jlo[i]:
                v = score[i, j - 1 - jlo[i]] + p01
                if v > best:
                    best, arg = v, ZERO_ONE
            if i >= 2 and j >= 1 and jlo[i - 2] <= j - 1 <= jhi[i - 2]:
                prev = score[i - 2, j - 1 - jlo[i - 2]]
                c = t - tlo[s]
                la = a21[s, c]
                lb = b11[s - 1, t - tlo[s - 1]] + b11[s, c]
                v = prev + p21 + 0.5 * (la + lb) + _length(ch1[s - 1] + ch1[s], ch2[t], ratio, var, log_sd, coef)
                if v > best:
                    best, arg = v, TWO_ONE
            if i >= 1 and j >= 2 and jlo[i - 1] <= j - 2 <= jhi[i - 1]:
                prev = score[i - 1, j - 2 - jlo[i - 1]]
                c = t - tlo[s]
                la = a11[s, c - 1] + a11[s, c]
                lb = b12[s, c]
                v = prev + p12 + 0.5 * (la + lb) + _length(ch1[s], ch2[t - 1] + ch2[t], ratio, var, log_sd, coef)
                if v > best:
                    best, arg = v, ONE_TWO
            if i >= 2 and j >= 2 and jlo[i - 2] <= j - 2 <= jhi[i - 2]:
                prev = score[i - 2, j - 2 - jlo[i - 2]]
                c = t - tlo[s]
                la = a21[s, c - 1] + a21[s, c]
                lb = b12[s - 1, t - tlo[s - 1]] + b12[s, c]
                v = prev + p22 + 0.5 * (la + lb) + _length(ch1[s - 1] + ch1[s], ch2[t - 1] + ch2[t], ratio, var,
                                                           log_sd, coef)
                if v > best:
                    best, arg = v, TWO_TWO
            score[i, j - jlo[i]] = best
            back[i, j - jlo[i]] = arg
    return back


@numba.njit(cache=_CACHE)
def _path(back, jlo, tlo, a11, b11, a21, b12, ch1, ch2, ratio, var, log_sd, coef):  # pragma: no cover
    n1 = jlo.size - 1
    i, j = n1, ch2.size
    nb = 0
    types = np.empty(n1 + ch2.size, np.int64)
    ii = np.empty(n1 + ch2.size, np.int64)
    jj = np.empty(n1 + ch2.size, np.int64)
    while i > 0 or j > 0:
        bt = back[i, j - jlo[i]]
        if bt < 0:
            raise AssertionError("unreachable cell on the alignment path")
        types[nb], ii[nb], jj[nb] = bt, i, j
        nb += 1
        i -= DI[bt]
        j -= DJ[bt]
    types, ii, jj = types[:nb][::-1].copy(), ii[:nb][::-1].copy(), jj[:nb][::-1].copy()
    la = np.zeros(nb)
    lb = np.zeros(nb)
    ll = np.zeros(nb)
    for k in range(nb):
        la[k], lb[k], ll[k] = terms(types[k], ii[k], jj[k], tlo, a11, b11, a21, b12, ch1, ch2, ratio, var,
                                     log_sd, coef)
    return types, ii, jj, la, lb, ll
