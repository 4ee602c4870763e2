"""Per-site, per-language-pair structural thresholds estimated without labelled pairs.

Jangeldin & Assylbekov, *Simple and accurate method for parallel web pages detection*.

Section 3.1 (features).  Both pages are linearized as in STRAND and the two token sequences are
aligned; with ``M1``, ``M2`` the numbers of alignment tokens of the two pages, ``L1``, ``L2`` the
total lengths of their texts and ``W`` "the total number of alignment tokens that are present in
one file, but not the other", a pair is described by

    P_d = W / (M1 + M2)        L_d = (L1 - L2) / (L1 + L2).

Their Figure 2 shows what is counted: every ``[START: x]``, ``[END: x]`` and ``[Chunk: n]`` is one
token, a chunk aligns with any chunk whatever its length, and ``L`` is the sum of the chunk
lengths (23 + 23 + 72 = 118 and 21 + 69 = 90).  The alignment is a diff (their reference [6],
Hunt & McIlroy), so only insertions and deletions exist and ``W = M1 + M2 - 2 * LCS``: a tag
facing a different tag is two unaligned tokens, not one substitution.  That is why ``W`` is not
taken from :mod:`matchers.structure.edit_distance` (substitutions cost 1 there, and ``<text_n>`` against
``<text_m>`` costs by the length difference); :func:`alignment_cost` computes it directly with
rapidfuzz's Indel distance, which is exactly ``M1 + M2 - 2 * LCS``.

Our tokens (:mod:`matchers.page.linearize`) carry the *word* count of a chunk, not its characters, so
by default ``L`` is a word count.  Any unit works as long as all pairs of one estimate share it:
the method only needs ``L1 ~ c * L2`` for translations (section 3.2, eq. 1), and ``mu`` absorbs
``c`` per language pair.  ``L_d`` is antisymmetric, so all pairs of one estimate must put the same
language first (:func:`pair_key` gives the canonical order; :meth:`PairFeatures.swapped` flips).

Section 3.2, Algorithm 1 (threshold on ``|L_d - mu|``), read as follows:

* ``S`` = pairs with ``P_d < 0.2`` (STRAND's threshold, strict), ``D`` = pairs of ``S`` with
  ``P_d = 0``, ``mu`` = mean ``L_d`` over ``D``.
* ``threshold = 0.01``; ``N`` = ``#{s in S : |L_d - mu| < threshold}`` (strict).  Then repeat:
  ``threshold += step``; ``N_new`` = the same count; ``Delta = N_new / N - 1``; ``N = N_new``;
  while ``Delta >= 0.01``.  So ``Delta`` is a *relative* growth of the count, and the returned
  threshold is the one of the last, failing iteration (the loop increments before it tests).
* The decision (eq. 4) is ``P_d < 0.2 and |L_d - mu| < threshold``.

Choices where the paper is silent, documented here and in the code:

* ``N = 0`` (no pair yet within the threshold) makes ``N_new / N`` undefined; we read it as
  infinite growth and keep widening.  The loop still ends: ``|L_d - mu| <= 2`` for every pair,
  so the count stops growing once the threshold passes 2.
* With fewer than ``1 / delta`` pairs inside, a single new pair is already a growth of
  ``>= delta``, so on small samples the loop only stops at an empty band of width ``step``;
  that is why :func:`enough_candidates` asks for ``min_pairs`` (default 100) pairs first.
* The paper's Table 3 (akorda 0.15 / 13, egov 0.24 / 22, mfa 0.16 / 14, presidencia 0.09 / 7,
  pm.gc.ca 0.08 / 6) satisfies ``threshold = 0.01 + 0.01 * (iterations + 1)`` on every row, so
  its "iterations" do not count the last, failing pass; ours (``len(history)``) do, i.e. are one
  more than the paper's for the same run (tested).
* No pair with ``P_d = 0`` leaves ``mu`` undefined: :func:`estimate_threshold` raises and
  :func:`enough_candidates` says no, so the crawl keeps its fixed thresholds for that pair.
"""

from __future__ import annotations

import bisect
import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Indel

