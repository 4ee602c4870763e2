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
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from matchers.content.alignment_dp import DI, DJ, ONE_ONE, align_band, sentence_backgrounds
from matchers.content.alignment_dp import terms as bead_terms
from matchers.content.token_ids import Encoded, encode
from matchers.content.translation_model import TranslationModel


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
    src = model.table_source(lex)
    ch1 = np.asarray(chars1, np.float64)
    ch2 = np.asarray(chars2, np.float64)
    tot1, tot2 = float(ch1.sum()), float(ch2.sum())
    ratio = float(np.clip(tot2 / tot1, 1 / params.max_ratio, params.max_ratio)) if tot1 > 0 and tot2 > 0 else 1.0
    bg1 = sentence_backgrounds(lex.bg1, ids1, off1)
    bg2 = sentence_backgrounds(lex.bg2, ids2, off2)
    logprior = np.log(np.asarray(params.priors, np.float64))
    sd = params.unrelated_sd
    length_args = (ratio, params.variance, math.log(sd), 0.5 * (1.0 - 1.0 / (sd * sd)))
    full = max(n1, n2)
    k = min(full, max(params.band_min, min(params.band_max, math.ceil(params.band_fraction * full))))
    while True:
        jlo, jhi, terms_, path = align_band(k, src, ids1, off1, ids2, off2, bg1, bg2, ch1, ch2, *length_args,
                                            logprior, params.block_rows)
        beads, edge = _beads(*path, jlo, jhi, n2)
        if not edge or k >= full:
            return _split_two_two(_split_unsupported_merges(beads, terms_, ch1, ch2, length_args), terms_, ch1, ch2,
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


def _beads(
    types: np.ndarray, ii: np.ndarray, jj: np.ndarray, la: np.ndarray, lb: np.ndarray, ll: np.ndarray,
    jlo: np.ndarray, jhi: np.ndarray, n2: int,
) -> tuple[list[Bead], bool]:
    """Beads of the path, and whether a supported bead touches the band's edge."""
    beads = []
    edge = False
    for t, i, j, a, b, length in zip(types.tolist(), ii.tolist(), jj.tolist(), la.tolist(), lb.tolist(),
                                     ll.tolist(), strict=True):
        i0, j0 = i - DI[t], j - DJ[t]
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
            a, b, length = bead_terms(ONE_ONE, s + 1, t + 1, *terms, ch1, ch2, *length_args)
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
            a, b, length = bead_terms(ONE_ONE, s + 1, t + 1, *terms, ch1, ch2, *length_args)
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


