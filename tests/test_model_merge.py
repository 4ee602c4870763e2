"""Merging translation models: counts added across vocabularies (matchers/content/translation_model.py),
each site's model and the fold of bitext_spider/store/model_registry.py, and two OS processes folding
into one SQLite or PostgreSQL database at once without losing or doubling an update."""

from __future__ import annotations

import multiprocessing as mp
import time
from collections import defaultdict

import numpy as np
import pytest
from pg_server import create_database, postgres_server

from bitext_spider.store import model_registry
from bitext_spider.store.database import Store
from bitext_spider.store.model_registry import ModelRegistry
from bitext_spider.store.records import ModelRecord
from matchers.content.translation_model import NULL, ModelCounts, TranslationModel

Counts = dict[tuple[str, str], np.ndarray]

# -- helpers ----------------------------------------------------------------------------------
def _doc(rng: np.random.Generator, n: int, words: list[str], ident: list[str] = ()) -> list[tuple[list[str], list[str]]]:
    """Sentence pairs: ``x`` translates as ``x.upper()``, order shuffled; ``ident`` tokens
    (numbers, names) are the same string on both sides."""
    out = []
    for _ in range(n):
        picked = rng.choice(words, size=int(rng.integers(2, 9))).tolist()
        same = rng.choice(ident, size=int(rng.integers(0, 2))).tolist() if len(ident) else []
        out.append((picked + same, [w.upper() for w in rng.permutation(picked).tolist()] + same))
    return out


def _entries(c: ModelCounts) -> Counts:
    out: Counts = {}
    for k, a, b in zip(c.keys.tolist(), c.c21.tolist(), c.c12.tolist(), strict=True):
        out[(c.words1[k >> 32], c.words2[k & 0xFFFFFFFF])] = np.array([a, b])
    return out


def _per_word(c: ModelCounts) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    return ({w: np.array([c.tot1[i], c.uni1[i]]) for i, w in enumerate(c.words1)},
            {w: np.array([c.tot2[i], c.uni2[i]]) for i, w in enumerate(c.words2)})


def _combine(*parts: tuple[float, dict]) -> dict:
    """``sum(sign * d)`` over dictionaries of arrays, keys united."""
    out: dict = defaultdict(lambda: np.zeros(2))
    for sign, d in parts:
        for k, v in d.items():
            out[k] = out[k] + sign * v
    return dict(out)


def _assert_same(got: dict, want: dict, rel: float = 1e-9) -> None:
    keys = set(got) | set(want)
    g = np.array([got.get(k, np.zeros(2)) for k in sorted(keys)])
    w = np.array([want.get(k, np.zeros(2)) for k in sorted(keys)])
    assert np.allclose(g, w, rtol=rel, atol=1e-12), np.abs(g - w).max()


def _assert_model_has(m: TranslationModel, entries: Counts, per1: dict, per2: dict) -> None:
    """``m``'s counts, totals, unigram and probabilities are those of the given counts."""
    c = m.counts()
    _assert_same(_entries(c), entries)
    got1, got2 = _per_word(c)
    _assert_same(got1, per1)
    _assert_same(got2, per2)
    # t(f|e) = (c(f,e) + lam * t0) / (c(e) + lam), t0 = 1 for identical strings: so identity links
    # of words that arrived by the merge must be there too.
    words1 = sorted(w for w in per1 if w != NULL)
    words2 = sorted(w for w in per2 if w != NULL)
    tab = m.local_tables(words1, words2, np.float64)
    lam, u = m.smoothing, m.uniform
    for i, e in enumerate([NULL, *words1]):
        for j, f in enumerate(words2, 1):
            t0 = 1.0 if e == f else u
            c21 = entries.get((e, f), np.zeros(2))[0]
            assert tab.t21[i, j] == pytest.approx((c21 + lam * t0) / (per1[e][0] + lam), rel=1e-9)
    for i, e in enumerate(words1, 1):
        for j, f in enumerate([NULL, *words2]):
            t0 = 1.0 if e == f else u
            c12 = entries.get((e, f), np.zeros(2))[1]
            assert tab.t12[i, j] == pytest.approx((c12 + lam * t0) / (per2[f][0] + lam), rel=1e-9)


