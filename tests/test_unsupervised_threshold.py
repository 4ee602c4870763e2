"""Tests of the unsupervised P_d / L_d thresholds (Jangeldin & Assylbekov, sections 3.1-3.2, Table 3)."""

import math

import numpy as np
import pytest

from matchers.page.linearize import tag_code
from matchers.structure.unsupervised_threshold import (
    PairFeatures,
    accept,
    alignment_cost,
    enough_candidates,
    estimate_threshold,
    features,
    features_from_counts,
    pair_key,
)


def _t(name: str, end: bool = False) -> int:
    return tag_code(name, end)


# The paper's Figure 2: English and Kazakh pages, aligned and linearized.
EN_FIG2 = [_t("html"), _t("title"), 23, _t("title", True), _t("body"), _t("h1"), 23, _t("h1", True), 72]
KK_FIG2 = [_t("html"), _t("title"), 21, _t("title", True), _t("body"), 69]


def test_figure_2_counts_and_features():
    # The paper: M1 = 9, M2 = 6, L1 = 118, L2 = 90, W = 3.
    assert (len(EN_FIG2), len(KK_FIG2)) == (9, 6)
    assert alignment_cost(EN_FIG2, KK_FIG2) == 3
    f = features(np.array(EN_FIG2, dtype=np.int32), np.array(KK_FIG2, dtype=np.int32))
    assert f.p_d == pytest.approx(3 / 15)
    assert f.l_d == pytest.approx((118 - 90) / (118 + 90))


def test_figure_2_pair_sits_on_the_strict_p_d_bound():
    # P_d = 0.2 exactly is outside "P_d < 0.2" (eq. 3/4), whatever L_d is.
    f = features(EN_FIG2, KK_FIG2)
    res = estimate_threshold([PairFeatures(0.0, f.l_d)] * 3)
    assert abs(f.l_d - res.mu) < res.threshold
    assert not accept(f, res)
    assert accept(f, res, max_p_d=0.21)


def test_section_3_1_normalized_cost_examples():
    # W' = W'' = 2 but M' = 10 + 10, M'' = 100 + 100: P'_d = 0.1, P''_d = 0.01.
    assert features_from_counts(2, 10, 10, 5, 5).p_d == pytest.approx(0.1)
    assert features_from_counts(2, 100, 100, 5, 5).p_d == pytest.approx(0.01)


def test_l_d_is_signed_and_antisymmetric():
    # L'_1 = 400, L'_2 = 600 and the reverse: |L_d| = 0.2 for both, L_d = -0.2 and +0.2.
    a = features_from_counts(0, 10, 10, 400, 600)
    b = features_from_counts(0, 10, 10, 600, 400)
    assert (a.l_d, b.l_d) == (pytest.approx(-0.2), pytest.approx(0.2))
    assert a.swapped() == PairFeatures(a.p_d, b.l_d)
    fa = features(EN_FIG2, KK_FIG2)
    fb = features(KK_FIG2, EN_FIG2)
    assert fb.p_d == fa.p_d and fb.l_d == pytest.approx(-fa.l_d)


def test_equation_1_length_ratio():
    # L1 = c * L2  =>  L_d = (c - 1) / (c + 1).
    c = 1.17
    assert features_from_counts(0, 4, 4, c * 1000, 1000).l_d == pytest.approx((c - 1) / (c + 1))


def test_alignment_cost_is_a_diff_not_a_weighted_edit():
    p, ep, h2, eh2 = _t("p"), _t("p", True), _t("h2"), _t("h2", True)
    # Chunks align with chunks whatever their lengths.
    assert alignment_cost([p, 5, ep], [p, 500, ep]) == 0
    # A tag facing another tag is one deletion plus one insertion.
    assert alignment_cost([p, 5, ep], [h2, 5, eh2]) == 4
    assert alignment_cost([p, 5, ep], [p, 5, ep, p, 7, ep]) == 3
    # Text tokens are not tags: a chunk never aligns with a tag.
    assert alignment_cost([5], [p]) == 2


