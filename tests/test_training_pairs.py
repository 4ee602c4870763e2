"""Training pairs cut from pages' word indices train a model exactly as the same pairs given as
token lists do, with the vocabulary grown in the order a token-by-token lookup would give."""

from __future__ import annotations

import numpy as np

from matchers.content.sentence_align import Bead
from matchers.content.token_ids import encode
from matchers.content.training_pairs import TrainingPairs, training_pairs
from matchers.content.translation_model import TranslationModel


def _page(rng: np.random.Generator, prefix: str, n: int) -> list[list[str]]:
    # Few distinct words, so pages and pairs share most of them and repeat them within a sentence.
    return [[f"{prefix}{int(w)}" for w in rng.integers(0, 30, int(rng.integers(1, 9)))] for _ in range(n)]


def _beads(rng: np.random.Generator, n1: int, n2: int) -> list[Bead]:
    beads, i, j = [], 0, 0
    while i < n1 and j < n2:
        a, b = min(int(rng.integers(0, 3)), n1 - i), min(int(rng.integers(0, 3)), n2 - j)
        if a == b == 0:
            a = 1
        beads.append(Bead(tuple(range(i, i + a)), tuple(range(j, j + b)), float(rng.random()), 0.0, 0.0))
        i, j = i + a, j + b
    return beads


def _reference_vocab(pairs: list[tuple[list[str], list[str]]]) -> tuple[list[str], list[str]]:
    # The model's vocabulary order: new words appended token by token, first sides then second.
    out: tuple[list[str], list[str]] = ([], [])
    for side in (0, 1):
        seen: dict[str, None] = {}
        for pair in pairs:
            for w in pair[side]:
                seen.setdefault(w, None)
        out[side].extend(seen)
    return out


def test_encoded_pairs_train_as_token_lists() -> None:
    rng = np.random.default_rng(5)
    batch, word_batch = [], []
    for _ in range(12):
        d1, d2 = _page(rng, "a", int(rng.integers(1, 25))), _page(rng, "b", int(rng.integers(1, 25)))
        beads = _beads(rng, len(d1), len(d2))
        pairs = training_pairs(beads, encode(d1), encode(d2), 0.3)
        expected = [([w for i in b.src for w in d1[i]], [w for j in b.tgt for w in d2[j]])
                    for b in beads if b.src and b.tgt and b.prob >= 0.3]
        assert pairs.word_pairs() == expected
        batch.append(pairs)
        word_batch += expected
    assert sum(len(p) for p in batch) == len(word_batch) > 15
    by_ids, by_words = TranslationModel("en", "fr"), TranslationModel("en", "fr")
    for m in (by_ids, by_words):
        m.update([(["a1", "a2"], ["b2"])])  # words already known before the batch
    by_ids.update_pairs(batch, documents=len(batch))
    by_words.update(word_batch, documents=len(batch))
    assert by_ids.to_bytes() == by_words.to_bytes()
    vocab1, vocab2 = _reference_vocab([(["a1", "a2"], ["b2"]), *word_batch])
    assert by_ids._words1[1:] == vocab1 and by_ids._words2[1:] == vocab2
    assert by_ids.sentences_seen == 1 + len(word_batch) and by_ids.pairs_seen == 1 + len(batch)


def test_pairs_without_tokens_are_left_out() -> None:
    pairs = TrainingPairs.from_words([(["a"], ["b"]), ([], []), ([], ["c"])])
    assert len(pairs) == 2 and pairs.word_pairs() == [(["a"], ["b"]), ([], ["c"])]
    model = TranslationModel("en", "fr")
    model.update([([], [])])
    assert model.sentences_seen == 0 and model.pairs_seen == 1


def test_chunked_estep_gives_the_unchunked_counts(monkeypatch) -> None:
    import matchers.content.estep as mc
    import matchers.content.translation_model as tm

    rng = np.random.default_rng(11)
    word_batch = [(w1, w2) for _ in range(300)
                  for w1, w2 in [([f"a{int(x)}" for x in rng.integers(0, 80, int(rng.integers(1, 14)))],
                                  [f"b{int(x)}" for x in rng.integers(0, 80, int(rng.integers(1, 14)))])]]
    models = {}
    calls = []
    real = mc.update_counts
    for chunk in (1 << 30, 1, 97, 2000):
        def chunked(*args, _chunk=chunk):
            out = real(*args, chunk=_chunk)
            calls.append(_chunk)
            return out
        monkeypatch.setattr(tm, "update_counts", chunked)
        m = TranslationModel("en", "fr")
        m.update(word_batch[:40])
        m.update(word_batch[40:])
        models[chunk] = m.counts()
    assert calls == [1 << 30, 1 << 30, 1, 1, 97, 97, 2000, 2000]
    whole = models[1 << 30]
    assert len(whole.keys) > 2000
    for chunk in (1, 97, 2000):
        c = models[chunk]
        assert np.array_equal(c.keys, whole.keys)
        np.testing.assert_allclose(c.c21, whole.c21, rtol=1e-12)
        np.testing.assert_allclose(c.c12, whole.c12, rtol=1e-12)
        np.testing.assert_allclose(c.tot1, whole.tot1, rtol=1e-12)
    # The chunks are real: two pairs of 9 combinations each go through one at a time.
    ids1 = np.arange(1, 5, dtype=np.int64)
    off = np.array([0, 2, 4], np.int64)
    m = TranslationModel("en", "fr")
    params = mc.Parameters(*m._main, *m._delta, np.zeros(5), np.zeros(5), np.full(5, -1), 1.0, 0.5)
    assert mc._expected_counts(ids1, off, ids1, off, 9, *params)[3] == 2
    assert mc._expected_counts(ids1, off, ids1, off, 18, *params)[3] == 1