# -- the model ----------------------------------------------------------------------------------
def test_two_processes_pending_counts_added_to_their_common_base_equal_the_summed_counts() -> None:
    rng = np.random.default_rng(3)
    shared = [f"w{i}" for i in range(40)]
    base = TranslationModel("xa", "xb", uniform=1e-3, min_count=0.0)
    for _ in range(3):
        base.update(_doc(rng, 15, shared, ["7"]))
    snapshot = base.to_bytes()
    a, b = TranslationModel.from_bytes(snapshot), TranslationModel.from_bytes(snapshot)
    assert not a.has_pending and a.pending_counts().empty
    # Disjoint training, new words of their own, met in opposite orders (so their ids differ),
    # and identical tokens that are new to the model ("2024", "Zurich").
    only_a = [f"a{i}" for i in range(30)]
    only_b = [f"b{i}" for i in range(30)]
    for _ in range(4):
        a.update(_doc(rng, 12, shared + only_a, ["7", "2024"]), documents=2)
    for _ in range(5):
        b.update(_doc(rng, 10, list(reversed(shared + only_b)), ["Zurich", "2024"]))
    assert a.pending_seen == (8, 48) and b.pending_seen == (5, 50)
    merged = TranslationModel.from_bytes(snapshot)
    merged.add_counts(a.pending_counts())
    merged.add_counts(b.pending_counts())

    ca, cb, c0 = a.counts(), b.counts(), base.counts()
    entries = _combine((1, _entries(ca)), (1, _entries(cb)), (-1, _entries(c0)))
    p1 = _combine((1, _per_word(ca)[0]), (1, _per_word(cb)[0]), (-1, _per_word(c0)[0]))
    p2 = _combine((1, _per_word(ca)[1]), (1, _per_word(cb)[1]), (-1, _per_word(c0)[1]))
    _assert_model_has(merged, entries, p1, p2)
    assert merged.sentences_seen == a.sentences_seen + b.sentences_seen - base.sentences_seen
    assert merged.pairs_seen == a.pairs_seen + b.pairs_seen - base.pairs_seen
    assert merged.prob21("2024", "2024") > 0.3 and merged.prob12("Zurich", "Zurich") > 0.3
    # The pending counts are copies: the processes' models are untouched, and a merge leaves
    # the receiving model's own pending counts alone.
    assert a.pending_seen == (8, 48) and not merged.has_pending
    # Order does not matter.
    other = TranslationModel.from_bytes(snapshot)
    other.add_counts(b.pending_counts())
    other.add_counts(a.pending_counts())
    _assert_same(_entries(other.counts()), _entries(merged.counts()))


def test_a_fresh_models_pending_counts_are_its_training_then_only_what_follows_a_clear_or_a_merge() -> None:
    rng = np.random.default_rng(9)
    words = [f"w{i}" for i in range(30)]
    fresh = TranslationModel("xa", "xb", uniform=1e-3, min_count=0.0)
    for _ in range(3):
        fresh.update(_doc(rng, 10, words, ["7"]))
    # Its own training only: the pending counts are the model's counts.
    _assert_same(_entries(fresh.pending_counts()), _entries(fresh.counts()))
    assert _per_word(fresh.pending_counts())[0].keys() <= _per_word(fresh.counts())[0].keys()
    before = fresh.counts()
    other = TranslationModel("xa", "xb", uniform=1e-3, min_count=0.0)
    other.update(_doc(rng, 10, words))
    fresh.add_counts(other.counts())  # someone else's training: not pending
    _assert_same(_entries(fresh.pending_counts()), _entries(before))
    fresh.clear_pending()
    after_clear = fresh.counts()
    fresh.update(_doc(rng, 10, words))
    _assert_same(_entries(fresh.pending_counts()),
                 _combine((1, _entries(fresh.counts())), (-1, _entries(after_clear))), rel=1e-6)


