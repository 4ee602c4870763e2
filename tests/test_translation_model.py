"""IBM-1 translation model with incremental EM (matchers/content/translation_model.py)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from matchers.content.translation_model import NULL, TranslationModel


def toks(text: str) -> list[str]:
    return text.split()


def approx(x: F) -> object:
    return pytest.approx(float(x), rel=1e-12, abs=1e-15)


def test_em_counts_after_two_updates_match_hand_computation() -> None:
    u, lam = F(1, 10), F(1)
    m = TranslationModel("fr", "en", uniform=float(u), smoothing=float(lam))

    # Update 1: ("la maison", "the house").  Every t is u, so each English word spreads one count
    # evenly over NULL, la, maison (1/3 each) and each French word over NULL, the, house.
    m.update([(toks("la maison"), toks("the house"))])
    for e in (NULL, "la", "maison"):
        for f in ("the", "house"):
            assert m.expected_counts(e, f)[0] == approx(F(1, 3))
    for e in ("la", "maison"):
        for f in (NULL, "the", "house"):
            assert m.expected_counts(e, f)[1] == approx(F(1, 3))
    assert m.total_counts(w1="la") == approx(F(2, 3))
    assert m.total_counts(w2="the") == approx(F(2, 3))
    # M-step: t(f|e) = (c(f,e) + lam*u) / (c(e) + lam).
    assert m.prob21("the", "la") == approx((F(1, 3) + lam * u) / (F(2, 3) + lam))  # 13/50
    assert m.prob21("flower", "la") == approx(lam * u / (F(2, 3) + lam))  # 3/50: unseen pair shrinks
    assert m.prob21("the", NULL) == approx(F(13, 50))
    assert m.prob21("the", "fleur") == approx(u)  # unseen word keeps the initial value

    # Update 2: ("la fleur", "the flower") with the parameters after update 1.
    # t21: f = the:    t(the|NULL) = t(the|la) = 13/50, t(the|fleur) = u = 1/10
    #                  z = 31/50 -> posteriors 13/31, 13/31, 5/31
    #      f = flower: t(flower|NULL) = t(flower|la) = 3/50, t(flower|fleur) = 1/10
    #                  z = 11/50 -> posteriors 3/11, 3/11, 5/11
    # t12: e = la:     t(la|NULL) = t(la|the) = 13/50, t(la|flower) = 1/10 -> 13/31, 13/31, 5/31
    #      e = fleur:  t(fleur|NULL) = t(fleur|the) = 3/50, t(fleur|flower) = 1/10 -> 3/11, 3/11, 5/11
    m.update([(toks("la fleur"), toks("the flower"))])
    c21 = {
        (NULL, "the"): F(1, 3) + F(13, 31), ("la", "the"): F(1, 3) + F(13, 31), ("fleur", "the"): F(5, 31),
        (NULL, "flower"): F(3, 11), ("la", "flower"): F(3, 11), ("fleur", "flower"): F(5, 11),
        ("maison", "the"): F(1, 3), ("la", "house"): F(1, 3), ("maison", "flower"): F(0),
    }
    c12 = {
        ("la", NULL): F(1, 3) + F(13, 31), ("la", "the"): F(1, 3) + F(13, 31), ("la", "flower"): F(5, 31),
        ("fleur", NULL): F(3, 11), ("fleur", "the"): F(3, 11), ("fleur", "flower"): F(5, 11),
        ("maison", "the"): F(1, 3), ("la", "house"): F(1, 3),
    }
    for (e, f), c in c21.items():
        assert m.expected_counts(e, f)[0] == approx(c), (e, f)
    for (e, f), c in c12.items():
        assert m.expected_counts(e, f)[1] == approx(c), (e, f)
    tot_la = F(2, 3) + F(13, 31) + F(3, 11)
    tot_fleur = F(5, 31) + F(5, 11)
    tot_flower = F(5, 31) + F(5, 11)
    assert m.total_counts(w1="la") == approx(tot_la)
    assert m.total_counts(w1="fleur") == approx(tot_fleur)
    assert m.total_counts(w2="the") == approx(F(2, 3) + F(13, 31) + F(3, 11))
    assert m.prob21("flower", "fleur") == approx((F(5, 11) + lam * u) / (tot_fleur + lam))
    assert m.prob21("the", "la") == approx((F(1, 3) + F(13, 31) + lam * u) / (tot_la + lam))
    assert m.prob21("house", "fleur") == approx(lam * u / (tot_fleur + lam))
    assert m.prob12("fleur", "flower") == approx((F(5, 11) + lam * u) / (tot_flower + lam))
    assert m.prob12("la", "flower") == approx((F(5, 31) + lam * u) / (tot_flower + lam))
    assert (m.pairs_seen, m.sentences_seen) == (2, 2)
    # "fleur" explains "flower" better than "la" does after one co-occurrence each way.
    assert m.prob21("flower", "fleur") > m.prob21("flower", "la")


def test_identical_tokens_start_at_one() -> None:
    m = TranslationModel("de", "en", uniform=1e-3)
    assert m.prob21("2024", "2024") == 1.0
    assert m.prob12("Berlin", "Berlin") == 1.0
    assert m.prob21("house", "Haus") == pytest.approx(1e-3)
    assert m.prob21("2024", NULL) == pytest.approx(1e-3)
    # Training keeps them strong while evidence is scarce: "2024" takes most of the count.
    m.update([(toks("im Jahr 2024"), toks("in 2024"))])
    assert m.prob21("2024", "2024") > 0.5
    assert m.prob21("2024", "Jahr") < 0.1


def test_tables_match_pointwise_probabilities() -> None:
    m = _trained_model(docs=8)
    words1 = ["a0", "a1", "a3", "a17", "zz_unknown", "7"]
    words2 = ["b0", "b3", "b17", "b99", "7", "zz_unknown"]
    tab = m.local_tables(words1, words2, np.float64)
    for i, w1 in enumerate([NULL, *words1]):
        for j, w2 in enumerate(words2, 1):
            assert tab.t21[i, j] == pytest.approx(m.prob21(w2, w1), rel=1e-12)
    for i, w1 in enumerate(words1, 1):
        for j, w2 in enumerate([NULL, *words2]):
            assert tab.t12[i, j] == pytest.approx(m.prob12(w1, w2), rel=1e-12)
    assert tab.t21[words1.index("7") + 1, words2.index("7") + 1] == 1.0  # never trained: initial
    # Two columns against rows hundreds of entries long: the searched (not scanned) path.
    narrow = m.local_tables(["a0"], ["b0", "b1"], np.float64)
    assert narrow.t21[0, 1] == pytest.approx(m.prob21("b0", NULL), rel=1e-12)
    assert narrow.t21[1, 2] == pytest.approx(m.prob21("b1", "a0"), rel=1e-12)
    assert narrow.t12[1, 1] == pytest.approx(m.prob12("a0", "b0"), rel=1e-12)


def test_serialization_round_trip_continues_training_identically() -> None:
    m = _trained_model(docs=6)
    clone = TranslationModel.from_bytes(m.to_bytes())
    assert (clone.lang1, clone.lang2, clone.pairs_seen, clone.sentences_seen) == (
        m.lang1, m.lang2, m.pairs_seen, m.sentences_seen)
    rng = np.random.default_rng(7)
    for _ in range(3):
        pairs = _parallel_doc(rng, 15)
        m.update(pairs)
        clone.update(pairs)
    assert clone.to_bytes() == m.to_bytes()
    words1 = [f"a{i}" for i in range(40)]
    words2 = [f"b{i}" for i in range(40)]
    a, b = m.local_tables(words1, words2), clone.local_tables(words1, words2)
    assert np.array_equal(a.t21, b.t21) and np.array_equal(a.t12, b.t12) and np.array_equal(a.bg2, b.bg2)
    with pytest.raises(ValueError):
        TranslationModel.from_bytes(b"nope" + m.to_bytes()[4:])
    with pytest.raises(ValueError):
        TranslationModel.from_bytes(m.to_bytes()[:4] + bytes([99]) + m.to_bytes()[5:])


def test_model_learns_translations() -> None:
    m = TranslationModel("xa", "xb")
    untrained = m.score(toks("a3 a5 a8"), toks("b8 b3 b5"))
    m = _trained_model(docs=12)
    assert m.prob21("b3", "a3") > 0.3
    assert m.prob21("b3", "a3") > 20 * m.prob21("b4", "a3")
    assert m.prob12("a3", "b3") > 20 * m.prob12("a4", "b3")
    translated = m.score(toks("a3 a5 a8 a13"), toks("b8 b3 b13 b5"))
    unrelated = m.score(toks("a3 a5 a8 a13"), toks("b2 b9 b4 b11"))
    assert translated > 1.0 > 0.0 > unrelated
    assert translated > untrained


def test_background_is_uniform_untrained_and_unigram_like_trained() -> None:
    m = TranslationModel("xa", "xb", uniform=1e-3)
    lex = m.lexicon(["a0", "a1"], ["b0", "b1"])
    assert np.allclose(lex.bg1, 1e-3) and np.allclose(lex.bg2, 1e-3)
    m = _trained_model(docs=10)
    lex = m.lexicon(["a0", "a150"], ["b0", "b150", "never_seen"])
    assert lex.bg2[0] > 10 * lex.bg2[1] > 10 * lex.bg2[2]  # frequent > rare > unseen
    assert lex.bg1[0] > 10 * lex.bg1[1]


def test_prune_merges_and_bounds_the_table() -> None:
    m = _trained_model(docs=6)
    before = np.array([m.expected_counts(f"a{i}", f"b{j}") for i in range(10) for j in range(10)])
    n = m.num_entries
    m.prune(max_entries=10**9, min_count=0.0)  # merge only
    assert m.num_entries <= n
    after = np.array([m.expected_counts(f"a{i}", f"b{j}") for i in range(10) for j in range(10)])
    assert np.allclose(after, before, rtol=1e-12, atol=0)
    strong = m.prob21("b1", "a1")
    m.prune(min_count=0.05)
    assert m.num_entries < 0.75 * n
    assert m.prob21("b1", "a1") == pytest.approx(strong, rel=1e-12)  # large counts untouched
    c21, c12 = m.expected_counts("a1", "b2")
    assert c21 == c12 == 0.0 or max(c21, c12) >= 0.05
    m.prune(max_entries=500)
    assert m.num_entries == 500
    assert m.prob21("b1", "a1") > 10 * m.prob21("b2", "a1")  # the strong pairs survive
    m.update([(toks("a1 a2"), toks("b2 b1"))])  # and training goes on
    assert m.num_entries > 500


def test_empty_update_counts_the_document_only() -> None:
    m = TranslationModel("xa", "xb")
    m.update([])
    m.update([([], [])], documents=2)
    assert (m.pairs_seen, m.sentences_seen, m.num_entries, m.vocab_sizes) == (3, 0, 0, (0, 0))


# -- helpers ----------------------------------------------------------------------------------


def _parallel_doc(rng: np.random.Generator, n: int, vocab: int = 200) -> list[tuple[list[str], list[str]]]:
    """Sentence pairs of a toy language pair: a<i> translates as b<i>, word order shuffled."""
    p = 1.0 / np.arange(1, vocab + 1)
    p /= p.sum()
    pairs = []
    for _ in range(n):
        ids = rng.choice(vocab, size=int(rng.integers(3, 12)), p=p)
        pairs.append(([f"a{i}" for i in ids], [f"b{i}" for i in rng.permutation(ids)]))
    return pairs


def _trained_model(docs: int, seed: int = 0, **kwargs: float) -> TranslationModel:
    rng = np.random.default_rng(seed)
    m = TranslationModel("xa", "xb", uniform=1e-3, **kwargs)  # type: ignore[arg-type]
    for _ in range(docs):
        m.update(_parallel_doc(rng, 20))
    return m


def test_delta_merges_into_main_table_without_changing_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    import matchers.content.translation_model as tm

    reference = _trained_model(docs=5, min_count=0.0)
    monkeypatch.setattr(tm, "_DELTA_MIN", 50)
    merged = _trained_model(docs=5, min_count=0.0)
    assert len(merged._delta[0]) < len(reference._delta[0])  # the small delta was merged on the way
    words1, words2 = [f"a{i}" for i in range(60)], [f"b{i}" for i in range(60)]
    a, b = reference.local_tables(words1, words2, np.float64), merged.local_tables(words1, words2, np.float64)
    assert np.allclose(a.t21, b.t21, rtol=1e-12) and np.allclose(a.t12, b.t12, rtol=1e-12)
    assert np.allclose(a.bg1, b.bg1, rtol=1e-12) and np.allclose(a.bg2, b.bg2, rtol=1e-12)
    # With the default floor the merges drop the small counts only: strong pairs stay as they were.
    pruned = _trained_model(docs=5)
    assert pruned.num_entries < merged.num_entries
    c = pruned.local_tables(words1, words2, np.float64)
    strong = a.t21 > 0.05
    assert np.allclose(c.t21[strong], a.t21[strong], rtol=0.05)


def test_the_main_tables_rows_found_once_give_the_searched_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every word's row of the main table, the last one's included, and words learned since the
    main table was made (their entries only in the delta) read as when each row is searched."""

    m = _trained_model(docs=4, min_count=0.0)
    m.prune(min_count=0.0)  # everything into the main table
    assert len(m._main[0]) and not len(m._delta[0])
    m.update([(["a0", "newword", "a3"], ["b0", "neuwort", "b3"])] * 3)  # the delta, a new word
    words1 = sorted({m._words1[int(k) >> 32] for k in m._main[0]} - {NULL}) + ["newword", "zz_unknown"]
    words2 = [f"b{i}" for i in range(40)] + ["neuwort", "7"]
    last = m._words1[int(m._main[0][-1]) >> 32]
    assert last in words1 and len(m._delta[0])
    found = m.local_tables(words1, words2, np.float64)
    monkeypatch.setattr(m, "_row_starts", lambda: np.zeros(0, np.int64))
    searched = m.local_tables(words1, words2, np.float64)
    assert np.array_equal(found.t21, searched.t21) and np.array_equal(found.t12, searched.t12)
    assert found.t21[words1.index(last) + 1].max() > found.t21[words1.index("zz_unknown") + 1].max()
