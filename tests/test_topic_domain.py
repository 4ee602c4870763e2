"""The domain definition of a focused crawl: ILSP-FC's topic file and term counting per language
(matchers.page.domain_terms)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bitext_spider.config import BitextConfig
from bitext_spider.crawl.focused import DomainError, load_domain
from matchers.page.domain_terms import (
    Domain,
    DomainFileError,
    domain_at,
    parse_domain_text,
    stemmer_name,
    words,
)
from matchers.page.domain_terms import load_domain as load_domain_file

ROOT = Path(__file__).resolve().parents[1]

TEXT = """# web i18n
100:character encoding=characters>en
100:Zeichenkodierung=characters>de
80:language tag=language;metadata>en-GB
50:Unicode=characters

this line has no weight
x:term=sub>en
100:=characters>en
100:term without subdomain>en
100:term=sub>not a code
0:zero=sub
-20:programming language=other>en
30:кодуван=characters>uk
40:字符编码=characters>zh
"""


def _domain(text: str = TEXT) -> Domain:
    return Domain("i18n", tuple(parse_domain_text(text).terms))


def test_lines_parse_into_triplets_with_language():
    report = parse_domain_text(TEXT)
    got = [(t.weight, t.term, t.subdomains, t.lang, t.line) for t in report.terms]
    assert got == [
        (100.0, "character encoding", ("characters",), "en", 2),
        (100.0, "Zeichenkodierung", ("characters",), "de", 3),
        (80.0, "language tag", ("language", "metadata"), "en", 4),
        (50.0, "Unicode", ("characters",), None, 5),
        (-20.0, "programming language", ("other",), "en", 13),
        (30.0, "кодуван", ("characters",), "uk", 14),
        (40.0, "字符编码", ("characters",), "zh", 15),
    ]


def test_malformed_lines_are_reported_with_their_number():
    problems = parse_domain_text(TEXT, source="i18n.txt").problems
    assert [p.split(":", 2)[:2] for p in problems] == [
        ["i18n.txt line 7", " expected WEIGHT"],
        ["i18n.txt line 8", " the weight 'x' is not a number"],
        ["i18n.txt line 9", " the term has no word"],
        ["i18n.txt line 10", " no =SUBDOMAIN after the term"],
        ["i18n.txt line 11", " 'not a code' is not a language code"],
        ["i18n.txt line 12", " the weight must be a non-zero number"],
    ]


def test_a_file_without_a_valid_line_or_missing_is_refused(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("# nothing\nno weight here\n", encoding="utf-8")
    with pytest.raises(DomainFileError, match=r"has no valid WEIGHT:TERM=SUBDOMAIN\[>LANG\] line \(1 malformed lines\)"):
        load_domain_file(bad)
    with pytest.raises(DomainFileError, match="cannot read the domain file"):
        load_domain_file(tmp_path / "missing.txt")
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"100:\xff\xfe=x\n")
    with pytest.raises(DomainFileError, match="is not UTF-8 text"):
        load_domain_file(binary)
    # Through the crawl's config: one user error line, saying what to give.
    with pytest.raises(DomainError, match=r"give -a domain=FILE"):
        load_domain(BitextConfig(domain=str(bad)))
    assert load_domain(BitextConfig()) is None


def test_terms_and_text_are_stemmed_in_their_language():
    d = _domain()
    en = d.matcher("en").count("Character encodings and language tags; the character-encoding of Unicode text")
    assert {d.terms[i].term: n for i, n in en.items()} == {"character encoding": 2, "language tag": 1, "Unicode": 1}
    de = d.matcher("de-AT").count("Zeichenkodierungen und UNICODE")
    assert {d.terms[i].term: n for i, n in de.items()} == {"Zeichenkodierung": 1, "Unicode": 1}
    assert stemmer_name("pt-BR") == "portuguese" and stemmer_name("uk") is None


def test_languages_without_a_stemmer_match_word_beginnings_and_unspaced_scripts_characters():
    d = _domain()
    uk = d.matcher("uk").count("Кодування символів і кодуванні; код не рахується")
    assert {d.terms[i].term: n for i, n in uk.items()} == {"кодуван": 2}
    zh = d.matcher("zh").count("字符编码和Unicode。字符编码")
    assert {d.terms[i].term: n for i, n in zh.items()} == {"字符编码": 2, "Unicode": 1}


def test_a_language_without_terms_of_its_own_gets_every_term():
    d = _domain()
    assert {t.term for _, t in d.terms_for("en")} == {"character encoding", "language tag", "Unicode",
                                                      "programming language"}
    assert len(d.terms_for("sv")) == len(d.terms)
    sv = d.matcher("sv").count("Zeichenkodierung och character encoding")
    assert sorted(d.terms[i].term for i in sv) == ["Zeichenkodierung", "character encoding"]


def test_words_normalize_case_width_and_separators():
    assert words("ＵＴＦ-8, l'Encodage") == ["utf", "8", "l", "encodage"]


def test_the_example_domain_file_parses_without_problems(tmp_path):
    d = domain_at(str(ROOT / "docs" / "examples" / "i18n-domain.txt"))
    assert d.problems == () and len(d.terms) > 200
    assert {"en", "de", "fr", "es", "ru", "uk", "zh", "ja"} <= d.langs