def test_whole_models_with_different_word_ids_merge_to_the_summed_counts() -> None:
    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(50)]
    a = TranslationModel("xa", "xb", uniform=1e-3, min_count=0.0)
    b = TranslationModel("xa", "xb", uniform=1e-3, min_count=0.0)
    for _ in range(4):
        a.update(_doc(rng, 15, words))
        b.update(_doc(rng, 15, list(reversed(words)) + ["extra"]))
    # "7" is a lang2 word only in a and a lang1 word only in b: the merge must link the two.
    a.update([(["w1"], ["W1", "7"])])
    b.update([(["w2", "7"], ["W2"])])
    assert a._index1["w3"] != b._index1["w3"]  # the point: ids differ
    ca, cb = a.counts(), b.counts()
    entries = _combine((1, _entries(ca)), (1, _entries(cb)))
    p1 = _combine((1, _per_word(ca)[0]), (1, _per_word(cb)[0]))
    p2 = _combine((1, _per_word(ca)[1]), (1, _per_word(cb)[1]))
    ab = TranslationModel.from_bytes(a.to_bytes())
    ab.merge(b)
    ba = TranslationModel.from_bytes(b.to_bytes())
    ba.merge(a)
    for m in (ab, ba):
        _assert_model_has(m, entries, p1, p2)
        assert m.sentences_seen == a.sentences_seen + b.sentences_seen
        assert m._same1[m._index1["7"]] == m._index2["7"] and m._same2[m._index2["7"]] == m._index1["7"]
    assert ab.score(["w3", "w4", "7"], ["W4", "7", "W3"]) == pytest.approx(
        ba.score(["w3", "w4", "7"], ["W4", "7", "W3"]), rel=1e-9)
    # A round trip keeps the merged model (the stored layout did not change).
    again = TranslationModel.from_bytes(ab.to_bytes())
    _assert_same(_entries(again.counts()), entries)
    with pytest.raises(ValueError):
        TranslationModel("xb", "xa").merge(a)


def test_pending_counts_that_outgrow_the_model_are_pruned_but_keep_their_mass(monkeypatch) -> None:
    """Cleared at every save they stay exact; never cleared (saves failing) they are bounded."""
    import matchers.content.translation_model as tm

    monkeypatch.setattr(tm, "_DELTA_MIN", 50)
    monkeypatch.setattr(tm, "_PENDING_MIN", 50)
    words = [f"w{i}" for i in range(80)]
    exact = TranslationModel("xa", "xb", uniform=1e-3, min_count=0.0)
    bounded = TranslationModel("xa", "xb", uniform=1e-3)
    for model in (exact, bounded):
        rng = np.random.default_rng(11)
        for _ in range(10):
            model.update(_doc(rng, 20, words))
    full, pruned = exact.pending_counts(), bounded.pending_counts()
    assert len(pruned.keys) < 0.6 * len(full.keys)
    assert len(full.keys) == exact.num_entries  # the fresh model's pending counts are all of it
    # c(e), c(f) keep the dropped entries' mass, as the model's own tables do.
    assert pruned.tot1.sum() == pytest.approx(bounded._tot1.sum(), rel=1e-12)
    assert pruned.tot2.sum() == pytest.approx(bounded._tot2.sum(), rel=1e-12)
    merged = TranslationModel("xa", "xb", uniform=1e-3)
    merged.add_counts(pruned)
    assert merged.prob21("W3", "w3") == pytest.approx(bounded.prob21("W3", "w3"), rel=1e-6)


# -- the store and the registry -------------------------------------------------------------------
def _sqlite(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'models.db'}"


