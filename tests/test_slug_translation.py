"""Translated URL slugs as evidence (matchers/site/slug_translation.py), on canada.ca's English and
French URLs of the same pages (the site's own pairs, as its language toggle links them)."""

import pytest

from matchers.content.translation_model import TranslationModel
from matchers.site.decision import Evidence, decide
from matchers.site.slug_translation import dictionary_translate, model_translate, slug_score, slug_words

PAIRS = [
    ("https://www.canada.ca/en/services/taxes/income.html", "https://www.canada.ca/fr/services/impots/revenu.html"),
    ("https://www.canada.ca/en/services/work.html", "https://www.canada.ca/fr/services/travail.html"),
    ("https://www.canada.ca/en/services/travel.html", "https://www.canada.ca/fr/services/voyages.html"),
    ("https://www.canada.ca/en/services/benefits.html", "https://www.canada.ca/fr/services/prestations.html"),
    ("https://www.canada.ca/en/services/immigration-citizenship.html",
     "https://www.canada.ca/fr/services/immigration-citoyennete.html"),
]
# A few entries of an English-French dictionary, as BilingualDictionary.translations gives them.
DICTIONARY = {"taxes": {"impôts", "taxes"}, "income": {"revenu"}, "work": {"travail", "oeuvre"},
              "travel": {"voyage", "voyager"}, "benefits": {"prestations", "avantages"},
              "citizenship": {"citoyenneté"}}


def translate_en():
    return dictionary_translate(lambda w: frozenset(DICTIONARY.get(w, ())))


def test_slug_words_are_the_letters_only_tokens_of_the_path():
    assert slug_words(PAIRS[0][1]) == ("services", "impots", "revenu")
    # Ids, hashes and file extensions are no words.
    assert slug_words("http://h/p/0004c167733f.html") == ()
    assert slug_words("http://h/news/2024/05/Élections-fédérales.php?id=3") == ("news", "élections", "fédérales")


@pytest.mark.parametrize(("en", "fr"), PAIRS)
def test_translated_slugs_of_the_same_page_score_high(en, fr):
    assert slug_score(en, fr, translate_en()) == 1.0


def test_slugs_of_different_pages_score_zero_and_shared_slugs_say_nothing():
    assert slug_score(PAIRS[0][0], PAIRS[2][1], translate_en()) == 0.0
    assert slug_score(PAIRS[1][0], PAIRS[3][1], translate_en()) == 0.0
    # Same words on both sides (only the language code differs): no translated slug to judge.
    assert slug_score("http://h/en/about-us.html", "http://h/fr/about-us.html", translate_en()) is None


def test_the_sites_own_model_translates_slug_words():
    model = TranslationModel()
    texts = [("the income tax return", "la déclaration de revenu"), ("your income this year", "votre revenu cette année"),
             ("travel documents", "documents de voyage"), ("travel advice", "conseils aux voyageurs")]
    pairs = [(en.split(" "), fr.split(" ")) for en, fr in texts] * 5
    model.update(pairs)
    translate = model_translate(model)
    assert slug_score("https://h/en/income.html", "https://h/fr/revenu.html", translate) == 1.0
    assert slug_score("https://h/en/income.html", "https://h/fr/documents.html", translate) == 0.0
    # Each word pair is looked up once per translator, with the answers a fresh lookup gives.
    calls = []
    real = model.local_tables
    model.local_tables = lambda w1, w2: (calls.append((list(w1), list(w2))), real(w1, w2))[1]  # type: ignore[method-assign]
    memo = model_translate(model)
    words1, words2 = ["income", "travel", "advice"], ["revenu", "voyage", "conseils", "documents"]
    first = memo(words1[:2], words2[:3])
    assert memo(words1, words2) == model_translate(model)(words1, words2)
    assert memo(words1[:2], words2[:3]) == first and first[0][0] and first[1][1]
    assert calls[:2] == [(words1[:2], words2[:3]), (words1, words2)]  # "income", "travel" had no "documents" yet
    assert len(calls) == 3  # the third was the fresh translator's


def test_a_language_pairs_slug_words_in_one_table_give_each_pairs_own_answer(monkeypatch):
    model = TranslationModel()
    texts = [("the income tax return", "la déclaration de revenu"), ("your income this year", "votre revenu cette année"),
             ("travel documents", "documents de voyage"), ("travel advice", "conseils aux voyageurs"),
             ("the documents", "les documents")]
    model.update([(en.split(" "), fr.split(" ")) for en, fr in texts] * 5)
    words1 = ["income", "travel", "advice", "documents", "unseen", "the"]
    words2 = ["revenu", "voyage", "conseils", "documents", "voyageurs", "les", "inconnu"]
    prepared = model_translate(model)
    assert prepared.prepare(words1, words2)
    calls = []
    real = model.local_tables
    model.local_tables = lambda w1, w2: (calls.append(1), real(w1, w2))[1]  # type: ignore[method-assign]
    for i, w in enumerate(words1):
        for j in range(len(words2)):
            pick1, pick2 = [w, *words1[:i]], words2[j:j + 3]
            assert prepared(pick1, pick2) == model_translate(model)(pick1, pick2)
    # "documents" is on both sides: its identity cell is the one a lookup of the pair alone gives.
    assert prepared(["documents"], ["documents"]) == model_translate(model)(["documents"], ["documents"])
    n = len(calls)
    assert prepared(["travel"], ["voyage"]) == [[True]]
    assert len(calls) == n  # answered from the table
    # Words outside the table are looked up as before.
    assert prepared(["travel", "tax"], ["voyage"]) == model_translate(model)(["travel", "tax"], ["voyage"])
    # A table over the bound is not made.
    monkeypatch.setattr("matchers.site.slug_translation.MAX_TABLE_CELLS", len(words1) * len(words2) - 1)
    assert not model_translate(model).prepare(words1, words2)


def test_decision_counts_slugs_only_with_other_evidence():
    assert not decide(Evidence(slug=1.0)).accepted
    assert decide(Evidence(slug=1.0, fingerprint_ratio=0.3, content_share=0.3, maturity=0.5)).accepted
    assert not decide(Evidence(fingerprint_ratio=0.3, content_share=0.3, maturity=0.5)).accepted
