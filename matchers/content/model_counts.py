"""The count tables of the IBM-1 translation model (matchers.content.translation_model): sparse
expected counts keyed ``w1 << 32 | w2``, their snapshots, the mapping of another process's word ids,
and the numba kernels of the merge of sorted tables, the backgrounds and the M-step's fill of a
document pair's dense tables (the E-step's are in matchers.content.estep).  Tomás et al.,
*WebMining*, section 2.3 (the incremental EM whose counts these are).

Memory: what grows is the vocabularies (strings, four float64 per word) and the counts table,
sparse: only word pairs that co-occurred in a training sentence pair, 24 bytes each (int64 key
``w1 << 32 | w2``, two float64 counts).  It is kept as a sorted main table plus a small sorted
delta that absorbs updates and is merged when it reaches an eighth of the main one, so an update
costs about its own size, not the model's.  When they merge, entries whose two counts are both
below ``min_count`` (0.01) are dropped: co-occurrences that EM found unrelated, 57-65% of the
entries and 0.5-0.9% of the count mass of models trained on 30-50 W3C i18n page pairs (86% and
0.1% on the benchmark's synthetic model), with the same content scores.  Past ``max_entries`` the entries with the
smallest counts go too.  A dropped pair's words keep its mass in ``c(e)``, so the pair falls back
to the smoothing value and the distribution becomes slightly sub-stochastic.  Snapshots take
about 17 bytes per entry.

Merging (several crawler processes training one language pair's model, see
``bitext_spider.store.model_registry``): expected counts are sums over sentence pairs, so the counts
two processes gathered can be added.  A model keeps, besides its counts, the *pending* counts that
:meth:`TranslationModel.update` added since it was loaded or they were last cleared (each update's
table appended and summed in bulk into a sorted table, plus per-word ``c(e)``, ``c(f)`` and
unigram increments), unpruned unless they outgrow the model's own table.
:meth:`~TranslationModel.pending_counts` hands them out with their words,
:meth:`~TranslationModel.add_counts` adds such counts (or a whole model's,
:meth:`~TranslationModel.counts`) into a model, mapping the vocabularies by word: the ids of two
processes differ.  The mapping is one dictionary lookup per word; the tables are remapped, sorted
and merged with numpy/numba, about the cost of a compaction (``benchmarks/bench_model_merge.py``).
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

# numba caches compiled code next to the source file; a module imported from a zipped egg
# (a Scrapyd deployment) has none, so there it compiles once per process instead.
_CACHE = os.path.isfile(__file__)
_LOW = np.int64(0xFFFFFFFF)


@dataclass(frozen=True)
class Lexicon:
    """Two documents' vocabularies resolved against a model, once per document pair."""

    words1: list[str]
    words2: list[str]
    gid1: np.ndarray  # model id of each words1 entry, -1 when the model has never seen it
    gid2: np.ndarray
    same1: np.ndarray  # index in words2 of the identical string, -1 if none
    bg1: np.ndarray  # background probability of each words1 entry (t12 side)
    bg2: np.ndarray  # background probability of each words2 entry (t21 side)


@dataclass(frozen=True)
class LocalTables:
    """Dense translation tables for two vocabularies; index 0 of both axes is the NULL word.

    ``t21[i, j] = t(words2[j-1] | words1[i-1])`` (row 0: given NULL, column 0 unused);
    ``t12[i, j] = t(words1[i-1] | words2[j-1])`` (column 0: given NULL, row 0 unused).
    """

    t21: np.ndarray
    t12: np.ndarray
    bg1: np.ndarray  # background of words1 entries, no NULL slot
    bg2: np.ndarray


@dataclass(frozen=True)
class ModelCounts:
    """Expected counts with their own vocabularies, to add into a model (:meth:`TranslationModel.add_counts`).

    ``keys`` are sorted ``i1 << 32 | i2`` over positions in ``words1``/``words2``, whose index 0
    is :data:`NULL`; ``tot*``/``uni*`` are per entry of ``words*``.
    """

    lang1: str
    lang2: str
    words1: list[str]
    words2: list[str]
    keys: np.ndarray
    c21: np.ndarray
    c12: np.ndarray
    tot1: np.ndarray
    tot2: np.ndarray
    uni1: np.ndarray
    uni2: np.ndarray
    sentences: int
    pairs: int

    @property
    def empty(self) -> bool:
        return self.sentences == 0 and self.pairs == 0 and not len(self.keys)




