"""Sentence alignment under the IBM-1 model (matchers/content/sentence_align.py)."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from matchers.content.sentence_align import (
    DEFAULT_PARAMS,
    AlignParams,
    Bead,
    align,
    content_scores,
)
from matchers.content.token_ids import encode
from matchers.content.training_pairs import training_pairs
from matchers.content.translation_model import TranslationModel

VOCAB = 300


def chars(doc: list[list[str]]) -> list[int]:
    return [sum(len(w) + 1 for w in s) for s in doc]


def sentence(rng: np.random.Generator, vocab: int = VOCAB) -> np.ndarray:
    p = 1.0 / np.arange(1, vocab + 1)
    return rng.choice(vocab, size=int(rng.integers(4, 14)), p=p / p.sum())


def translate(ids: np.ndarray, rng: np.random.Generator) -> list[str]:
    """The toy language pair: a<i> translates as b<i>; word order differs."""
    return [f"b{i}" for i in rng.permutation(ids)]


def parallel(rng: np.random.Generator, n: int) -> tuple[list[list[str]], list[list[str]]]:
    ids = [sentence(rng) for _ in range(n)]
    return [[f"a{i}" for i in s] for s in ids], [translate(s, rng) for s in ids]


@pytest.fixture(scope="module")
def model() -> TranslationModel:
    rng = np.random.default_rng(1)
    m = TranslationModel("xa", "xb", uniform=1e-3)
    for _ in range(15):
        d1, d2 = parallel(rng, 20)
        m.update(list(zip(d1, d2, strict=True)))
    return m


def spans(beads: list[Bead]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    return [(b.src, b.tgt) for b in beads]


def test_recovers_an_inserted_and_a_merged_sentence(model: TranslationModel) -> None:
    for seed in range(3):
        rng = np.random.default_rng(100 + seed)
        d1, d2 = parallel(rng, 12)
        # doc2: an extra sentence after the 4th, and doc1's sentences 7 and 8 translated as one.
        extra = [f"b{i}" for i in sentence(rng)]
        d2 = d2[:4] + [extra] + d2[4:7] + [d2[7] + d2[8]] + d2[9:]
        beads = align(d1, d2, chars(d1), chars(d2), model)
        expected = ([((i,), (i,)) for i in range(4)] + [((), (4,))] + [((i,), (i + 1,)) for i in range(4, 7)]
                    + [((7, 8), (8,))] + [((i,), (i,)) for i in range(9, 12)])
        assert spans(beads) == expected
        for b in beads:
            assert 0.0 <= b.prob <= 1.0
            if b.src and b.tgt:
                assert b.prob > 0.99 and b.lexical > 5.0
            else:
                assert (b.prob, b.lexical, b.length) == (0.0, 0.0, 0.0)


def test_untrained_model_aligns_on_identical_tokens_and_lengths() -> None:
    rng = np.random.default_rng(5)
    m = TranslationModel("de", "en")
    d1, d2 = [], []
    for k in range(10):
        n = int(rng.integers(4, 12))
        d1.append([f"wort{k}_{i}" for i in range(n)] + [str(1900 + k)])
        d2.append([str(1900 + k)] + [f"word{k}_{i}" for i in range(n)])
    # Unknown words are no evidence either way: the inserted sentence is told apart by its length.
    d2.insert(6, [f"extra{i}" for i in range(40)])
    beads = align(d1, d2, chars(d1), chars(d2), m)
    assert spans(beads) == [((i,), (i,)) for i in range(6)] + [((), (6,))] + [((i,), (i + 1,)) for i in range(6, 10)]
    assert all(b.lexical > 0 for b in beads if b.src and b.tgt)


def test_parallel_pages_score_higher_than_non_parallel(model: TranslationModel) -> None:
    rng = np.random.default_rng(9)
    d1, d2 = parallel(rng, 30)
    o1, o2 = parallel(rng, 30)
    par = content_scores(align(d1, d2, chars(d1), chars(d2), model), 0.5)
    non = content_scores(align(d1, o2, chars(d1), chars(o2), model), 0.5)
    non2 = content_scores(align(o1, d2, chars(o1), chars(d2), model), 0.5)
    assert par[0] > 0.9 and par[1] > 0.9
    assert non[0] < 0.2 and non2[0] < 0.2
    assert par[1] > non[1] + 0.5 and par[1] > non2[1] + 0.5


def test_empty_documents(model: TranslationModel) -> None:
    assert align([], [], [], [], model) == []
    assert content_scores([], 0.5) == (0.0, 0.0)
    one = align([["a1", "a2"], ["a3"]], [], [6, 3], [], model)
    assert spans(one) == [((0,), ()), ((1,), ())]
    other = align([], [["b1"]], [], [3], model)
    assert spans(other) == [((), (0,))]
    assert content_scores(one, 0.5) == (0.0, 0.0)
    assert word_pairs(one, [["a1", "a2"], ["a3"]], [], 0.0) == []
    with pytest.raises(ValueError):
        align([["a1"]], [["b1"]], [3, 4], [3], model)


def test_sentences_without_tokens(model: TranslationModel) -> None:
    d1 = [["a1", "a2"], [], ["a5", "a7"]]
    d2 = [["b2", "b1"], [], ["b7", "b5"]]
    beads = align(d1, d2, [6, 0, 6], [6, 0, 6], model)
    assert (0,) in [b.src for b in beads] and all(0.0 <= b.prob <= 1.0 for b in beads)
    assert spans(beads)[0] == ((0,), (0,)) and spans(beads)[-1] == ((2,), (2,))


@pytest.mark.parametrize(("n1", "n2"), [(3, 40), (40, 3), (1, 25), (25, 1)])
def test_steep_shapes_with_a_narrow_band(model: TranslationModel, n1: int, n2: int) -> None:
    rng = np.random.default_rng(n1 * 100 + n2)
    d1 = [[f"a{i}" for i in sentence(rng)] for _ in range(n1)]
    d2 = [[f"b{i}" for i in sentence(rng)] for _ in range(n2)]
    for params in (AlignParams(band_min=1, band_fraction=0.0), DEFAULT_PARAMS):
        beads = align(d1, d2, chars(d1), chars(d2), model, params)
        assert [i for b in beads for i in b.src] == list(range(n1))
        assert [j for b in beads for j in b.tgt] == list(range(n2))


def test_band_widens_for_a_long_insertion_and_blocks_do_not_change_the_result(
    model: TranslationModel, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import matchers.content.alignment_dp as alignment_dp

    rng = np.random.default_rng(11)
    d1, d2 = parallel(rng, 60)
    extra = [[f"b{i}" for i in sentence(rng)] for _ in range(25)]
    d2 = extra + d2  # 25 sentences before the translation starts: far outside the initial band
    beads = align(d1, d2, chars(d1), chars(d2), model)
    assert [(b.src, b.tgt) for b in beads if b.src] == [((i,), (i + 25,)) for i in range(60)]
    small = align(d1, d2, chars(d1), chars(d2), model, AlignParams(block_rows=7))
    assert spans(small) == spans(beads)
    assert np.allclose([b.prob for b in small], [b.prob for b in beads], rtol=1e-9, atol=1e-12)
    # In a stage thread a band this short holds the GIL; that kernel gives the same beads.
    import matchers.gil_hold as gil_hold

    assert len(encode(d1)[1]) * 10 <= alignment_dp.HOLD_GIL_WORK
    assert not gil_hold.holds_short_kernels()
    monkeypatch.setattr(gil_hold, "_local", threading.local())
    gil_hold.hold_short_kernels()
    assert align(d1, d2, chars(d1), chars(d2), model) == beads


def word_pairs(beads: list[Bead], d1: list[list[str]], d2: list[list[str]], min_prob: float) -> list:
    return training_pairs(beads, encode(d1), encode(d2), min_prob).word_pairs()


def test_training_pairs_concatenate_merged_sentences() -> None:
    d1 = [["a1"], ["a2", "a3"], ["a4"], ["a9"]]
    d2 = [["b1"], ["b2", "b3", "b4"], ["b8"]]
    beads = [Bead((0,), (0,), 0.9, 1, 0), Bead((1, 2), (1,), 0.8, 1, 0), Bead((3,), (), 0.0, 0, 0),
             Bead((), (2,), 0.0, 0, 0)]
    assert word_pairs(beads, d1, d2, 0.5) == [(["a1"], ["b1"]), (["a2", "a3", "a4"], ["b2", "b3", "b4"])]
    assert word_pairs(beads, d1, d2, 0.85) == [(["a1"], ["b1"])]
    assert content_scores(beads, 0.5) == (0.5, pytest.approx(0.425))


def test_aligned_pairs_train_the_model(model: TranslationModel) -> None:
    rng = np.random.default_rng(3)
    m = TranslationModel.from_bytes(model.to_bytes())
    d1, d2 = parallel(rng, 20)
    beads = align(d1, d2, chars(d1), chars(d2), m)
    pairs = word_pairs(beads, d1, d2, 0.5)
    assert len(pairs) == 20
    before = m.sentences_seen
    m.update(pairs)
    assert m.sentences_seen == before + 20


# -- against a pure-Python reference DP -------------------------------------------------------


def reference_score(d1, d2, c1, c2, m: TranslationModel, params: AlignParams = DEFAULT_PARAMS):
    """Bead scorer straight from the definitions, and the best total by an unbanded DP."""
    words1 = list(dict.fromkeys(w for s in d1 for w in s))
    words2 = list(dict.fromkeys(w for s in d2 for w in s))
    tab = m.local_tables(words1, words2, np.float32)
    t21, t12 = tab.t21.astype(np.float64), tab.t12.astype(np.float64)
    pos1 = {w: i + 1 for i, w in enumerate(words1)}
    pos2 = {w: j + 1 for j, w in enumerate(words2)}
    ratio = min(max(sum(c2) / sum(c1), 1 / 8), 8) if sum(c1) > 0 and sum(c2) > 0 else 1.0
    sd = params.unrelated_sd
    kinds = {(1, 1): 0, (1, 0): 1, (0, 1): 2, (2, 1): 3, (1, 2): 4, (2, 2): 5}

    def bead(src, tgt):
        prior = math.log(params.priors[kinds[len(src), len(tgt)]])
        if not src or not tgt:
            return prior
        e = [pos1[w] for i in src for w in d1[i]]
        f = [pos2[w] for j in tgt for w in d2[j]]
        la = sum(math.log((t21[0, fj] + sum(t21[ei, fj] for ei in e)) / (len(e) + 1)) - math.log(tab.bg2[fj - 1])
                 for fj in f)
        lb = sum(math.log((t12[ei, 0] + sum(t12[ei, fj] for fj in f)) / (len(f) + 1)) - math.log(tab.bg1[ei - 1])
                 for ei in e)
        x = ratio * sum(c1[i] for i in src)
        l2 = sum(c2[j] for j in tgt)
        d2sq = (l2 - x) ** 2 / (params.variance * max((x + l2) / 2, 1.0))
        return prior + 0.5 * (la + lb) + math.log(sd) - 0.5 * d2sq * (1 - 1 / sd**2)

    n1, n2 = len(d1), len(d2)
    best = {(0, 0): 0.0}
    for i in range(n1 + 1):
        for j in range(n2 + 1):
            if (i, j) == (0, 0):
                continue
            best[i, j] = max(best[i - di, j - dj] + bead(tuple(range(i - di, i)), tuple(range(j - dj, j)))
                             for di, dj in kinds if i >= di and j >= dj)
    return bead, best[n1, n2]


@pytest.mark.parametrize("seed", range(12))
def test_numba_dp_matches_reference_dp(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    import matchers.content.sentence_align as sentence_align

    # The DP's own path: the merges it takes are checked afterwards (tests below).
    monkeypatch.setattr(sentence_align, "_split_unsupported_merges", lambda beads, *args: beads)
    monkeypatch.setattr(sentence_align, "_split_two_two", lambda beads, *args: beads)
    rng = np.random.default_rng(seed)
    m = TranslationModel("xa", "xb", uniform=0.02)
    if seed % 2:  # half of the cases with a trained model, half untrained
        for _ in range(3):
            pairs = []
            for _ in range(8):
                ids = rng.integers(0, 12, size=int(rng.integers(1, 6)))
                pairs.append(([f"a{i}" for i in ids], [f"b{i}" for i in ids]))
            m.update(pairs)

    def doc(prefix: str) -> list[list[str]]:
        # Small vocabularies with shared numbers, so evidence of every sign occurs; empty sentences too.
        return [[f"{prefix}{i}" if i < 12 else str(i) for i in rng.integers(0, 16, size=int(rng.integers(0, 6)))]
                for _ in range(int(rng.integers(0, 8)))]

    d1, d2 = doc("a"), doc("b")
    c1 = [sum(len(w) for w in s) + int(rng.integers(0, 20)) for s in d1]
    c2 = [sum(len(w) for w in s) + int(rng.integers(0, 20)) for s in d2]
    beads = align(d1, d2, c1, c2, m)
    bead_score, best = reference_score(d1, d2, c1, c2, m)
    assert sorted(i for b in beads for i in b.src) == list(range(len(d1)))
    assert sorted(j for b in beads for j in b.tgt) == list(range(len(d2)))
    path = sum(bead_score(b.src, b.tgt) for b in beads)
    assert path == pytest.approx(best, rel=1e-9, abs=1e-9)


def test_a_two_two_bead_of_two_translations_is_given_as_two_one_one_beads():
    from matchers.content.sentence_align import Bead, _split_two_two

    tlo = np.zeros(2, np.int64)
    a11 = np.array([[4.0, -3.0], [-3.0, 4.0]])  # sentence 0 translates 0, sentence 1 translates 1
    b11 = a11.copy()
    terms = (tlo, a11, b11, np.zeros((2, 2)), np.zeros((2, 2)))
    ch = np.array([40.0, 40.0])
    length_args = (1.0, 6.8, np.log(3.0), 0.5 * (1 - 1 / 9))
    merged = Bead((0, 1), (0, 1), 0.99, 8.0, 0.5)
    split = _split_two_two([merged], terms, ch, ch, length_args)
    assert [(b.src, b.tgt) for b in split] == [((0,), (0,)), ((1,), (1,))]
    assert all(b.prob > 0.5 for b in split)
    # One half without evidence, and a sentence the other side's two sentences explain much
    # better than its own half does (a translation split differently): the 2-2 bead stays.
    a11[1, 1] = b11[1, 1] = -6.0
    a21 = np.array([[0.0, 0.0], [0.0, 9.0]])  # doc2's sentence 1 by doc1's 0 and 1: 15 nats better
    assert _split_two_two([merged], (tlo, a11, b11, a21, np.zeros((2, 2))), ch, ch, length_args) == [merged]
    # No sentence explained better by the merge than by its own half: the halves.
    a21[1, 1] = -6.0
    split = _split_two_two([merged], (tlo, a11, b11, a21, np.full((2, 2), -6.0)), ch, ch, length_args)
    assert [(b.src, b.tgt) for b in split] == [((0,), (0,)), ((1,), (1,))]


def test_a_repeated_title_is_not_merged_into_its_translation(model: TranslationModel) -> None:
    """Pages whose title is printed twice on one side: the copy explains no word of the other
    side's title that the first does not, so it stays unaligned instead of joining a 1-2 bead."""
    for seed in range(3):
        rng = np.random.default_rng(300 + seed)
        d1, d2 = parallel(rng, 8)
        d2 = [d2[0], list(d2[0])] + d2[1:]
        beads = align(d1, d2, chars(d1), chars(d2), model)
        assert spans(beads)[:2] in ([((0,), (0,)), ((), (1,))], [((), (0,)), ((0,), (1,))])
        assert spans(beads)[2:] == [((i,), (i + 1,)) for i in range(1, 8)]


