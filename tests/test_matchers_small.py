"""Unit tests of the small matchers: size ratios, threshold, one-to-one, correlation, page index."""

import numpy as np
import pytest

from matchers.page.linearize import tag_code
from matchers.site.one_to_one import Scored, resolve_one_to_one
from matchers.site.page_index import CandidateSet, PageFeatures, SiteIndex
from matchers.structure.chunk_correlation import aligned_text_lengths, chunk_correlation
from matchers.structure.edit_distance import reference_distance
from matchers.structure.size_ratio import (
    file_size_difference,
    relative_difference,
    size_mask,
    size_passing,
    size_scores,
)
from matchers.structure.structure_threshold import scaled_limits, similarity

P, EP, DIV, EDIV = tag_code("p"), tag_code("p", True), tag_code("div"), tag_code("div", True)


def test_relative_difference():
    assert relative_difference(100, 70).tolist() == pytest.approx(0.3)
    assert relative_difference(0, 0).tolist() == 0.0
    assert relative_difference(10, np.array([10, 5, 20, 0])).tolist() == pytest.approx([0, 0.5, 0.5, 1.0])


def test_file_size_takes_the_closer_of_bytes_and_chars():
    # A Cyrillic page: twice the bytes of its Latin translation but as many characters.
    d = file_size_difference(2000, 1000, np.array([1000]), np.array([1050]))
    assert d[0] == pytest.approx(50 / 1050)


def test_size_mask_uses_the_paper_tolerances():
    scores = size_scores((1000, 1000, 100, 10), (np.array([720, 650, 1000]), np.array([720, 650, 1000]),
                                                 np.array([85, 100, 79]), np.array([7, 10, 10])))
    mask = size_mask(scores, 0.30, 0.20, 0.40)
    assert mask.tolist() == [True, False, False]


def test_size_passing_selects_and_scores_what_the_mask_does():
    rng = np.random.default_rng(7)
    for _ in range(20):
        n = int(rng.integers(0, 400))
        columns = tuple(rng.integers(0, 60, n) * int(rng.integers(1, 300)) for _ in range(4))
        rows = np.sort(rng.choice(n, size=int(rng.integers(0, n + 1)), replace=False)).astype(np.int64)
        own = tuple(int(x) for x in rng.integers(0, 60, 4) * 20)
        tolerances = (0.30, 0.20, 0.40) if rng.random() < 0.5 else tuple(rng.random(3))
        scores = size_scores(own, tuple(c[rows] for c in columns))
        expected = np.flatnonzero(size_mask(scores, *tolerances))
        keep, kept_rows, kept_scores = size_passing(own, columns, rows, *tolerances)
        assert keep.tolist() == expected.tolist()
        assert kept_rows.tolist() == rows[expected].tolist()
        for name, values in scores.items():
            assert kept_scores[name].tolist() == values[expected].tolist()  # the very same floats


def test_threshold_grows_linearly_and_similarity():
    limits = scaled_limits(100, np.array([50, 200]), 0.3)
    assert limits.tolist() == [300, 600]  # 0.3 * longer length, in tenths
    assert similarity(np.array([0, 300, 1000]), 100, np.array([100, 100, 100])).tolist() == pytest.approx(
        [1.0, 0.7, 0.0]
    )


def test_one_to_one_best_first_per_language():
    cands = [
        Scored(1, "en", 2, "fr", 0.9),
        Scored(1, "en", 3, "fr", 0.95),  # better partner for page 1 in French
        Scored(4, "en", 2, "fr", 0.5),
        Scored(1, "en", 5, "de", 0.7),  # another language: allowed as well
        Scored(6, "en", 7, "en", 1.0),  # same language: never
    ]
    chosen = {(c.page1, c.page2) for c in resolve_one_to_one(cands)}
    assert chosen == {(1, 3), (4, 2), (1, 5)}


def test_one_to_one_is_deterministic_on_ties():
    cands = [Scored(3, "en", 4, "fr", 0.5), Scored(1, "en", 4, "fr", 0.5)]
    assert [(c.page1, c.page2) for c in resolve_one_to_one(cands)] == [(1, 4)]
    assert [(c.page1, c.page2) for c in resolve_one_to_one(reversed(cands))] == [(1, 4)]


def test_one_to_one_breaks_score_ties_by_the_finer_evidence():
    # Equal (saturated) decision scores: the pair with the higher structure similarity wins,
    # whatever the page ids; a missing tiebreak orders last.
    cands = [
        Scored(1, "en", 4, "fr", 0.5, (0.962, -1.0)),
        Scored(3, "en", 4, "fr", 0.5, (0.974, -1.0)),
        Scored(5, "en", 4, "fr", 0.5),
    ]
    for order in (cands, cands[::-1]):
        assert [(c.page1, c.page2) for c in resolve_one_to_one(order)] == [(3, 4)]
    # the score still comes first
    assert resolve_one_to_one([Scored(1, "en", 2, "fr", 0.6, (0.1,)), Scored(3, "en", 2, "fr", 0.5, (0.9,))])[0].page1 == 1