def test_alignment_cost_is_the_indel_distance_of_tags_and_chunk_symbols():
    # Tag codes span the whole negative int32 range; the compact symbols must not merge any two.
    from rapidfuzz.distance import Indel

    rng = np.random.default_rng(11)
    tags = np.array([-(2**31) + 1, -(2**30), -70_000, -3, -2, -1])
    for _ in range(200):
        a, b = (np.where(rng.random(n) < 0.3, rng.integers(1, 400, n), rng.choice(tags, n))
                for n in rng.integers(0, 40, 2))
        reference = Indel.distance([0 if t > 0 else int(t) for t in a], [0 if t > 0 else int(t) for t in b])
        assert alignment_cost(a, b) == reference


def test_word_counts_are_the_default_length_and_can_be_replaced():
    f = features(EN_FIG2, KK_FIG2, text_len_a=300, text_len_b=100)
    assert f.l_d == pytest.approx(0.5)
    assert f.p_d == pytest.approx(0.2)


def test_empty_pages_have_no_features():
    with pytest.raises(ValueError):
        features([], [])
    with pytest.raises(ValueError):
        features([_t("p")], [_t("p")])  # no text on either side


def test_pair_key_orders_languages():
    assert pair_key("s", "kk", "en") == pair_key("s", "en", "kk") == ("s", "en", "kk")


def test_mu_comes_from_the_p_d_zero_pairs_only():
    feats = [
        PairFeatures(0.0, 0.10),
        PairFeatures(0.0, 0.30),
        PairFeatures(0.05, -0.60),  # in S but not in D: counted, not averaged
        PairFeatures(0.5, 0.90),  # P_d >= 0.2: not in S at all
    ]
    res = estimate_threshold(feats)
    assert res.mu == pytest.approx(0.2)
    assert (res.n_candidates, res.n_zero) == (3, 2)


def _staircase(bands: int) -> list[PairFeatures]:
    # mu = 0 from two P_d = 0 pairs at +-0.005, then one pair in the middle of each further band
    # of width 0.01 (|L_d - mu| = 0.015, 0.025, ...), and a far outlier the loop must not reach.
    feats = [PairFeatures(0.0, 0.005), PairFeatures(0.0, -0.005)]
    feats += [PairFeatures(0.1, (-1) ** k * (0.005 + 0.01 * k)) for k in range(1, bands)]
    return feats + [PairFeatures(0.1, 0.9)]


def test_iteration_by_hand():
    res = estimate_threshold(_staircase(14), step=0.01, delta=0.01)
    # threshold 0.02 .. 0.14 each admit one more pair (2 -> 3 -> ... -> 15); 0.15 admits none.
    assert [s.count for s in res.history] == list(range(3, 16)) + [15]
    assert res.history[0].growth == pytest.approx(0.5)
    assert res.history[-1].growth == 0.0
    assert res.threshold == pytest.approx(0.15)
    assert res.iterations == 14 and res.converged
    assert res.mu == pytest.approx(0.0)


@pytest.mark.parametrize(
    "site,threshold,paper_iterations",
    [("akorda.kz", 0.15, 13), ("egov.kz", 0.24, 22), ("mfa.kz", 0.16, 14), ("pr-cia.pt", 0.09, 7),
     ("pm.gc.ca", 0.08, 6)],
)
def test_table_3_threshold_iteration_relation(site, threshold, paper_iterations):
    # Table 3 fits threshold = 0.01 + 0.01 * (iterations + 1): a run that stops at the paper's
    # threshold has made one more pass than the paper reports (its last pass is the failing one).
    bands = round((threshold - 0.01) / 0.01)
    res = estimate_threshold(_staircase(bands))
    assert res.threshold == pytest.approx(threshold)
    assert res.iterations == paper_iterations + 1