def test_a_sentence_split_in_translation_stays_one_bead(model: TranslationModel) -> None:
    """A long sentence translated as two: each half translates part of it, so the merge explains
    the lone sentence better than either half and the 1-2 bead stays."""
    for seed in range(3):
        rng = np.random.default_rng(400 + seed)
        d1, d2 = parallel(rng, 8)
        d1 = d1[:3] + [d1[3] + d1[4]] + d1[5:]
        beads = align(d1, d2, chars(d1), chars(d2), model)
        assert ((3,), (3, 4)) in spans(beads)


def _page(doc: list[list[str]], lang: str):
    from matchers.page.page_content import page_content

    return page_content([("p", lang, " ".join(s) + ".") for s in doc], lang)


def test_an_openings_share_tells_a_translation_from_another_page_and_needs_long_pages(model: TranslationModel) -> None:
    from matchers.content.content_match import match_content, prefix_share

    rng = np.random.default_rng(5)
    d1, d2 = parallel(rng, 40)
    _, o2 = parallel(rng, 44)
    a, b, other = _page(d1, "xa"), _page(d2, "xb"), _page(o2, "xb")
    assert len(a) == 40 and len(other) == 44
    assert prefix_share(model, a, b, 0.5, 8) > 0.8
    assert prefix_share(model, b, a, 0.5, 8) == prefix_share(model, a, b, 0.5, 8)  # either page first
    assert prefix_share(model, a, other, 0.5, 8) < 0.1
    assert match_content(model, a, b, 0.5).share > 0.9
    assert prefix_share(model, a, b, 0.5, 20) is None  # 40 sentences: aligned in full


