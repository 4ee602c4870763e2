"""The E-step kernel and the dense tables (matchers/content/estep.py, model_counts.dense_tables)
against the model's closed form written out cell by cell."""

from __future__ import annotations

import threading
from collections import defaultdict

import numpy as np
import pytest

from matchers.content.estep import Parameters, update_counts
from matchers.content.training_pairs import TrainingPairs, pair_offsets, vocabulary_ids
from matchers.content.translation_model import NULL, TranslationModel


def _pairs(rng: np.random.Generator, n: int, vocab: int) -> list[tuple[list[str], list[str]]]:
    out = []
    for _ in range(n):
        ids = rng.integers(0, vocab, int(rng.integers(1, 9)))
        extra = rng.integers(0, vocab, int(rng.integers(0, 3)))
        # "7" on either side: the identity links of the initial distribution.
        out.append(([f"a{i}" for i in ids] + (["7"] if rng.random() < 0.3 else []),
                    [f"b{i}" for i in rng.permutation(np.concatenate([ids, extra]))]
                    + (["7"] if rng.random() < 0.3 else [])))
    return out


def _model(seed: int) -> TranslationModel:
    rng = np.random.default_rng(seed)
    m = TranslationModel("xa", "xb", uniform=1e-3, min_count=0.0)
    for _ in range(6):
        m.update(_pairs(rng, 25, 60) + [(["7", "a1"], ["7", "b1"])])
    return m


def _t21(m: TranslationModel, w2: str, w1: str) -> float:
    """t(w2 | w1) from the kept counts: (c + lam * t0) / (c(w1) + lam), t0 = 1 for the same string."""
    lam = m.smoothing
    t0 = 1.0 if w1 == w2 and w1 != NULL else m.uniform
    return (m.expected_counts(w1, w2)[0] + lam * t0) / (m.total_counts(w1=w1) + lam)


def _t12(m: TranslationModel, w1: str, w2: str) -> float:
    lam = m.smoothing
    t0 = 1.0 if w1 == w2 and w2 != NULL else m.uniform
    return (m.expected_counts(w1, w2)[1] + lam * t0) / (m.total_counts(w2=w2) + lam)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("hold", [True, False])
def test_the_kernels_e_step_is_ibm1s_written_out(seed: int, hold: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    import matchers.content.estep as estep
    import matchers.gil_hold as gil_hold

    # Both kernels: the one a stage thread's small updates hold the GIL in, and the one that lets it go.
    monkeypatch.setattr(estep, "HOLD_GIL_COMBINATIONS", 1 << 40)
    monkeypatch.setattr(gil_hold, "_local", threading.local())
    gil_hold.hold_short_kernels(hold)
    m = _model(seed)
    batch = _pairs(np.random.default_rng(100 + seed), 40, 80)  # words the model has not seen too
    want: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for s1, s2 in batch:
        es, fs = [NULL, *s1], [NULL, *s2]
        for f in s2:
            z = sum(_t21(m, f, e) for e in es)
            for e in es:
                want[(e, f)][0] += _t21(m, f, e) / z
        for e in s1:
            z = sum(_t12(m, e, f) for f in fs)
            for f in fs:
                want[(e, f)][1] += _t12(m, e, f) / z
    pairs = [TrainingPairs.from_words(batch)]
    ids1 = vocabulary_ids([p.first for p in pairs], m._index1, m._words1)
    ids2 = vocabulary_ids([p.second for p in pairs], m._index2, m._words2)
    m._grow()
    params = Parameters(*m._main, *m._delta, m._tot1, m._tot2, m._same1, m.smoothing, m.uniform)
    for chunk in (1 << 20, 50):
        (keys, n21, n12), delta = update_counts(ids1, pair_offsets([p.first for p in pairs]), ids2,
                                                pair_offsets([p.second for p in pairs]), params, chunk=chunk)
        got = {(m._words1[int(k) >> 32], m._words2[int(k) & 0xFFFFFFFF]): (a, b)
               for k, a, b in zip(keys.tolist(), n21.tolist(), n12.tolist(), strict=True)}
        assert set(got) == {k for k, v in want.items() if v[0] or v[1]}
        for k, (a, b) in got.items():
            assert a == pytest.approx(want[k][0], rel=1e-9) and b == pytest.approx(want[k][1], rel=1e-9), k
        assert np.all(np.diff(keys) > 0)
        # The delta table comes back with the counts added.
        assert np.all(np.diff(delta[0]) > 0) and set(delta[0].tolist()) == set(m._delta[0].tolist()) | set(keys.tolist())
        assert delta[1].sum() == pytest.approx(m._delta[1].sum() + n21.sum(), rel=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dense_tables_are_the_closed_form_cell_by_cell(dtype: type) -> None:
    m = _model(5)
    m.update([(["a3", "new1"], ["b3", "neu1"])])  # entries in the delta table too
    assert len(m._delta[0])
    words1 = ["a0", "a3", "7", "new1", "a59", "unseen", "b4"]
    words2 = ["b3", "7", "neu1", "b0", "never", "b4"]
    for rows, cols in ((None, None), (np.array([1, 3, 6]), np.array([0, 2, 5]))):
        lex = m.lexicon(words1, words2)
        tab = m.tables(lex, rows, cols, dtype)
        r = list(range(len(words1))) if rows is None else rows.tolist()
        c = list(range(len(words2))) if cols is None else cols.tolist()
        assert tab.t21.shape == (len(r) + 1, len(c) + 1) and tab.t21.dtype == dtype
        rel = 1e-12 if dtype == np.float64 else 1e-6
        for i, w1 in enumerate([NULL] + [words1[k] for k in r]):
            assert tab.t21[i, 0] == 0.0
            for j, w2 in enumerate([words2[k] for k in c], 1):
                assert tab.t21[i, j] == pytest.approx(_t21(m, w2, w1), rel=rel), (w1, w2)
        for j, w2 in enumerate([NULL] + [words2[k] for k in c]):
            assert tab.t12[0, j] == 0.0
            for i, w1 in enumerate([words1[k] for k in r], 1):
                assert tab.t12[i, j] == pytest.approx(_t12(m, w1, w2), rel=rel), (w1, w2)