def _seq(lengths):
    out = [DIV]
    for n in lengths:
        out += [P, n, EP]
    return np.array(out + [EDIV], dtype=np.int32)


def test_chunk_correlation_translation_vs_shuffled_lengths():
    a = _seq([5, 40, 12, 80, 3, 25])
    b = _seq([6, 45, 10, 90, 4, 22])  # a translation: lengths follow
    c = _seq([80, 3, 40, 5, 25, 12])  # same template, unrelated text
    assert aligned_text_lengths(a, b)[0].tolist() == [5, 40, 12, 80, 3, 25]
    r_ab, n_ab = chunk_correlation(a, b)
    r_ac, _ = chunk_correlation(a, c)
    assert n_ab == 6 and r_ab > 0.95
    assert r_ac < 0.0


def test_chunk_correlation_alignment_is_optimal():
    rng = np.random.default_rng(1)
    for _ in range(20):
        a = _seq(rng.integers(1, 30, rng.integers(0, 8)))
        b = _seq(rng.integers(1, 30, rng.integers(0, 8)))
        xs, ys = aligned_text_lengths(a, b)
        # Aligned chunks cost at most the whole distance.
        assert np.minimum(np.abs(xs - ys), 10).sum() <= reference_distance(a, b)
    r, n = chunk_correlation(_seq([5]), _seq([7]))
    assert np.isnan(r) and n == 1


def _page(url, lang, lengths):
    toks = _seq(lengths)
    return PageFeatures(url, lang, 1000, 1000, 10, len(lengths), toks)


def test_site_index_registers_and_returns_other_languages():
    idx = SiteIndex("s")
    assert idx.register(_page("/en/1", "en", [3, 4])) == []
    assert idx.register(_page("/en/2", "en", [5, 6])) == []
    cands = idx.register(_page("/fr/1", "fr", [3, 4]))
    assert len(cands) == 1 and cands[0].lang == "en" and cands[0].rows.tolist() == [0, 1]
    cands = idx.register(_page("/de/1", "de", [3, 4]))
    assert sorted(c.lang for c in cands) == ["en", "fr"]
    assert idx.register(_page("/de/1", "de", [3, 4])) == []  # already registered
    assert idx.index("en").urls == ["/en/1", "/en/2"]


def test_site_index_duplicates():
    idx = SiteIndex("s")
    long = list(range(1, 12))
    idx.register(_page("/en/a/", "en", long))
    assert idx.duplicate_of(_page("/en/a/index.html", "en", long)) == "/en/a/"
    assert idx.duplicate_of(_page("/fr/a", "fr", long)) is None  # other language: a translation
    assert idx.duplicate_of(_page("/en/b", "en", [1, 2])) is None  # too short to tell


def test_candidate_set_narrow_keeps_scores_aligned():
    c = CandidateSet("en", np.array([4, 5, 6]))
    c.add_scores(a=np.array([0.1, 0.2, 0.3]))
    c.narrow(np.array([True, False, True]))
    assert c.rows.tolist() == [4, 6] and c.scores["a"].tolist() == [0.1, 0.3]


def test_chunk_alignment_on_the_distance_s_diagonals_is_the_whole_matrix_s():
    """The correlation's alignment searched only on the diagonals the distance allows is the one
    the whole matrix gives, ties included (the tag sequences of one template tie a lot)."""
    from matchers.structure.chunk_correlation import (
        _aligned_text_lengths_banded,
        batch_chunk_correlation,
        diagonals,
    )
    from matchers.structure.edit_distance import full_distance

    rng = np.random.default_rng(7)
    pages = []
    for _ in range(60):
        base = list(rng.integers(1, 12, rng.integers(0, 12)))
        edited = [n + int(rng.integers(-2, 3)) if rng.random() < 0.5 else n for n in base if rng.random() > 0.15]
        edited = [max(1, n) for n in edited] + list(rng.integers(1, 12, rng.integers(0, 3)))
        pages.append((_seq(base), _seq(edited)))
    flat = np.concatenate([b for _, b in pages]).astype(np.int32)
    offsets = np.concatenate([[0], np.cumsum([len(b) for _, b in pages])]).astype(np.int64)
    for row, (a, b) in enumerate(pages):
        whole = _aligned_text_lengths_banded(a, b, -len(a), len(b))
        d = full_distance(a, b)
        dlo, dhi = diagonals(len(a), len(b), d)
        assert dhi - dlo <= d // 10  # at most the distance's insertions and deletions wide
        banded = _aligned_text_lengths_banded(a, b, dlo, dhi)
        assert banded[0].tolist() == whole[0].tolist() and banded[1].tolist() == whole[1].tolist()
        r, n = batch_chunk_correlation(a, flat, offsets, np.array([row]), np.array([d]))
        assert n[0] == len(whole[0])
        expected = chunk_correlation(a, b)[0]
        assert (np.isnan(r[0]) and np.isnan(expected)) or r[0] == expected
        xs, ys = aligned_text_lengths(a, b)
        assert xs.tolist() == whole[0].tolist() and ys.tolist() == whole[1].tolist()