def test_an_openings_share_is_that_of_the_openings_aligned_as_pages(model: TranslationModel) -> None:
    """The opening is aligned with only the words it uses; the share is the one the first
    sentences give aligned as pages of their own."""
    from matchers.content.content_match import _opening, match_content, prefix_share

    for seed in range(4):
        rng = np.random.default_rng(60 + seed)
        d1, d2 = parallel(rng, 30 + seed)
        _, o2 = parallel(rng, 33)
        a = _page(d1, "xa")
        for other in (_page(d2, "xb"), _page(o2, "xb")):
            p_b = round(8 * len(other) / len(a))
            whole = match_content(model, _page(d1[:8], "xa"), _page(other.tokens[:p_b], "xb"), 0.5, 1)
            assert whole is not None
            assert prefix_share(model, a, other, 0.5, 8) == pytest.approx(whole.share)
        words, ids, _ = _opening(a, 8)
        assert set(words) == {w for s in d1[:8] for w in s} and ids.max() == len(words) - 1


@pytest.mark.parametrize("kind", ["tiny", "huge"])
def test_long_sentences_score_as_the_sum_of_their_words_logarithms(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel takes one logarithm per product of its words' factors: a long sentence's product
    leaves float64's range (below 1e-308 with rare words, above 1e308 with a word repeated) and
    must be folded into the sum on the way."""
    import matchers.content.sentence_align as sentence_align

    monkeypatch.setattr(sentence_align, "_split_unsupported_merges", lambda beads, *args: beads)
    monkeypatch.setattr(sentence_align, "_split_two_two", lambda beads, *args: beads)
    rng = np.random.default_rng(7)
    m = TranslationModel("xa", "xb", uniform=1e-4)
    if kind == "tiny":  # untrained, different words: every factor about 1e-2
        d1 = [[f"a{i}" for i in rng.integers(0, 400, size=n)] for n in (250, 180, 3)]
        d2 = [[f"b{i}" for i in rng.integers(0, 400, size=n)] for n in (240, 3, 190)]
    else:  # one number repeated: its identical token translates it, a factor of about the sentence's length
        d1 = [["7"] * n for n in (220, 200, 5)]
        d2 = [["7"] * n for n in (210, 6, 205)]
    c1, c2 = chars(d1), chars(d2)
    beads = align(d1, d2, c1, c2, m)
    bead_score, best = reference_score(d1, d2, c1, c2, m)
    path = sum(bead_score(b.src, b.tgt) for b in beads)
    assert math.isfinite(path)
    assert path == pytest.approx(best, rel=1e-9, abs=1e-9)