# STRAND's P_d threshold (Resnik & Smith 2003), which the paper keeps for every language pair.
STRAND_MAX_P_D = 0.2
# Algorithm 1's starting threshold, step and stopping growth.
INITIAL_THRESHOLD = 0.01
DEFAULT_STEP = 0.01
DEFAULT_DELTA = 0.01
# Below 1 / delta pairs a single new pair always counts as enough growth (see module docstring).
DEFAULT_MIN_PAIRS = 100

# Every text chunk aligns with every other one (STRAND's [Chunk: n] tokens), so all positive
# tokens are mapped to one symbol before the diff; tag codes are negative and stay as they are.
_CHUNK = 0


@dataclass(frozen=True)
class PairFeatures:
    """The two features of one candidate pair (section 3.1)."""

    p_d: float
    l_d: float

    def swapped(self) -> PairFeatures:
        """The same pair with the other page first: ``P_d`` is symmetric, ``L_d`` changes sign."""
        return PairFeatures(self.p_d, -self.l_d)


@dataclass(frozen=True)
class Step:
    """One pass of Algorithm 1's loop: the threshold tried, the count inside it, its growth."""

    threshold: float
    count: int
    growth: float


@dataclass(frozen=True)
class ThresholdResult:
    mu: float
    threshold: float
    iterations: int  # passes of the loop, the final failing one included (= len(history))
    history: tuple[Step, ...]
    max_p_d: float  # the P_d bound that defined S; accept() uses it by default
    n_candidates: int  # |S|
    n_zero: int  # |D|, the pairs mu was estimated from
    converged: bool  # False when max_iter stopped the loop


def features_from_counts(w: int, m1: int, m2: int, l1: float, l2: float) -> PairFeatures:
    """``P_d = W / (M1 + M2)`` and ``L_d = (L1 - L2) / (L1 + L2)``.

    Raises ValueError when a denominator is 0: two empty pages, or two pages without text, say
    nothing about parallelism and must not pull ``mu`` (an empty pair would have ``P_d = 0``).
    """
    if m1 + m2 <= 0:
        raise ValueError("both token sequences are empty")
    if l1 + l2 <= 0:
        raise ValueError("neither page has text")
    return PairFeatures(p_d=w / (m1 + m2), l_d=(l1 - l2) / (l1 + l2))


def _diff_symbols(tokens: np.ndarray | Sequence[int]) -> array:
    # Tag codes are negative int32; negated they are unsigned, which rapidfuzz compares in place
    # in an array.array (it hashes a list element by element).  The decision at close keeps one
    # per page of its candidates: 4 bytes a token here against about 36 in a list of ints.
    arr = np.asarray(tokens, dtype=np.int64)
    return array("I", np.where(arr > 0, -_CHUNK, -arr).astype(np.uint32).tobytes())


def alignment_cost(a: np.ndarray | Sequence[int], b: np.ndarray | Sequence[int]) -> int:
    """``W``: tokens left unaligned by a diff (LCS) alignment of two STRAND token sequences.

    Tags match equal tags, any text chunk matches any text chunk; ``W = M1 + M2 - 2 * LCS``.
    """
    return int(Indel.distance(_diff_symbols(a), _diff_symbols(b)))


@dataclass(frozen=True)
class SequenceShape:
    """What :func:`shape_features` needs of one page, computed once per page rather than once per
    pair (a page takes part in many candidate pairs)."""

    symbols: array  # diff symbols: tags negated, every text chunk one symbol
    length: int  # M, tokens
    text_length: float  # L


def shape(tokens: np.ndarray | Sequence[int], text_len: float | None = None) -> SequenceShape:
    arr = np.asarray(tokens, dtype=np.int64)
    length = float(arr[arr > 0].sum()) if text_len is None else float(text_len)
    return SequenceShape(_diff_symbols(arr), len(arr), length)


def shape_features(a: SequenceShape, b: SequenceShape) -> PairFeatures:
    """:func:`features` of two precomputed shapes (``a`` in the pair's first language)."""
    w = int(Indel.distance(a.symbols, b.symbols))
    return features_from_counts(w, a.length, b.length, a.text_length, b.text_length)