def _check_compare_and_set(url: str) -> None:
    store = Store(url)
    try:
        assert store.model_version("en", "fr") is None
        assert store.replace_model(ModelRecord("en", "fr", 1, 10, b"one"), None)
        assert not store.replace_model(ModelRecord("en", "fr", 2, 20, b"lost"), None)  # a row exists
        assert not store.replace_model(ModelRecord("en", "fr", 2, 20, b"stale"), (9, 1))
        assert store.replace_model(ModelRecord("en", "fr", 2, 20, b"two"), (10, 1))
        assert not store.replace_model(ModelRecord("en", "fr", 3, 30, b"stale"), (10, 1))
        row = store.model_row("en", "fr")
        assert row is not None and (row.state, row.version) == (b"two", (20, 2))
        assert store.load_model("en", "fr") == b"two"
    finally:
        store.close()


def test_replace_model_is_a_compare_and_set(tmp_path) -> None:
    _check_compare_and_set(_sqlite(tmp_path))


def _check_site_rows_and_fold(url: str) -> None:
    store = Store(url)
    try:
        a, b = store.ensure_site("http://a.test/", []), store.ensure_site("http://b.test/", [])
        assert store.replace_site_model(a, ModelRecord("en", "fr", 1, 10, b"a1"), None)
        assert not store.replace_site_model(a, ModelRecord("en", "fr", 1, 10, b"lost"), None)
        assert store.replace_site_model(b, ModelRecord("en", "fr", 1, 5, b"b1"), None)
        assert store.replace_site_model(a, ModelRecord("en", "fr", 2, 20, b"a2"), (10, 1))
        assert not store.replace_site_model(a, ModelRecord("en", "fr", 3, 30, b"stale"), (10, 1))
        rows = store.site_models()
        assert [(r.site_key, r.model.state, r.model.version) for r in rows] == [
            ("http://a.test/", b"a2", (20, 2)), ("http://b.test/", b"b1", (5, 1))]
        # A row changed since it was read: the fold writes nothing, not even the model.
        stale = [rows[0], type(rows[1])(b, rows[1].site_key, "en", "fr", type(rows[1].model)(b"b0", 0, 1))]
        assert not store.fold_site_models(ModelRecord("en", "fr", 3, 25, b"sum"), None, stale)
        assert store.model_row("en", "fr") is None and len(store.site_models()) == 2
        assert store.fold_site_models(ModelRecord("en", "fr", 3, 25, b"sum"), None, rows)
        assert store.model_row("en", "fr").state == b"sum" and store.site_models() == []
    finally:
        store.close()


def test_site_rows_are_compare_and_set_and_a_fold_is_all_or_nothing(tmp_path) -> None:
    _check_site_rows_and_fold(_sqlite(tmp_path))


def _seeded(url: str, base: TranslationModel | None = None) -> tuple[Store, int, int]:
    store = Store(url)
    if base is not None:
        assert store.replace_model(ModelRecord("en", "fr", base.pairs_seen, base.sentences_seen, base.to_bytes()),
                                   None)
    return store, store.ensure_site("http://a.test/", []), store.ensure_site("http://b.test/", [])


def test_a_sites_model_is_the_base_plus_its_own_training_only(tmp_path) -> None:
    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(60)]
    base = TranslationModel("en", "fr", min_count=0.0)
    base.update(_doc(rng, 10, words))
    store, a, b = _seeded(_sqlite(tmp_path), base)
    reg = ModelRegistry(store, save_interval=0.0)
    ma = reg.trainable("fr", "en", a)
    ma.update(_doc(rng, 7, words))
    trained = _entries(ma.pending_counts())
    reg.updated("en", "fr", a)
    assert not ma.has_pending and reg.saves == 1
    # Site b, opened after a saved: the base as first read, nothing of a's.
    mb = reg.get("en", "fr", b)
    assert mb.to_bytes() == TranslationModel.from_bytes(base.to_bytes()).to_bytes()
    row = store.site_model_row(a, "en", "fr")
    assert row.version == (7, 1)
    _assert_same(_entries(TranslationModel.from_bytes(row.state).counts()), trained)
    assert store.model_row("en", "fr").version == (10, 1)  # not folded yet
    assert reg.fold([a]) == 1 and reg.folded_sentences == 7
    stored = TranslationModel.from_bytes(store.model_row("en", "fr").state)
    assert stored.sentences_seen == 17
    _assert_same(_entries(stored.counts()), _combine((1, _entries(base.counts())), (1, trained)))
    assert store.site_models() == [] and reg.fold() == 0
    store.close()


