"""Texts that are no translation: the same text, or the same but for numbers, URLs and punctuation,
never pair, and pages with too little text to identify are `und`."""

from __future__ import annotations

from support import build_db

from bitext_spider.store.corpus_export import read_sentence_pairs
from bitext_spider.store.database import Store
from matchers.content.hard_rules import same_text, text_key
from matchers.page.language_id import LanguageIdentifier
from matchers.page.linearize import linearize, parse_html
from matchers.page.page_content import page_content
from matchers.page.page_parse import ParseOptions, letter_words, page_language
from matchers.site.decision import Evidence, decide


def test_identity_rules():
    assert same_text("Item 1234", "item 98")
    assert same_text("Call us: +33 1 23 45!", "Call us +44 20 7946")
    assert same_text("See https://a.example/x?id=3 now.", "See www.b.example now")
    assert same_text("2024-03-05", "12:30")  # no letters at all: the same as any other number
    assert same_text(["Item", "1234"], "Item 1234")
    assert not same_text("The cat is black.", "Le chat est noir.")
    assert not same_text("Item 1234", "Article 1234")
    assert len(text_key("x")) == 16


def test_labels_and_numbers_are_no_language():
    lid = LanguageIdentifier()
    options = ParseOptions()

    def lang(body: str) -> str:
        html = (f"<html><body><nav><a href='/'>Home</a> <a href='/shop'>Shop</a> <a href='/help'>Help and "
                f"contact</a></nav><main>{body}</main><footer>All rights reserved by the company</footer>"
                f"</body></html>")
        return page_language(linearize(parse_html(html)), options, lid)[0]

    assert letter_words("Item 1234 No. 1234") == 2
    assert lang("<h1>Item 1234</h1><p>No. 1234</p>") == "und"
    assert lang("<h1>2024-03-05</h1><p>12 / 31 / 2024 - 09:00</p>") == "und"
    assert lang("<h1>Opening hours</h1><p>The museum is open every day from nine in the morning.</p>") == "en"
    assert lang("<h1>Horaires</h1><p>Le musée est ouvert tous les jours à partir de neuf heures.</p>") == "fr"


def _content(lang: str, sentences: list[str]):
    return page_content([("p", lang, s) for s in sentences], lang)


def test_pages_with_the_same_text_are_vetoed():
    a = _content("en", ["Item 1234.", "Price 12 EUR."])
    b = _content("fr", ["Item 98.", "Price 7 EUR."])
    c = _content("fr", ["Article 98.", "Prix 7 EUR."])
    assert a.text_key == b.text_key and a.text_key != c.text_key
    d = decide(Evidence(structure=0.95, url_key=1.0, same_text=True))
    assert not d.accepted and d.veto == "same text in both languages"
    assert decide(Evidence(structure=0.95, url_key=1.0)).accepted


def test_the_corpus_leaves_out_identical_sentence_pairs(tmp_path):
    sentences = {(1, 2): [("Hello there.", "Bonjour à tous.", 0.9), ("Node.js 22", "Node.js 24", 0.9),
                          ("2024", "2025", 0.9)]}
    db = build_db(tmp_path / "c.db", pairs=[(1, 2, 0.9)], sentences=sentences)
    store = Store(db, create=False)
    try:
        kept = [(p.text1, p.text2) for p in read_sentence_pairs(store.engine)]
    finally:
        store.close()
    assert kept == [("Hello there.", "Bonjour à tous.")]


def test_paragraphs_of_numbers_take_the_page_language():
    from matchers.page.page_parse import paragraph_language

    lid, options = LanguageIdentifier(), ParseOptions(lang_min_confidence=0.4)
    assert paragraph_language("Item 1234 No. 5678 Ref 99 Code 42 Box 7", "en", options, lid) == "en"
    assert paragraph_language("Le musée est ouvert tous les jours à partir de neuf heures.", "en", options, lid) == "fr"