Store = tuple[np.ndarray, np.ndarray, np.ndarray]


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _load_npz(data: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _map_words(words: Sequence[str], vocab: list[str], index: dict[str, int]) -> np.ndarray:
    """Ids of ``words`` in a vocabulary, new words appended in order: one
    dictionary lookup per word, no Python call per word."""
    get = index.get
    ids = np.array([get(w, -1) for w in words], np.int64)
    new = np.flatnonzero(ids < 0)
    if len(new):
        added = [words[i] for i in new.tolist()]
        if len(set(added)) != len(added):
            raise ValueError("a vocabulary with a repeated word")
        start = len(vocab)
        vocab.extend(added)
        index.update(zip(added, range(start, start + len(added)), strict=True))
        ids[new] = np.arange(start, start + len(added))
    # Each id once, or fancy-index += would add only one of two counts of the same word.
    ordered = np.sort(ids)
    if bool(np.any(ordered[1:] == ordered[:-1])):
        raise ValueError("a vocabulary with a repeated word")
    return ids


def _empty_store() -> Store:
    return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)


def _store(keys: np.ndarray, c21: np.ndarray, c12: np.ndarray) -> Store:
    return keys.astype(np.int64), c21.astype(np.float64), c12.astype(np.float64)


@numba.njit(cache=_CACHE, nogil=True)
def _merge_sorted(k1, a1, b1, k2, a2, b2):  # pragma: no cover - compiled
    n = k1.size + k2.size
    keys = np.empty(n, np.int64)
    a = np.empty(n)
    b = np.empty(n)
    i = j = o = 0
    while i < k1.size or j < k2.size:
        if j >= k2.size or (i < k1.size and k1[i] < k2[j]):
            keys[o], a[o], b[o] = k1[i], a1[i], b1[i]
            i += 1
        elif i >= k1.size or k2[j] < k1[i]:
            keys[o], a[o], b[o] = k2[j], a2[j], b2[j]
            j += 1
        else:
            keys[o], a[o], b[o] = k1[i], a1[i] + a2[j], b1[i] + b2[j]
            i += 1
            j += 1
        o += 1
    return keys[:o].copy(), a[:o].copy(), b[:o].copy()


@numba.njit(cache=_CACHE, nogil=True)
def _fill_learned(keys, starts, c21, c12, rg, cg, colmap, den1, den2, t21, t12):  # pragma: no cover - compiled
    # Learned part of t = (c + lam * t0) / (c(e) + lam): the defaults are already in place.  A row
    # (one lang1 word) is a contiguous slice of the sorted keys, from starts[g] to starts[g + 1]
    # when the rows' starts are given (an empty ``starts``: searched).  Scanning it costs its
    # length; searching each wanted column in it costs ~ncols * log2(length): NULL and frequent
    # words have rows as long as the other vocabulary, so those are searched.
    ncols = cg.size
    order = np.argsort(cg)
    for i in range(rg.size):
        g = rg[i]
        if g < 0:
            continue
        if starts.size == 0:
            lo = np.searchsorted(keys, g << 32)
            hi = np.searchsorted(keys, (g + 1) << 32)
        elif g + 1 < starts.size:
            lo, hi = starts[g], starts[g + 1]
        else:
            continue  # a word with no entry in the table
        n = hi - lo
        if n <= 0:
            continue
        bits = 1
        while (1 << bits) < n:
            bits += 1
        if n <= 2 * ncols * bits:
            for k in range(lo, hi):
                j = colmap[keys[k] & 0xFFFFFFFF]
                if j >= 0:
                    t21[i, j] += c21[k] * den1[i]
                    t12[i, j] += c12[k] * den2[j]
        else:
            p = lo  # columns in increasing id order: each search starts where the last ended
            for jj in range(ncols):
                j = order[jj]
                if cg[j] < 0:
                    continue
                key = (g << 32) | cg[j]
                p += np.searchsorted(keys[p:hi], key)
                if p >= hi:
                    break
                if keys[p] == key:
                    t21[i, j] += c21[p] * den1[i]
                    t12[i, j] += c12[p] * den2[j]


@numba.njit(cache=_CACHE, nogil=True)
def _marginal_sums(keys, c21, c12, w1, w2, out2, out1):  # pragma: no cover - compiled
    for k in range(keys.size):
        e = keys[k] >> 32
        f = keys[k] & 0xFFFFFFFF
        out2[f] += w1[e] * c21[k]
        out1[e] += w2[f] * c12[k]


@numba.njit(cache=_CACHE)
def padded(a, n, fill):  # pragma: no cover - compiled
    """``a`` extended to ``n`` entries of ``fill``; holds the GIL (numpy's copy would let it go)."""
    out = np.full(n, fill, a.dtype)
    out[:a.size] = a
    return out