def test_an_update_without_snapshot_waits_for_the_save_at_close(tmp_path) -> None:
    store, a, _b = _seeded(_sqlite(tmp_path))
    reg = ModelRegistry(store, save_interval=0.0)
    (model := reg.trainable("en", "fr", a)).update(_doc(np.random.default_rng(2), 5, [f"w{i}" for i in range(40)]))
    reg.updated("en", "fr", a, snapshot=False)
    trained = _entries(model.pending_counts())  # still pending: nothing was saved
    assert model.has_pending and reg.saves == 0 and store.site_model_row(a, "en", "fr") is None
    assert reg.save_all() == 1 and not model.has_pending and reg.saves == 1
    _assert_same(_entries(TranslationModel.from_bytes(store.site_model_row(a, "en", "fr").state).counts()), trained)
    store.close()


def test_the_folded_model_does_not_depend_on_the_order_sites_trained_and_saved(tmp_path) -> None:
    def run(name: str, order: list[int]) -> bytes:
        store, a, b = _seeded(f"sqlite:///{tmp_path / name}")
        reg = ModelRegistry(store, save_interval=float("inf"))
        for site in order:  # each site's pages in the same order; the sites interleaved differently
            rng = np.random.default_rng(site)
            words = [f"s{site}_{i}" for i in range(20)] + [f"w{i}" for i in range(20)]
            for _ in range(3):
                model = reg.trainable("en", "fr", [a, b][site])
                model.update(_doc(rng, 6, words, ["7"]))
                reg.updated("en", "fr", [a, b][site])
                reg.save_all()
        reg.fold()
        state = store.model_row("en", "fr").state
        store.close()
        return state

    assert run("one.db", [0, 1]) == run("two.db", [1, 0])


def test_bitext_db_fold_folds_what_a_run_left(tmp_path, capsys) -> None:
    from bitext_spider.commands.db_cli import main as db_main

    url = _sqlite(tmp_path)
    store, a, b = _seeded(url)
    reg = ModelRegistry(store, save_interval=float("inf"))
    for site, n in ((a, 4), (b, 6)):
        reg.trainable("en", "fr", site).update(_doc(np.random.default_rng(site), n, ["x", "y", "z"]))
        reg.updated("en", "fr", site)
    assert reg.save_all() == 2 and store.model_row("en", "fr") is None
    store.close()
    assert db_main(["db", "fold", "--db", url]) == 0
    assert "folded 2 site models" in capsys.readouterr().out
    store = Store(url)
    assert store.model_row("en", "fr").version == (10, 2) and store.site_models() == []
    store.close()


def test_a_failed_save_keeps_the_pending_counts_for_the_next(tmp_path, monkeypatch) -> None:
    rng = np.random.default_rng(4)
    store, a, _b = _seeded(_sqlite(tmp_path))
    reg = ModelRegistry(store, save_interval=0.0)
    model = reg.trainable("en", "fr", a)
    model.update(_doc(rng, 5, ["a", "b", "c"]))

    def fail(*_a, **_k):
        raise RuntimeError("database away")

    with monkeypatch.context() as m:
        m.setattr(store, "replace_site_model", fail)
        reg.updated("en", "fr", a)
    assert model.has_pending and store.site_model_row(a, "en", "fr") is None
    assert reg.save_all() == 1
    assert store.site_model_row(a, "en", "fr").sentences_seen == 5
    store.close()


