"""Sentence alignment of two pages by dynamic programming under the IBM-1 model of the pair.

Tomás et al., *WebMining*, section 2.3: "the system tries to align the sentences of both webpages
using a dynamic programming technique [Gale & Church; Chen; ...]", each candidate pair scored by
eq. (1) ``Pr(f|e) = alpha^|m-l| prod_j sum_i p(f_j|e_i)``; "we compute the percentage of
sentence pairs with a translation probability higher than a threshold, to check if both pages are
mutual translations".

Decisions:

* **Beads** 1-1, 1-0, 0-1, 2-1, 1-2, 2-2 (Gale & Church 1993) with priors 0.89, 0.0099 shared
  by 1-0 and 0-1 (Gale & Church's, table 5), and lower ones for merges (below).
* **A bead's score** is ``log prior + length + lexical``, all log-likelihood ratios against
  "these sentences are not translations of each other", so an unaligned sentence (1-0, 0-1) scores
  its prior alone and a 1-1 bead wins over a deletion and an insertion only with evidence.
* **Lexical term**: eq. (1) per direction, with IBM-1's uniform alignment prior ``1/(l+1)`` that
  the paper's formula leaves out (without it the sum over ``e_i`` grows with ``l`` and merged
  beads always win): ``LA = sum_j [log(sum_{i=0..l} t(f_j|e_i) / (l+1)) - log bg(f_j)]`` with
  ``bg`` the model's background (:mod:`matchers.content.translation_model`); ``LB`` the same with the
  roles swapped; the bead's lexical term is ``(LA + LB) / 2``.  Merged sentences are scored as
  their concatenation: ``sum_i t(f_j|e_i)`` over a concatenation is the sum of the parts' sums, so
  the per-token partial sums of each sentence pair are computed once and a merge adds them.
* **Length term**: the Gale & Church character-length model instead of the paper's
  ``alpha^|m-l|`` on word counts, which assumes equal word counts across languages (wrong for CJK
  text tokenized into characters, for agglutinative languages, and for merges).
  ``delta = (l2 - c*l1) / sqrt(s2 * (c*l1 + l2) / 2)`` with ``c`` the document pair's character
  ratio and ``s2 = 6.8`` (Gale & Church's variance, taken at the mean of the two lengths so the
  score does not depend on which language is ``lang1``); the term is the log-ratio of
  ``N(delta; 0, 1)`` to ``N(delta; 0, unrelated_sd^2)``, the spread of ``delta`` between unrelated
  sentences (about 3 for sentence lengths of 100 +- 60 characters).
* **prob** of a bead with sentences on both sides is ``sigmoid(lexical + length)``: the posterior,
  at even prior odds, that its sentences are translations rather than unrelated sentences, from
  the lexical and length likelihood ratios (the bead's DP score without its prior).  IBM-1 takes
  words as independent, so it is confident and saturates after a few words of evidence; that is
  what makes it thresholdable.  A per-word geometric mean (``lexical / words``) was measured and
  rejected: on the W3C i18n pages (de-en, en-es, en-fr, en-ru; each pair aligned before the model
  is trained on it, non-parallel pairs drawn at random), once the model had seen 10 pairs the mean
  share of beads above 0.5 was 0.74-0.91 for parallel and 0.01-0.07 for non-parallel page pairs,
  against 0.04-0.13 non-parallel with the per-word mean, whose length term outweighs a small
  per-word lexical deficit.  The shares hardly move between thresholds 0.25 and 0.9.  An
  untrained model makes ``lexical`` 0, or positive for shared numbers and names, so ``prob`` is
  then mostly the length evidence (at most ``sigmoid(log 3) = 0.75`` without shared tokens; 0.13-0.55
  of the beads of non-parallel pairs above 0.5 on those pages); as the paper notes, only a trained
  model tells non-parallel pages apart.  1-0 and 0-1 beads: prob 0.
* **Merges must cover.**  A bead's lexical term credits every word of its merged side that the
  other side translates, so a sentence that repeats the other's words (a title printed twice, a
  heading beside a section's first sentence) earns a 2-1 or 1-2 bead evidence though it
  translates nothing.  A 2-1/1-2 bead is kept only when the lone sentence's words are explained
  by the two sentences together at least 5 nats better (about two translated content words) than
  by the better one alone; otherwise the better 1-1 bead is given and the other sentence is
  unaligned.  A 2-2 bead is given as its two 1-1 halves when each half is a translation, or when
  no sentence of it is explained that much better by the other side's pair than by its own half.
* **Priors** are lower than Gale & Church's for merges (2-1 and 1-2 0.003 each, 2-2 0.00001):
  web pages translated from a source page keep its sentences one for one far more often than
  Hansard's translators did, and a 2-2 prior above ``p(1-1) p(1-0) p(0-1)`` lets a 2-2 bead swallow
  an unaligned sentence on each side.  On the newspaper-edition site's gold sentence pairs
  (``benchmarks/compare_sentence_alignment.py``, docs/evaluation.md), Gale & Church's priors
  merged two correct 1-1 pairs into a 2-2 bead 29-41 times and made 56-61 wrong 2-1/1-2 beads.
* **Band**: the DP visits ``|j - i*n2/n1| <= k`` with ``k`` 5% of the longer page, at least 10
  and at most 25 sentences.  When the best path runs within one cell of the band's edge through a
  bead with positive lexical evidence, the band is doubled and the alignment redone (Moore 2002's
  strategy); paths that hug the edge through unaligned or unsupported beads (non-parallel pages)
  do not widen it.  The cost is linear in the page length: 500 sentences a side take ~50 ms,
  the 2,000 the page extraction keeps at most 0.2-0.3 s (``benchmarks/bench_content.py``).
* **Blocks**: the dense translation tables are built for 256 sentences of the first page and the
  sentences of the second page their band reaches, so memory stays bounded for long pages.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from matchers.content.token_ids import Encoded, encode
from matchers.content.translation_model import Lexicon, TranslationModel

# numba caches compiled code next to the source file; a module imported from a zipped egg
# (a Scrapyd deployment) has none, so there it compiles once per process instead.
_CACHE = os.path.isfile(__file__)

# Bead types: index -> (sentences of doc1, sentences of doc2).
ONE_ONE, ONE_ZERO, ZERO_ONE, TWO_ONE, ONE_TWO, TWO_TWO = range(6)
_DI = (1, 1, 0, 2, 1, 2)
_DJ = (1, 0, 1, 1, 2, 2)


@dataclass(frozen=True, slots=True)
class Bead:
    """Aligned sentences: indices into doc1 (``src``) and doc2 (``tgt``), either may be empty.

    ``prob`` is the translation probability, ``sigmoid(lexical + length)`` (see the module
    docstring); ``lexical`` the words' log-likelihood ratio ``(LA + LB) / 2`` and ``length`` the
    length log-likelihood ratio, both in nats.  All 0 for 1-0 and 0-1 beads.
    """

    src: tuple[int, ...]
    tgt: tuple[int, ...]
    prob: float
    lexical: float
    length: float


@dataclass(frozen=True)
class AlignParams:
    # 1-1 and 1-0/0-1 as Gale & Church (1993), table 5; merges rarer (module docstring).
    priors: tuple[float, float, float, float, float, float] = (0.89, 0.00495, 0.00495, 0.003, 0.003, 0.00001)
    variance: float = 6.8  # Gale & Church's s^2 of the character-length model
    unrelated_sd: float = 3.0  # spread of delta between sentences that are not translations
    band_min: int = 10  # initial band half-width: band_fraction of the longer page within these bounds
    band_max: int = 25
    band_fraction: float = 0.05
    block_rows: int = 256
    max_ratio: float = 8.0  # the document character ratio is clipped to [1/max_ratio, max_ratio]


DEFAULT_PARAMS = AlignParams()


def align(
    doc1: Sequence[Sequence[str]] | None,
    doc2: Sequence[Sequence[str]] | None,
    chars1: Sequence[int],
    chars2: Sequence[int],
    model: TranslationModel,
    params: AlignParams = DEFAULT_PARAMS,
    encoded: tuple[Encoded, Encoded] | None = None,
) -> list[Bead]:
    """Best alignment of ``doc1`` (``model.lang1``) and ``doc2`` (``model.lang2``) sentences.

    ``encoded``: :func:`encode` of the two documents when the caller keeps it (a page is aligned
    with several candidates, and encoding is a fifth of an alignment's time); the documents may
    then be None."""
    if encoded is None:
        if doc1 is None or doc2 is None:
            raise ValueError("the documents or their encoded form are needed")
        encoded = (encode(doc1), encode(doc2))
    (words1, ids1, off1), (words2, ids2, off2) = encoded
    n1, n2 = len(off1) - 1, len(off2) - 1
    if len(chars1) != n1 or len(chars2) != n2:
        raise ValueError("one character length per sentence is needed")
    if n1 == 0 or n2 == 0:
        return [Bead((i,), (), 0.0, 0.0, 0.0) for i in range(n1)] + [Bead((), (j,), 0.0, 0.0, 0.0) for j in range(n2)]
    lex = model.lexicon(words1, words2)
    ch1 = np.asarray(chars1, np.float64)
    ch2 = np.asarray(chars2, np.float64)
    tot1, tot2 = ch1.sum(), ch2.sum()
    ratio = float(np.clip(tot2 / tot1, 1 / params.max_ratio, params.max_ratio)) if tot1 > 0 and tot2 > 0 else 1.0
    bg1 = _sentence_sums(np.log(lex.bg1)[ids1], off1)
    bg2 = _sentence_sums(np.log(lex.bg2)[ids2], off2)
    logprior = np.log(np.asarray(params.priors, np.float64))
    sd = params.unrelated_sd
    length_args = (ratio, params.variance, math.log(sd), 0.5 * (1.0 - 1.0 / (sd * sd)))
    full = max(n1, n2)
    k = min(full, max(params.band_min, min(params.band_max, math.ceil(params.band_fraction * full))))
    while True:
        jlo, jhi = _band(n1, n2, k)
        terms = _pair_terms(model, lex, ids1, off1, ids2, off2, jlo, jhi, bg1, bg2, params.block_rows)
        back = _dp(jlo, jhi, *terms, ch1, ch2, *length_args, logprior)
        types, ii, jj, la, lb, ll = _path(back, jlo, *terms, ch1, ch2, *length_args)
        beads, edge = _beads(types, ii, jj, la, lb, ll, jlo, jhi, n2)
        if not edge or k >= full:
            return _split_two_two(_split_unsupported_merges(beads, terms, ch1, ch2, length_args), terms, ch1, ch2,
                                  length_args)
        k = min(full, 2 * k)


def content_scores(beads: Sequence[Bead], threshold: float) -> tuple[float, float]:
    """(share of beads with ``prob > threshold``, mean ``prob``), over all beads.

    Unaligned sentences (1-0, 0-1 beads, prob 0) count against both: a page pair with half its
    sentences unaligned is not parallel.  (0, 0) for no beads.
    """
    if not beads:
        return 0.0, 0.0
    probs = np.fromiter((b.prob for b in beads), np.float64, len(beads))
    return float(np.mean(probs > threshold)), float(probs.mean())


# -- preparation ------------------------------------------------------------------------------


def _sentence_sums(values: np.ndarray, off: np.ndarray) -> np.ndarray:
    cs = np.concatenate([[0.0], np.cumsum(values)])
    return cs[off[1:]] - cs[off[:-1]]


def _band(n1: int, n2: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns ``jlo[i]..jhi[i]`` of DP row ``i``: within ``k`` of the diagonal ``i * n2 / n1``.

    Where the diagonal is steeper than the band is wide (``n2 >> n1``), a row reaches on to the
    next row's first column so that every cell of the band can be reached.
    """
    i = np.arange(n1 + 1, dtype=np.int64)
    jlo = np.maximum(0, (i * n2) // n1 - k)
    jhi = np.minimum(n2, -((-i * n2) // n1) + k)
    jhi[:-1] = np.maximum(jhi[:-1], jlo[1:])
    return jlo, jhi


def _pair_terms(
    model: TranslationModel, lex: Lexicon, ids1: np.ndarray, off1: np.ndarray, ids2: np.ndarray,
    off2: np.ndarray, jlo: np.ndarray, jhi: np.ndarray, bg1: np.ndarray, bg2: np.ndarray, block_rows: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Lexical log-likelihood ratios of every sentence pair the band's beads use.

    For sentence ``s`` of doc1 and ``t`` in ``tlo[s]..thi[s]`` (column ``t - tlo[s]``):
    ``a11``/``b11`` the two directions of the 1-1 bead, ``a21`` direction A of ({s-1, s}, {t}),
    ``b12`` direction B of ({s}, {t-1, t}); every other bead's terms are sums of these.
    """
    n1, n2 = len(off1) - 1, len(off2) - 1
    s = np.arange(n1)
    tlo = np.maximum(0, jlo[s + 1] - 2)
    thi = np.minimum(n2 - 1, jhi[np.minimum(s + 2, n1)] - 1)
    width = int((thi - tlo).max()) + 1
    a11, b11, a21, b12 = (np.zeros((n1, width)) for _ in range(4))
    for b0 in range(0, n1, block_rows):
        b1 = min(n1, b0 + block_rows)
        s0 = max(b0 - 1, 0)  # the row before the block: 2-x beads reach back to it
        wlo, whi = int(tlo[s0]), int(thi[b1 - 1])
        rows, bid1 = _block_words(ids1, int(off1[s0]), int(off1[b1]), len(lex.words1))
        cols, bid2 = _block_words(ids2, int(off2[wlo]), int(off2[whi + 1]), len(lex.words2))
        tab = model.tables(lex, rows, cols, np.float32)
        _block_terms(b0, b1, s0, bid1, off1, bid2, off2, off2[wlo], tab.t21, tab.t12, tlo, thi, bg1, bg2,
                     a11, b11, a21, b12)
    return tlo, a11, b11, a21, b12


def _block_words(ids: np.ndarray, start: int, stop: int, n_words: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct words of tokens ``start:stop`` (sorted word indices) and each token's 1-based
    position among them: the rows or columns of a block's tables.

    Word indices are below ``n_words``, so a presence mask does what a sort would; a block that
    spans the whole document (most pages fit in one) has every word, in order
    (matchers.content.token_ids numbers the words as they first appear)."""
    tok = ids[start:stop]
    if start == 0 and stop == len(ids):
        return np.arange(n_words), tok + 1
    present = np.zeros(n_words + 1, np.int64)
    present[tok + 1] = 1
    rank = np.cumsum(present)
    return np.flatnonzero(present) - 1, rank[tok + 1]


def _beads(
    types: np.ndarray, ii: np.ndarray, jj: np.ndarray, la: np.ndarray, lb: np.ndarray, ll: np.ndarray,
    jlo: np.ndarray, jhi: np.ndarray, n2: int,
) -> tuple[list[Bead], bool]:
    """Beads of the path, and whether a supported bead touches the band's edge."""
    beads = []
    edge = False
    for t, i, j, a, b, length in zip(types.tolist(), ii.tolist(), jj.tolist(), la.tolist(), lb.tolist(),
                                     ll.tolist(), strict=True):
        i0, j0 = i - _DI[t], j - _DJ[t]
        src, tgt = tuple(range(i0, i)), tuple(range(j0, j))
        if not src or not tgt:
            beads.append(Bead(src, tgt, 0.0, 0.0, 0.0))
            continue
        lexical = 0.5 * (a + b)
        beads.append(Bead(src, tgt, _sigmoid(lexical + length), lexical, float(length)))
        if lexical > 0 and not edge:
            edge = any((c - jlo[r] <= 1 and jlo[r] > 0) or (jhi[r] - c <= 1 and jhi[r] < n2)
                       for r, c in ((i0, j0), (i, j)))
    return beads, edge


# Nats by which the merged side must explain the lone sentence better than its better half: a
# sentence repeating the other's words (a title printed twice) gains about nothing, a sentence
# carrying the rest of a split translation gains several nats per word it translates.
_MERGE_MIN_GAIN = 5.0


def _split_unsupported_merges(
    beads: list[Bead], terms: tuple[np.ndarray, ...], ch1: np.ndarray, ch2: np.ndarray, length_args: tuple[float, ...],
) -> list[Bead]:
    """A 2-1 or 1-2 bead is kept only when the merge explains the lone sentence's words better
    than either of the two sentences alone; otherwise the better 1-1 bead is given, and the other
    sentence as unaligned.

    The bead's score credits every word of the merged side that the lone sentence translates, so
    a sentence that repeats the other's words (a title printed twice, a heading beside its
    section's first sentence) or is made of function words earns the merge positive evidence
    though it translates nothing.  What a merge must show is coverage: the lone sentence's words
    (direction B of a 1-2 bead, A of a 2-1) are better explained by the two sentences together
    than by the better one alone, which is what a sentence split in translation does."""
    tlo, a11, b11, a21, b12 = terms
    out: list[Bead] = []
    for bead in beads:
        n1, n2 = len(bead.src), len(bead.tgt)
        if sorted((n1, n2)) != [1, 2]:
            out.append(bead)
            continue
        if n1 == 1:
            s, (t0, t1) = bead.src[0], bead.tgt
            c0, c1 = t0 - int(tlo[s]), t1 - int(tlo[s])
            if c0 < 0 or c1 >= a11.shape[1]:
                out.append(bead)
                continue
            merged, singles = b12[s, c1], (b11[s, c0], b11[s, c1])
        else:
            (s0, s1), t = bead.src, bead.tgt[0]
            c0, c1 = t - int(tlo[s0]), t - int(tlo[s1])
            if not (0 <= c0 < a11.shape[1] and 0 <= c1 < a11.shape[1]):
                out.append(bead)
                continue
            merged, singles = a21[s1, c1], (a11[s0, c0], a11[s1, c1])
        if merged > max(singles) + _MERGE_MIN_GAIN:
            out.append(bead)
            continue
        halves = []
        for s, t in ((bead.src[0], bead.tgt[0]), (bead.src[-1], bead.tgt[-1])):
            a, b, length = _terms(ONE_ONE, s + 1, t + 1, *terms, ch1, ch2, *length_args)
            lexical = 0.5 * (a + b)
            halves.append(Bead((s,), (t,), _sigmoid(lexical + length), lexical, float(length)))
        keep = max(range(2), key=lambda k: halves[k].lexical + halves[k].length)
        if n1 == 1:
            other = bead.tgt[1 - keep]
            lone = Bead((), (other,), 0.0, 0.0, 0.0)
        else:
            other = bead.src[1 - keep]
            lone = Bead((other,), (), 0.0, 0.0, 0.0)
        out.extend([halves[keep], lone] if keep == 0 else [lone, halves[keep]])
    return out


def _split_two_two(
    beads: list[Bead], terms: tuple[np.ndarray, ...], ch1: np.ndarray, ch2: np.ndarray, length_args: tuple[float, ...],
) -> list[Bead]:
    """A 2-2 bead is given as its two 1-1 halves when each half is a translation (prob > 0.5), or
    when no sentence of it is explained better by the other side's two sentences than by its own
    half (the merge's coverage, as in :func:`_split_unsupported_merges`): the same sentences, in
    the finest pairs the evidence supports.  The DP prefers the 2-2 bead when words of one half
    are translated in the other (a title and its byline), which the concatenation credits and the
    halves do not."""
    out: list[Bead] = []
    tlo, a11, b11, a21, b12 = terms
    width = a11.shape[1]
    for bead in beads:
        if len(bead.src) != 2 or len(bead.tgt) != 2:
            out.append(bead)
            continue
        (s0, s1), (t0, t1) = bead.src, bead.tgt
        cols = (t0 - int(tlo[s0]), t1 - int(tlo[s1]), t0 - int(tlo[s1]))
        if not all(0 <= c < width for c in cols):
            out.append(bead)
            continue
        halves = []
        for s, t in ((s0, t0), (s1, t1)):
            a, b, length = _terms(ONE_ONE, s + 1, t + 1, *terms, ch1, ch2, *length_args)
            lexical = 0.5 * (a + b)
            halves.append(Bead((s,), (t,), _sigmoid(lexical + length), lexical, float(length)))
        c00, c11, c10 = cols
        gains = (
            a21[s1, c10] - a11[s0, c00],  # t0 by s0 and s1, against s0 alone
            a21[s1, c11] - a11[s1, c11],  # t1 by s0 and s1, against s1 alone
            b12[s0, c00 + 1] - b11[s0, c00] if c00 + 1 < width else 0.0,  # s0 by t0 and t1, against t0
            b12[s1, c11] - b11[s1, c11],  # s1 by t0 and t1, against t1 alone
        )
        supported = max(gains) > _MERGE_MIN_GAIN
        if all(h.prob > 0.5 for h in halves) or not supported:
            out.extend(halves)
        else:
            out.append(bead)
    return out


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


# -- kernels ----------------------------------------------------------------------------------

# A running product of the kernel's factors (each between the smallest NULL translation
# probability and a sentence's length plus one) is folded into its log-sum past these bounds.
_TINY = 1e-150
_HUGE = 1e150


@numba.njit(cache=_CACHE, nogil=True)
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


@numba.njit(cache=_CACHE, nogil=True)
def _terms(bt, i, j, tlo, a11, b11, a21, b12, ch1, ch2, ratio, var, log_sd, coef):  # pragma: no cover
    # (direction A, direction B, length) log-likelihood ratios of bead type bt ending at (i, j).
    if _DI[bt] * _DJ[bt] == 0:  # an unaligned sentence: no evidence either way
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


@numba.njit(cache=_CACHE, nogil=True)
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


@numba.njit(cache=_CACHE, nogil=True)
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
        i -= _DI[bt]
        j -= _DJ[bt]
    types, ii, jj = types[:nb][::-1].copy(), ii[:nb][::-1].copy(), jj[:nb][::-1].copy()
    la = np.zeros(nb)
    lb = np.zeros(nb)
    ll = np.zeros(nb)
    for k in range(nb):
        la[k], lb[k], ll[k] = _terms(types[k], ii[k], jj[k], tlo, a11, b11, a21, b12, ch1, ch2, ratio, var,
                                     log_sd, coef)
    return types, ii, jj, la, lb, ll
