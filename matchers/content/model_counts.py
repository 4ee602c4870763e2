"""The count tables of the IBM-1 translation model (matchers.content.translation_model): sparse
expected counts keyed ``w1 << 32 | w2``, their snapshots, the mapping of another process's word ids,
and the numba kernels of the E-step, the merge of sorted tables and the M-step's fill.  Tomás et
al., *WebMining*, section 2.3 (the incremental EM whose counts these are).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

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
    word ids (negative, or ids far beyond the number of keys) take the full sort, so the marker
    arrays stay small."""
    out, inverse, ok = _unique_keys(np.ascontiguousarray(keys, np.int64))
    if not ok:
        out, inverse = np.unique(keys, return_inverse=True)
    return out, inverse.ravel()


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


# Word-pair combinations one E-step chunk holds.  An update's combinations number about a hundred
# per sentence pair, and an update is a sixteenth of the model's training so far, so unchunked
# the sort of its keys (about 50 bytes a combination with its temporaries) would grow with the
# site: some 40 MB at 10,000 pages, ten times that at 100,000.
ESTEP_CHUNK = 1 << 18

Probabilities = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def expected_counts(
    ids1: np.ndarray, off1: np.ndarray, ids2: np.ndarray, off2: np.ndarray, probabilities: Probabilities,
    chunk: int = ESTEP_CHUNK,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The E-step of sentence pairs (tokens ``ids1``/``ids2`` as model ids, split by the pairs'
    offsets): the expected counts ``(keys, n21, n12)`` of every co-occurring word pair, sorted,
    distinct and nonzero.

    ``probabilities(keys)`` gives ``t(f|e)`` and ``t(e|f)`` of sorted keys with the parameters
    before the update.  The pairs go through in chunks of about ``chunk`` word-pair combinations
    whose counts are summed, so every chunk sees the same parameters and the result is the
    unchunked one up to the order of floating-point sums.
    """
    sizes = (np.diff(off1) + 1) * (np.diff(off2) + 1)
    ends = np.cumsum(sizes)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    p0, n = 0, len(sizes)
    while p0 < n:
        before = ends[p0 - 1] if p0 else 0
        p1 = max(p0 + 1, int(np.searchsorted(ends, before + chunk, side="right")))
        o1, o2 = off1[p0:p1 + 1], off2[p0:p1 + 1]
        keys = _pair_keys(ids1[o1[0]:o1[-1]], o1 - o1[0], ids2[o2[0]:o2[-1]], o2 - o2[0])
        ukeys, inv = unique_keys(keys)
        del keys
        t21, t12 = probabilities(ukeys)
        n21 = np.zeros(len(ukeys))
        n12 = np.zeros(len(ukeys))
        _estep(o1 - o1[0], o2 - o2[0], inv, t21, t12, n21, n12)
        keep = (n21 != 0.0) | (n12 != 0.0)
        parts.append((ukeys[keep], n21[keep], n12[keep]))
        p0 = p1
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    # Pairwise merges of the sorted parts: linear each, log2(parts) rounds.
    while len(parts) > 1:
        parts = [_merge_sorted(*parts[i], *parts[i + 1]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    return parts[0]