def test_close_saves_and_folds_every_language_pair_together_and_a_race_falls_back_to_one_by_one(
    tmp_path, monkeypatch
) -> None:
    store, a, b = _seeded(_sqlite(tmp_path))
    reg = ModelRegistry(store, save_interval=float("inf"))
    pairs = [("en", "fr"), ("de", "en"), ("en", "es")]
    for site, n in ((a, 3), (b, 4)):
        for lang1, lang2 in pairs:
            reg.trainable(lang1, lang2, site).update(_doc(np.random.default_rng(site + n), n, ["x", "y", "z"]))
            reg.updated(lang1, lang2, site)
    # Another process saves training of site a's en-fr row between this save's read and its write.
    other = ModelRegistry(Store(store.engine.url.render_as_string(hide_password=False)), save_interval=float("inf"))
    read = store.site_model_rows

    def read_then_race(keys):
        rows = read(keys)
        if (a, "en", "fr") in keys:
            other.trainable("en", "fr", a).update(_doc(np.random.default_rng(9), 2, ["x", "y", "z"]))
            other.updated("en", "fr", a)
            assert other.save_all() == 1
        return rows

    monkeypatch.setattr(store, "site_model_rows", read_then_race)
    assert reg.save_all() == 6  # the batch lost the race; each pair saved on its own
    assert store.site_model_row(a, "en", "fr").sentences_seen == 3 + 2  # neither training lost
    assert store.site_model_row(b, "de", "en").sentences_seen == 4
    monkeypatch.undo()
    assert reg.save_all() == 0

    fold_one = []
    monkeypatch.setattr(reg, "_fold_pair", lambda *a, **k: fold_one.append(a) or 0)
    assert reg.fold() == 6 and fold_one == []  # three pairs, two sites each, one transaction
    assert store.site_models() == []
    assert store.model_row("en", "fr").sentences_seen == 3 + 2 + 4
    assert store.model_row("en", "es").sentences_seen == 3 + 4
    store.close()


def test_a_fold_that_loses_a_race_folds_pair_by_pair(tmp_path, monkeypatch) -> None:
    store, a, b = _seeded(_sqlite(tmp_path))
    reg = ModelRegistry(store, save_interval=float("inf"))
    for site in (a, b):
        for lang1, lang2 in (("en", "fr"), ("de", "en")):
            reg.trainable(lang1, lang2, site).update(_doc(np.random.default_rng(site), 3, ["x", "y"]))
            reg.updated(lang1, lang2, site)
    assert reg.save_all() == 4
    monkeypatch.setattr(store, "fold_many_site_models", lambda folds: False)
    assert reg.fold() == 4  # each pair on its own (fold_site_models)
    assert store.site_models() == [] and store.model_row("de", "en").sentences_seen == 6
    store.close()


def _entry_table(c: ModelCounts) -> dict[tuple[str, str], tuple[float, float]]:
    return {(c.words1[int(k) >> 32], c.words2[int(k) & 0xFFFFFFFF]): (float(a), float(b))
            for k, a, b in zip(c.keys.tolist(), c.c21.tolist(), c.c12.tolist(), strict=True)}


def _close_of(url: str, together: bool) -> Store:
    """Two sites train three language pairs (site a saves part of en-fr before close), then the
    crawl's close stores them: save_and_fold, or save_all then fold."""
    store, a, b = _seeded(url)
    reg = ModelRegistry(store, save_interval=float("inf"))
    pairs = [("en", "fr"), ("de", "en"), ("en", "es")]
    reg.trainable("en", "fr", a).update(_doc(np.random.default_rng(1), 4, ["x", "y", "z"]))
    reg.updated("en", "fr", a)
    assert reg.save_all() == 1  # a periodic save: site a's en-fr row exists before close
    for site in (b, a):
        for k, (lang1, lang2) in enumerate(pairs):
            reg.trainable(lang1, lang2, site).update(_doc(np.random.default_rng(10 * site + k), 3 + k, ["x", "y", "w"]))
            reg.updated(lang1, lang2, site)
    if together:
        assert reg.save_and_fold([a, b]) == (6, 6)
    else:
        assert reg.save_all() == 6 and reg.fold([a, b]) == 6
    assert store.site_models() == []
    return store