def features(
    a: np.ndarray | Sequence[int],
    b: np.ndarray | Sequence[int],
    text_len_a: float | None = None,
    text_len_b: float | None = None,
) -> PairFeatures:
    """Features of a pair from the two pages' token sequences (:mod:`matchers.page.linearize` codes).

    ``a`` must be the page in the first language of the pair (see :func:`pair_key`).  ``L`` is
    the sum of the text tokens (words) unless ``text_len_a``/``text_len_b`` give another length
    (e.g. characters, as in the paper); use one unit for all pairs of an estimate.
    """
    return shape_features(shape(a, text_len_a), shape(b, text_len_b))


def pair_key(site: str, lang_a: str, lang_b: str) -> tuple[str, str, str]:
    """Key of the sample a pair belongs to; its languages in the order ``L_d`` is computed in."""
    first, second = sorted((lang_a, lang_b))
    return site, first, second


def _split(feats: Sequence[PairFeatures], max_p_d: float) -> tuple[list[float], list[float]]:
    """``L_d`` of S and of D (the P_d = 0 pairs of S)."""
    s = [f.l_d for f in feats if f.p_d < max_p_d]
    d = [f.l_d for f in feats if f.p_d == 0.0 and f.p_d < max_p_d]
    return s, d


def enough_candidates(
    feats: Sequence[PairFeatures],
    min_pairs: int = DEFAULT_MIN_PAIRS,
    max_p_d: float = STRAND_MAX_P_D,
    min_zero: int = 1,
) -> bool:
    """Whether a site/language pair's sample can replace the fixed thresholds.

    At least ``min_pairs`` pairs with ``P_d < max_p_d`` (the set the loop counts in) and at
    least ``min_zero`` of them with ``P_d = 0`` (the pairs ``mu`` comes from).
    """
    s, d = _split(feats, max_p_d)
    return len(s) >= min_pairs and len(d) >= max(min_zero, 1)


def estimate_threshold(
    feats: Sequence[PairFeatures],
    step: float = DEFAULT_STEP,
    delta: float = DEFAULT_DELTA,
    max_iter: int = 1000,
    *,
    initial: float = INITIAL_THRESHOLD,
    max_p_d: float = STRAND_MAX_P_D,
) -> ThresholdResult:
    """Algorithm 1: ``mu`` from the ``P_d = 0`` pairs, then the ``|L_d - mu|`` threshold.

    ``delta`` is the paper's relative growth ``N_new / N - 1`` below which the loop stops
    (0.01 in the paper); larger values stop earlier (precision), smaller later (recall).
    Raises ValueError without any pair of ``P_d = 0`` below ``max_p_d``.
    """
    if step <= 0:
        raise ValueError("step must be positive")
    s, d = _split(feats, max_p_d)
    if not d:
        raise ValueError("no pair with P_d = 0: mu is undefined")
    mu = math.fsum(d) / len(d)
    deviations = sorted(abs(x - mu) for x in s)

    def inside(threshold: float) -> int:
        return bisect.bisect_left(deviations, threshold)  # strict: |L_d - mu| < threshold

    threshold = initial
    n = inside(threshold)
    history: list[Step] = []
    converged = False
    for k in range(1, max_iter + 1):
        # initial + k * step rather than repeated += so the thresholds do not drift.
        threshold = initial + k * step
        n_new = inside(threshold)
        growth = math.inf if n == 0 else n_new / n - 1
        history.append(Step(threshold, n_new, growth))
        n = n_new
        if growth < delta:
            converged = True
            break
    return ThresholdResult(
        mu=mu,
        threshold=threshold,
        iterations=len(history),
        history=tuple(history),
        max_p_d=max_p_d,
        n_candidates=len(s),
        n_zero=len(d),
        converged=converged,
    )


def accept(f: PairFeatures, result: ThresholdResult, max_p_d: float | None = None) -> bool:
    """Eq. 4: ``P_d < 0.2 and |L_d - mu| < threshold`` (``max_p_d`` defaults to the estimate's)."""
    bound = result.max_p_d if max_p_d is None else max_p_d
    return f.p_d < bound and abs(f.l_d - result.mu) < result.threshold