def test_delta_is_relative_growth():
    # 200 pairs inside 0.01, then one more per band: +1/200 = 0.5% < 1% stops at once ...
    feats = [PairFeatures(0.0, 0.0)] * 200 + [PairFeatures(0.1, 0.015), PairFeatures(0.1, 0.025)]
    res = estimate_threshold(feats, step=0.01, delta=0.01)
    assert (res.threshold, res.iterations) == (pytest.approx(0.02), 1)
    assert res.history[0].growth == pytest.approx(1 / 200)
    # ... while a looser delta keeps adding them until the band is empty.
    res = estimate_threshold(feats, step=0.01, delta=0.001)
    assert [s.count for s in res.history] == [201, 202, 202]
    assert res.threshold == pytest.approx(0.04)


def test_larger_step_converges_in_fewer_iterations():
    res = estimate_threshold(_staircase(14), step=0.05)
    # Thresholds 0.06, 0.11, 0.16 admit five, five and three more pairs; 0.21 none.
    assert [s.count for s in res.history] == [7, 12, 15, 15]
    assert res.threshold == pytest.approx(0.21)


def test_all_pairs_equal_stops_after_one_pass():
    res = estimate_threshold([PairFeatures(0.0, 0.07)] * 10)
    assert res.mu == pytest.approx(0.07)
    assert (res.threshold, res.iterations) == (pytest.approx(0.02), 1)
    assert res.history[0].count == 10 and res.history[0].growth == 0.0


def test_no_pair_inside_the_first_threshold_keeps_widening():
    # mu = 0 lies between the only two pairs, 0.505 away from each: N = 0 is read as "keep going".
    res = estimate_threshold([PairFeatures(0.0, 0.505), PairFeatures(0.0, -0.505)])
    assert [s.count for s in res.history] == [0] * 49 + [2, 2]
    assert all(math.isinf(s.growth) for s in res.history[:-1])
    assert res.history[-1].growth == 0.0
    assert res.threshold == pytest.approx(0.52)
    assert res.iterations == 51


def test_max_iter_stops_without_convergence():
    res = estimate_threshold(_staircase(14), max_iter=3)
    assert (res.iterations, res.converged) == (3, False)
    assert res.threshold == pytest.approx(0.04)


def test_no_p_d_zero_pair_is_refused():
    feats = [PairFeatures(0.05, 0.0)] * 200
    assert not enough_candidates(feats, min_pairs=10)
    with pytest.raises(ValueError):
        estimate_threshold(feats)


def test_enough_candidates_counts_pairs_below_the_p_d_bound():
    feats = [PairFeatures(0.0, 0.0)] * 5 + [PairFeatures(0.1, 0.0)] * 94 + [PairFeatures(0.3, 0.0)] * 50
    assert not enough_candidates(feats, min_pairs=100)  # 99 in S; the 50 above 0.2 do not count
    assert enough_candidates(feats + [PairFeatures(0.19, 0.0)], min_pairs=100)
    assert not enough_candidates(feats + [PairFeatures(0.19, 0.0)], min_pairs=100, min_zero=6)


def test_accept_is_equation_4():
    res = estimate_threshold(_staircase(14))  # mu = 0, threshold 0.15
    assert accept(PairFeatures(0.19, 0.149), res)
    assert accept(PairFeatures(0.0, -0.149), res)
    assert not accept(PairFeatures(0.0, 0.151), res)
    assert not accept(PairFeatures(0.2, 0.0), res)


def test_counts_are_strict_at_the_threshold():
    # Binary fractions so the pair lies exactly on a threshold: |L_d - mu| = 0.5 is not inside 0.5.
    feats = [PairFeatures(0.0, 0.0), PairFeatures(0.0, 0.0), PairFeatures(0.1, 0.5)]
    res = estimate_threshold(feats, step=0.25, initial=0.25)
    assert [s.count for s in res.history] == [2]
    assert res.threshold == 0.5
    assert not accept(PairFeatures(0.1, 0.5), res)
    assert accept(PairFeatures(0.1, 0.4375), res)