def test_close_saves_and_folds_without_site_rows_into_the_models_the_two_steps_give(tmp_path) -> None:
    two_steps = _close_of(f"sqlite:///{tmp_path / 'a.db'}", together=False)
    together = _close_of(f"sqlite:///{tmp_path / 'b.db'}", together=True)
    for pair in (("en", "fr"), ("de", "en"), ("en", "es")):
        x, y = two_steps.model_row(*pair), together.model_row(*pair)
        assert x.version == y.version
        cx, cy = (TranslationModel.from_bytes(r.state).counts() for r in (x, y))
        assert _entry_table(cx) == _entry_table(cy)
        assert np.array_equal(cx.tot1, cy.tot1) and np.array_equal(cx.uni2, cy.uni2)
    assert together.model_row("en", "fr").sentences_seen == 4 + 3 + 3
    two_steps.close()
    together.close()


def test_a_close_that_loses_its_race_saves_and_folds_in_two_steps(tmp_path, monkeypatch) -> None:
    store, a, b = _seeded(_sqlite(tmp_path))
    reg = ModelRegistry(store, save_interval=float("inf"))
    for site in (a, b):
        reg.trainable("en", "fr", site).update(_doc(np.random.default_rng(site), 3, ["x", "y"]))
        reg.updated("en", "fr", site)
    real = store.fold_many_site_models
    calls = []

    def lose_first(folds):
        calls.append(len(folds))
        return False if len(calls) == 1 else real(folds)

    monkeypatch.setattr(store, "fold_many_site_models", lose_first)
    assert reg.save_and_fold([a, b]) == (2, 2)
    assert store.site_models() == [] and store.model_row("en", "fr").sentences_seen == 6
    assert not reg.trainable("en", "fr", a).has_pending
    store.close()


# -- two OS processes at once ----------------------------------------------------------------------
K_UPDATES = 25
N_SENTENCES = 12


def _trainer(url: str, tag: int, barrier, out) -> None:
    """Train one site's en-fr model K times, save and fold after each update, racing another
    process that does the same for another site."""
    store = Store(url)
    site = store.ensure_site(f"http://site{tag}.test/", [])
    reg = ModelRegistry(store, save_interval=0.0)
    rng = np.random.default_rng(tag)
    vocab = [f"p{tag}_{i}" for i in range(30)] + [f"w{i}" for i in range(30)]
    # Compile the kernels and warm the connection first, so the two really race after the barrier.
    TranslationModel("xx", "yy").update(_doc(rng, 2, vocab))
    store.model_version("en", "fr")
    barrier.wait(60)
    added: list[ModelCounts] = []
    tokens = [0, 0]
    for _ in range(K_UPDATES):
        pairs = _doc(rng, N_SENTENCES, vocab, [str(tag)])
        model = reg.trainable("en", "fr", site)
        model.update(pairs)
        added.append(model.pending_counts())
        tokens[0] += sum(len(a) for a, _ in pairs)
        tokens[1] += sum(len(b) for _, b in pairs)
        reg.updated("en", "fr", site)
        assert not model.has_pending  # saved in the site's row
        reg.fold([site])
        # Pages arrive apart in a crawl; without a pause one process can take the SQLite lock
        # for all its writes while the other's busy handler sleeps, and they would barely race.
        time.sleep(0.01)
    out.put((tag, tokens, reg.folded_sites, model.sentences_seen, added))
    print(f"trainer {tag}: {reg.folded_sites} folds, {reg.lost_races} writes lost a race and were retried")
    store.close()


