"""The combined decision (matchers/site/decision.py) on hand-checked evidence."""

import pytest

from matchers.site.decision import ACCEPT, Evidence, decide, user_scores


def test_structure_alone_is_enough_while_the_model_is_young():
    d = decide(Evidence(structure=0.8, content_share=0.2, maturity=0.1))
    assert d.terms == pytest.approx({"structure": 0.4, "content": 0.01})
    assert d.score == pytest.approx(0.41) and d.score >= ACCEPT and d.accepted
    assert not decide(Evidence(structure=0.75)).accepted  # a bare pass near the threshold needs support


def test_each_term_and_the_threshold():
    d = decide(Evidence(structure=0.9, content_share=0.8, maturity=1.0, fingerprint_ratio=0.25))
    assert d.terms == pytest.approx({"structure": 0.45, "content": 0.4, "fingerprint": 0.15})
    assert d.score == pytest.approx(1.0) and d.accepted
    weak = decide(Evidence(link=0.3, images=0.5))  # mutual links and some shared images only
    assert weak.score == pytest.approx(0.25) and not weak.accepted


def test_url_key_needs_support():
    alone = decide(Evidence(url_key=0.95))
    assert alone.score == pytest.approx(0.38) and not alone.accepted
    assert decide(Evidence(url_key=0.9, fingerprint_ratio=0.3)).accepted


def test_a_trained_model_that_aligns_nothing_contradicts():
    d = decide(Evidence(structure=0.9, content_share=0.05, maturity=1.0))
    assert d.terms["contradiction"] == -1.0 and not d.accepted
    young = decide(Evidence(structure=0.9, content_share=0.05, maturity=0.5))
    assert "contradiction" not in young.terms and young.accepted


def test_vetoes():
    strong = dict(structure=1.0, content_share=1.0, maturity=1.0, url_key=1.0, link=1.0)
    assert decide(Evidence(**strong, same_language=True)).veto == "same language"
    d = decide(Evidence(**strong, near_duplicate="http://a/x"))
    assert not d.accepted and d.veto.startswith("near-duplicate")
    assert not decide(Evidence(structure=0.9, too_little_content=True)).accepted
    assert decide(Evidence(structure=0.9, too_little_content=True), content_required=False).accepted


def test_failed_structure_adds_nothing_and_nan_is_no_evidence():
    d = decide(Evidence(structure=0.9, structure_failed=True, content_share=float("nan"), maturity=1.0))
    assert d.terms == {} and d.score == 0.0


def test_user_scores_enter_the_sum_clipped():
    scores = {"x_numbers": 0.2, "x_big": 5.0, "structure": 0.9, "x_flag": True, "x_none": None}
    assert user_scores(scores) == {"x_numbers": 0.2, "x_big": 5.0}
    d = decide(Evidence(structure=0.8, user=user_scores(scores)))
    assert d.terms["x_big"] == 1.0 and d.terms["x_numbers"] == 0.2