@numba.njit(cache=_CACHE, nogil=True)
def background(main_keys, main_c21, main_c12, delta_keys, delta_c21, delta_c12, tot1, tot2, uni1, uni2, same1,
               same2, lam, uniform):  # pragma: no cover - compiled
    """Per-word backgrounds ``(bg1, bg2, base1, base2, n1, n2)``: ``bg(f) = sum_e P1(e) t(f|e)``
    over the kept counts (matchers.content.translation_model), those of unseen words and the
    training tokens of each side.  One kernel, one pass over the counts."""
    n1 = uni1.sum()
    n2 = uni2.sum()
    if n1 <= 0 or n2 <= 0:
        bg1 = np.full(uni1.size, uniform)
        bg2 = np.full(uni2.size, uniform)
        base1 = base2 = uniform
    else:
        # P1(e) / (c(e) + lam) up to the 1/N1 factor; NULL has no unigram weight.
        w1 = uni1 / (tot1 + lam)
        w2 = uni2 / (tot2 + lam)
        out1 = np.zeros(uni1.size)
        out2 = np.zeros(uni2.size)
        _marginal_sums(main_keys, main_c21, main_c12, w1, w2, out2, out1)
        _marginal_sums(delta_keys, delta_c21, delta_c12, w1, w2, out2, out1)
        base2 = lam * uniform * w1.sum() / n1
        base1 = lam * uniform * w2.sum() / n2
        bg2 = out2 / n1 + base2
        bg1 = out1 / n2 + base1
        for f in range(same2.size):
            if same2[f] > 0:
                bg2[f] += lam * (1.0 - uniform) * w1[same2[f]] / n1
        for e in range(same1.size):
            if same1[e] > 0:
                bg1[e] += lam * (1.0 - uniform) * w2[same1[e]] / n2
    bg1[0] = 1.0
    bg2[0] = 1.0
    return bg1, bg2, base1, base2, n1, n2


@numba.njit(cache=_CACHE)
def word_backgrounds(gid, bg, base):  # pragma: no cover - compiled
    """The backgrounds of a document's words (model ids ``gid``, -1 unseen: ``base``).  Holds the
    GIL: a loop over a page's words."""
    out = np.empty(gid.size)
    for i in range(gid.size):
        out[i] = bg[gid[i]] if gid[i] >= 0 else base
    return out


class TableSource(NamedTuple):
    """What the dense tables of two documents' vocabularies are filled from (:func:`dense_tables`):
    the documents' words as model ids (:class:`Lexicon`), the model's count tables (the main
    table's row starts found once), ``c(e)``, ``c(f)`` and the smoothing."""

    gid1: np.ndarray
    gid2: np.ndarray
    same1: np.ndarray
    main_keys: np.ndarray
    main_c21: np.ndarray
    main_c12: np.ndarray
    main_starts: np.ndarray
    delta_keys: np.ndarray
    delta_c21: np.ndarray
    delta_c12: np.ndarray
    tot1: np.ndarray
    tot2: np.ndarray
    smoothing: float
    uniform: float


@numba.njit(cache=_CACHE, nogil=True)
def dense_tables(src, rows, cols, dtype):  # pragma: no cover - compiled
    """``(t21, t12)`` of :class:`LocalTables` for the ``rows`` of the first document's words and
    the ``cols`` of the second's, ``src`` a :class:`TableSource`.  One kernel: the aligner calls
    it from its own, and from Python a single entry lets the GIL go once."""
    lam, u = src.smoothing, src.uniform
    nr, nc = rows.size + 1, cols.size + 1
    rg = np.zeros(nr, np.int64)
    cg = np.zeros(nc, np.int64)
    for i in range(rows.size):
        rg[i + 1] = src.gid1[rows[i]]
    for j in range(cols.size):
        cg[j + 1] = src.gid2[cols[j]]
    den1 = np.empty(nr)
    den2 = np.empty(nc)
    for i in range(nr):
        den1[i] = 1.0 / ((src.tot1[rg[i]] if rg[i] >= 0 else 0.0) + lam)
    for j in range(nc):
        den2[j] = 1.0 / ((src.tot2[cg[j]] if cg[j] >= 0 else 0.0) + lam)
    t21 = np.empty((nr, nc), dtype)
    t12 = np.empty((nr, nc), dtype)
    for i in range(nr):
        v21 = lam * u * den1[i]
        for j in range(nc):
            t21[i, j] = v21
            t12[i, j] = lam * u * den2[j]
        t21[i, 0] = 0.0
    for j in range(nc):
        t12[0, j] = 0.0
    # Identical strings: the initial distribution's identity links.
    colpos = np.full(src.gid2.size, -1, np.int64)
    for j in range(cols.size):
        colpos[cols[j]] = j + 1
    for i in range(rows.size):
        s = src.same1[rows[i]]
        if s >= 0:
            c = colpos[s]
            if c > 0:
                t21[i + 1, c] += lam * (1.0 - u) * den1[i + 1]
                t12[i + 1, c] += lam * (1.0 - u) * den2[c]
    colmap = np.full(src.tot2.size, -1, np.int64)
    for j in range(nc):
        if cg[j] >= 0:
            colmap[cg[j]] = j
    if src.main_keys.size:
        _fill_learned(src.main_keys, src.main_starts, src.main_c21, src.main_c12, rg, cg, colmap, den1, den2,
                      t21, t12)
    if src.delta_keys.size:
        _fill_learned(src.delta_keys, np.zeros(0, np.int64), src.delta_c21, src.delta_c12, rg, cg, colmap, den1,
                      den2, t21, t12)
    return t21, t12
