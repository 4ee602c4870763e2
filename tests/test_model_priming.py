"""A dictionary primes the translation model of its language pair (matchers.content.model_priming):
translations start likely, the model's maturity and what is saved are its own training only."""

from __future__ import annotations

from bitext_spider.store.database import Store
from bitext_spider.store.model_registry import ModelRegistry
from matchers.content.dictionary_filter import BilingualDictionary
from matchers.content.model_priming import dictionary_pairs, prime
from matchers.content.translation_model import TranslationModel


def _dic() -> BilingualDictionary:
    fwd = {"cathedral": frozenset({"cathédrale"}), "red": frozenset({"rouge"}), "the": frozenset({"la", "le"}),
           "ice cream": frozenset({"glace"})}
    back: dict[str, set[str]] = {}
    for w, ts in fwd.items():
        for t in ts:
            back.setdefault(t, set()).add(w)
    return BilingualDictionary("en", "fr", fwd, {k: frozenset(v) for k, v in back.items()})


def test_dictionary_pairs_leave_out_stop_words_and_phrases():
    pairs = dictionary_pairs(_dic(), "en", "fr")
    assert pairs == [(["cathedral"], ["cathédrale"]), (["red"], ["rouge"])]
    assert dictionary_pairs(_dic(), "fr", "en") == [(["cathédrale"], ["cathedral"]), (["rouge"], ["red"])]
    assert dictionary_pairs(_dic(), "en", "de") is None


def test_priming_raises_translations_and_is_not_training():
    model = TranslationModel("en", "fr")
    before = model.prob21("cathédrale", "cathedral")
    prime(model, dictionary_pairs(_dic(), "en", "fr"))
    assert model.prob21("cathédrale", "cathedral") > 100 * before
    assert model.prob21("rouge", "cathedral") < model.prob21("cathédrale", "cathedral")
    assert model.sentences_seen == 0 and model.pairs_seen == 0 and not model.has_pending
    # Training after it is pending (saved) as usual, and only it.
    model.update([(["the", "cathedral"], ["la", "cathédrale"])])
    assert model.has_pending and model.pending_seen == (1, 1)
    assert {w for w in model.pending_counts().words1} == {"\x00NULL", "the", "cathedral"}


def test_the_registry_primes_what_it_reads_and_stores_only_training(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'm.db'}")
    site = store.ensure_site("http://a.test/", [])
    reg = ModelRegistry(store, save_interval=0.0)
    dic = _dic()
    reg.primer = lambda a, b: dictionary_pairs(dic, a, b)
    base = reg.get("fr", "en", site)
    assert base.prob21("cathédrale", "cathedral") > 0.1 and base.sentences_seen == 0
    own = reg.trainable("en", "fr", site)
    assert own.prob21("cathédrale", "cathedral") > 0.1
    own.update([(["the", "red", "cathedral"], ["la", "cathédrale", "rouge"])])
    reg.updated("en", "fr", site)
    assert reg.fold([site]) == 1
    stored = TranslationModel.from_bytes(store.model_row("en", "fr").state)
    assert stored.sentences_seen == 1
    # The stored model is the training alone: "red" - "rouge" learnt from one sentence, not primed.
    assert stored.prob21("cathédrale", "cathedral") < own.prob21("cathédrale", "cathedral")
    store.close()