def _two_processes_fold(url: str) -> None:
    store = Store(url)
    seed = TranslationModel("en", "fr", min_count=0.0)  # no pruning: the sums can be compared
    assert store.replace_model(ModelRecord("en", "fr", 0, 0, seed.to_bytes()), None)
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_trainer, args=(url, tag, barrier, out)) for tag in (1, 2)]
    for p in procs:
        p.start()
    results = [out.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    try:
        row = store.model_row("en", "fr")
        assert row is not None and store.site_models() == []
        m = TranslationModel.from_bytes(row.state)
        total = 2 * K_UPDATES * N_SENTENCES
        assert row.version == (total, 2 * K_UPDATES) == (m.sentences_seen, m.pairs_seen)
        # Nothing lost or counted twice: every token each process trained on is in the stored
        # unigram, each target token's unit of expected count in c(e), every count in the table.
        tok1 = sum(r[1][0] for r in results)
        tok2 = sum(r[1][1] for r in results)
        assert m._uni1.sum() == tok1 and m._uni2.sum() == tok2
        assert m._tot1.sum() == pytest.approx(tok2, rel=1e-9)
        assert m._tot2.sum() == pytest.approx(tok1, rel=1e-9)
        _assert_same(_entries(m.counts()), _combine(*((1, _entries(c)) for r in results for c in r[4])))
        assert {"p1_0", "p2_0", "w0"} <= set(m._index1) and m.prob21("2", "2") > 0.3
        # Each process judged with its own site's training only.
        assert [r[3] for r in results] == [K_UPDATES * N_SENTENCES] * 2
        assert [r[2] for r in results] == [K_UPDATES] * 2
    finally:
        store.close()


@pytest.mark.slow
def test_two_processes_fold_into_one_sqlite_database(tmp_path) -> None:
    _two_processes_fold(_sqlite(tmp_path))


@pytest.fixture(scope="module")
def pg_server():
    with postgres_server() as url:
        yield url


@pytest.fixture
def pg_url(pg_server):
    return create_database(pg_server)


@pytest.mark.slow
def test_replace_model_is_a_compare_and_set_on_postgresql(pg_url) -> None:
    _check_compare_and_set(pg_url)


@pytest.mark.slow
def test_site_rows_are_compare_and_set_and_a_fold_is_all_or_nothing_on_postgresql(pg_url) -> None:
    _check_site_rows_and_fold(pg_url)


@pytest.mark.slow
def test_two_processes_fold_into_one_postgresql_database(pg_url) -> None:
    _two_processes_fold(pg_url)


def test_close_groups_language_pairs_into_transactions_by_their_models_size(tmp_path, monkeypatch) -> None:
    store, a, _b = _seeded(_sqlite(tmp_path))
    reg = ModelRegistry(store, save_interval=float("inf"))
    pairs = [("en", x) for x in ("fa", "fr", "ga", "gl", "hu")]

    def train() -> int:
        for lang1, lang2 in pairs:  # the same training: models of one size
            reg.trainable(lang1, lang2, a).update(_doc(np.random.default_rng(0), 3, ["x", "y", "z"]))
            reg.updated(lang1, lang2, a)
        (size,) = {reg.trainable(*p, a).num_entries for p in pairs}
        return size

    real, groups = store.fold_many_site_models, []
    monkeypatch.setattr(store, "fold_many_site_models", lambda folds: groups.append(len(folds)) or real(folds))
    monkeypatch.setattr(model_registry, "_TOGETHER", 3)
    monkeypatch.setattr(model_registry, "_TOGETHER_ENTRIES", 2 * train())
    assert reg.save_and_fold([a]) == (5, 5)
    assert groups == [2, 2, 1]  # the entries close a group before the count does
    monkeypatch.setattr(model_registry, "_TOGETHER_ENTRIES", 100 * train())
    groups.clear()
    assert reg.save_and_fold([a]) == (5, 5)
    assert groups == [3, 2]
    assert all(store.model_row(*p).sentences_seen == 6 for p in pairs)
    store.close()
