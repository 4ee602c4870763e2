"""What a crawl's translation model learnt, as a dictionary the next crawl reads
(matchers.content.learned_dictionary, ``bitext export dictionary``)."""

from __future__ import annotations

from bitext_spider.commands.cli import main as bitext_main
from bitext_spider.store.database import Store
from bitext_spider.store.records import ModelRecord
from matchers.content.dictionary_filter import load_dictionary
from matchers.content.learned_dictionary import learned_pairs
from matchers.content.translation_model import TranslationModel

PAIRS = [
    ("the house is red", "das haus ist rot"),
    ("the house is big", "das haus ist groß"),
    ("the car is red", "das auto ist rot"),
    ("a big car", "ein großes auto"),
    ("the big house 2024", "das große haus 2024"),
]


def _model() -> TranslationModel:
    model = TranslationModel("de", "en")  # the sorted order a crawl stores
    pairs = [(de.split(), en.split()) for en, de in PAIRS]
    for _ in range(5):
        model.update(pairs)
    return model


def test_learned_pairs_are_translations_both_ways():
    found = {(w1, w2) for w1, w2, _p in learned_pairs(_model(), min_prob=0.2, min_count=1.0)}
    assert {("haus", "house"), ("rot", "red"), ("auto", "car")} <= found
    assert not any(w1 == w2 for w1, w2 in found)  # "2024" is found unchanged anyway
    assert ("ist", "red") not in found


def test_export_dictionary_round_trips_into_the_dictionary_filter(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'm.db'}"
    store = Store(db)
    model = _model()
    store.save_models([ModelRecord("de", "en", model.pairs_seen, model.sentences_seen, model.to_bytes())])
    store.close()
    out = tmp_path / "en-de.dic"
    assert bitext_main(["export", "dictionary", "--db", db, "--langs", "en-de", "-o", str(out),
                        "--min-prob", "0.2"]) == 0
    assert "word pairs exported" in capsys.readouterr().err
    dic = load_dictionary(out)
    assert (dic.lang1, dic.lang2) == ("en", "de")  # the order --langs asked for
    assert "haus" in dic.translations("house", "en")
    assert "house" in dic.translations("haus", "de")
    # No model of that pair: one line, status 2.
    assert bitext_main(["export", "dictionary", "--db", db, "--langs", "en-fi"]) == 2
    assert "no stored en-fi translation model" in capsys.readouterr().err
    assert bitext_main(["export", "dictionary", "--db", db]) == 2
