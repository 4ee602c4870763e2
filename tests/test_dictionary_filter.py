"""Dictionary (PCB) content filter: loading, bags of words, scores, acceptance, ambiguity policy."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from matchers.content.dictionary_filter import (
    MAX_LINE_WARNINGS,
    MAX_PREFIX_RUN,
    BilingualDictionary,
    DictionaryError,
    bag_of_words,
    drop_ambiguous,
    load_dictionary,
    pcb_accept,
    pcb_scores,
    scores_from_translations,
    stopwords,
    translate_bag,
)

EN_DE = """en\tde
house\thaus
house\tgebäude
building\tgebäude
dog\thund
red\trot
translation\tübersetzung
"""
# The paper's definition: exact look-up, every bag word in the denominator.
PAPER = {"min_prefix": None, "identical": False}


def write(tmp_path: Path, text: str | bytes, name: str = "en-de.dic") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


@pytest.fixture
def dic(tmp_path: Path) -> BilingualDictionary:
    return load_dictionary(write(tmp_path, EN_DE))


def test_load_indexes_both_ways(dic: BilingualDictionary) -> None:
    assert (dic.lang1, dic.lang2) == ("en", "de")
    assert dic.forward["house"] == {"haus", "gebäude"}
    assert dic.backward["gebäude"] == {"house", "building"}
    assert len(dic) == 6
    assert dic.skipped == []
    assert dic.translations("House", "en") == {"haus", "gebäude"}
    assert dic.translations("GEBÄUDE", "de") == {"house", "building"}
    assert dic.translations("cat", "en") == frozenset()


def test_scores_by_hand(dic: BilingualDictionary) -> None:
    en = {"house", "dog", "red", "bird"}  # bird: not in the dictionary
    de = {"haus", "hund", "blau"}  # blau: not in the dictionary
    # en -> de: {haus, gebäude, hund, rot}; de -> en: {house, dog}.
    # |en ∩ de2en| / |en| = |{house, dog}| / 4;  |de ∩ en2de| / |de| = |{haus, hund}| / 3.
    assert pcb_scores(en, de, dic, "en", "de", **PAPER) == pytest.approx((2 / 4, 2 / 3))


def test_scores_orientation_either_way(dic: BilingualDictionary, tmp_path: Path) -> None:
    en = {"house", "dog", "red", "bird"}
    de = {"haus", "hund", "blau"}
    # The caller's order, not the header's, decides which score comes first.
    assert pcb_scores(de, en, dic, "de", "en", **PAPER) == pytest.approx((2 / 3, 2 / 4))
    # A dictionary whose header lists the languages the other way round gives the same scores.
    lines = EN_DE.splitlines()
    swapped = ["de\ten"] + ["\t".join(reversed(line.split("\t"))) for line in lines[1:]]
    flipped = load_dictionary(write(tmp_path, "\n".join(swapped) + "\n", "de-en.dic"))
    assert flipped.forward == dic.backward
    assert (flipped.lang1, flipped.lang2) == ("de", "en")
    assert pcb_scores(en, de, flipped, "en", "de", **PAPER) == pytest.approx((2 / 4, 2 / 3))
    assert pcb_scores(de, en, flipped, "de", "en", **PAPER) == pytest.approx((2 / 3, 2 / 4))
    # Regional codes orient by their base language.
    assert pcb_scores(en, de, flipped, "en-GB", "de_AT", **PAPER) == pytest.approx((2 / 4, 2 / 3))


def test_variants(dic: BilingualDictionary) -> None:
    en = {"house", "dog", "red", "bird", "unicode"}
    de = {"haus", "hund", "blau", "unicode"}
    # An unknown word present unchanged in both texts counts as found.
    assert pcb_scores(en, de, dic, "en", "de", min_prefix=None, identical=True) == pytest.approx(
        (3 / 5, 3 / 4)
    )
    # Only the words the dictionary could judge count in the denominators.
    assert pcb_scores(en, de, dic, "en", "de", min_prefix=None, identical=False, judged_only=True) == (
        pytest.approx(2 / 3),
        pytest.approx(2 / 2),
    )
    # Precomputed per-page translations give the same scores.
    one = translate_bag(en, dic, "en", None)
    two = translate_bag(de, dic, "de", None)
    assert scores_from_translations(one, two, identical=False) == pcb_scores(en, de, dic, "en", "de", **PAPER)
    assert pcb_scores(set(), de, dic, "en", "de") == (0.0, pytest.approx(0.0))


def test_prefix_lookup_of_inflected_forms(dic: BilingualDictionary) -> None:
    assert dic.resolve("translations", "en", min_prefix=6) == {"translation"}
    assert dic.resolve("übersetzungen", "de", min_prefix=6) == {"übersetzung"}
    assert dic.resolve("translations", "en", min_prefix=None) == frozenset()
    assert dic.resolve("houses", "en", min_prefix=6) == frozenset()  # common prefix "house" is 5 long
    assert dic.resolve("houses", "en", min_prefix=5) == {"house"}
    assert dic.resolve("translations", "en", min_prefix=6, max_suffix=0) == frozenset()
    # Found through the prefix look-up on both sides.
    assert pcb_scores({"translations"}, {"übersetzungen"}, dic, "en", "de", min_prefix=6) == (1.0, 1.0)


def test_prefix_shared_by_too_many_entries_is_not_used(tmp_path: Path) -> None:
    lines = "".join(f"interna{chr(97 + i)}\tw{i}\n" for i in range(MAX_PREFIX_RUN + 1))
    many = load_dictionary(write(tmp_path, "en\tde\n" + lines))
    assert many.resolve("internaz", "en", min_prefix=6) == frozenset()
    few = load_dictionary(write(tmp_path, "en\tde\ninternaa\tw0\ninternab\tw1\n", "few.dic"))
    assert few.resolve("internaz", "en", min_prefix=6) == {"internaa", "internab"}


def test_covers(dic: BilingualDictionary, tmp_path: Path) -> None:
    assert dic.covers("en", "de") and dic.covers("de", "en")
    assert dic.covers("en-GB", "de-AT")
    assert not dic.covers("en", "fr")
    assert not dic.covers("en", "en-us")
    pt = load_dictionary(write(tmp_path, "en\tpt\nhouse\tcasa\n", "en-pt.dic"))
    assert pt.covers("pt-br", "en") and pt.covers("pt-BR", "en-US")
    zh = load_dictionary(write(tmp_path, "zh-hans\tzh-hant\n书\t書\n", "zh.dic"))
    assert zh.covers("zh-Hans", "zh-Hant")
    assert not zh.covers("zh", "zh-hant")  # "zh" alone could be either side
    with pytest.raises(ValueError, match="not covered"):
        dic.translations("maison", "fr")


def test_accept_is_strict() -> None:
    assert pcb_accept((0.5, 0.6), 0.4, 0.5)
    assert not pcb_accept((0.5, 0.5), 0.4, 0.5)
    assert not pcb_accept((0.4, 0.9), 0.4, 0.5)


def test_drop_ambiguous_removes_text_and_all_its_pairs() -> None:
    accepted = [("en1", "de1"), ("en1", "de2"), ("en2", "de3"), ("en2", "de3")]
    kept, dropped = drop_ambiguous(accepted)
    assert kept == {("en2", "de3")}
    assert dropped == {"en1", "de1", "de2"}
    # A second-language text with two counterparts is ambiguous too.
    kept, dropped = drop_ambiguous([("en1", "de1"), ("en2", "de1"), ("en3", "de3")])
    assert kept == {("en3", "de3")}
    assert dropped == {"en1", "en2", "de1"}
    assert drop_ambiguous([]) == (set(), set())


def test_bag_of_words_drops_stop_words_numbers_and_single_letters() -> None:
    stop = stopwords("en")
    assert {"the", "and", "of"} <= stop
    tokens = ["The", "cat", "and", "the", "dog", "of", "3", "x", "2nd", "E-mail", "Straße", "ﬁle", "l'"]
    assert bag_of_words(tokens, stop) == {"cat", "dog", "mail", "strasse", "file"}
    assert bag_of_words(["The", "cat"]) == {"the", "cat"}  # no stop list given


def test_stopwords_by_code() -> None:
    assert "und" in stopwords("de") and "und" in stopwords("de-AT")
    assert stopwords("pt-br") == stopwords("pt") != frozenset()
    assert stopwords("ja") == frozenset()  # jusText has no Japanese list
    assert "dass" in stopwords("de")  # casefolded like the bags: "daß" -> "dass"


def test_entries_are_casefolded_and_nfkc(tmp_path: Path) -> None:
    d = load_dictionary(write(tmp_path, "EN\tDE\nStreet\tStraße\nﬁle\tDatei\nice  cream\tEis\n"))
    assert (d.lang1, d.lang2) == ("en", "de")
    assert d.translations("street", "en") == {"strasse"}
    assert d.translations("STRASSE", "de") == {"street"}
    assert d.translations("file", "en") == {"datei"}
    assert d.translations("eis", "de") == {"ice cream"}  # phrase kept whole, spaces collapsed


def test_malformed_lines_reported_with_line_numbers(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    text = (
        b"en\tde\n"  # 1
        b"house\thaus\n"  # 2
        b"justoneword\n"  # 3
        b"a\tb\tc\n"  # 4
        b"\tleer\n"  # 5
        b"bad\xff\tbytes\n"  # 6
        b"dog\thund\n"  # 7
        b"\n"  # 8: blank, ignored
        b"nul\x00\tbyte\n"  # 9
        b"red\trot\r\n"  # 10: CRLF is fine
        b"green\tgr\xc3\xbcn\n"  # 11
        b"cat\tkatze\n"  # 12
        b"blue\tblau\n"  # 13
    )
    path = write(tmp_path, text)
    with caplog.at_level(logging.WARNING, logger="matchers.content.dictionary_filter"):
        d = load_dictionary(path)
    assert [line for line, _ in d.skipped] == [3, 4, 5, 6, 9]
    reasons = dict(d.skipped)
    assert "found 1" in reasons[3] and "found 3" in reasons[4]
    assert reasons[5] == "empty field"
    assert "UTF-8" in reasons[6] and "NUL" in reasons[9]
    assert d.translations("red", "en") == {"rot"} and d.translations("grün", "de") == {"green"}
    assert len(d) == 6
    messages = [r.getMessage() for r in caplog.records]
    assert f"{path}:3: expected 2 tab-separated fields, found 1; line skipped" in messages
    assert any(m.startswith(f"{path}:6: not UTF-8") for m in messages)
    assert any("5 of 11 entry lines malformed" in m for m in messages)


def test_warnings_are_capped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bad = MAX_LINE_WARNINGS + 5
    text = "en\tde\n" + "x\n" * bad + "a\tb\n" * (bad + 1)
    with caplog.at_level(logging.WARNING, logger="matchers.content.dictionary_filter"):
        d = load_dictionary(write(tmp_path, text))
    assert len(d.skipped) == bad
    assert len(caplog.records) == MAX_LINE_WARNINGS + 1  # one a line up to the cap, then the summary


def test_mostly_malformed_file_is_not_a_dictionary(tmp_path: Path) -> None:
    path = write(tmp_path, "en\tde\nhouse\thaus\nhouse haus\ndog hund\n")
    with pytest.raises(DictionaryError, match=r":3: expected 2 tab-separated fields.*2 of 3 entry lines"):
        load_dictionary(path)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("", "empty file"),
        ("english,german\nhouse\thaus\n", "not two tab-separated"),
        ("en\tde\tfr\nhouse\thaus\n", "not two tab-separated"),
        ("en\tGerman language\nhouse\thaus\n", "not a language code"),
        ("en\ten\nhouse\thaus\n", "one language twice"),
        (b"\x1f\x8b\x08\x00\xff\xfe\n", "binary data"),  # gzip
        (b"\xff\xfee\x00n\x00", "binary data"),  # UTF-16
        (b"en\xe9\tde\n", "not UTF-8"),
        ("en\tde\n", "no word pairs"),
    ],
)
def test_bad_header_or_empty_raises_at_line_1(tmp_path: Path, content: str | bytes, reason: str) -> None:
    path = write(tmp_path, content)
    with pytest.raises(DictionaryError, match=reason) as info:
        load_dictionary(path)
    assert str(info.value).startswith(f"{path}:1: ")


def test_header_with_bom_and_missing_file(tmp_path: Path) -> None:
    d = load_dictionary(write(tmp_path, "\ufeffen\tde\nhouse\thaus\n"))
    assert (d.lang1, d.lang2) == ("en", "de")
    missing = tmp_path / "nope.dic"
    with pytest.raises(DictionaryError, match="cannot read dictionary") as info:
        load_dictionary(missing)
    assert str(info.value).startswith(str(missing))
    assert isinstance(info.value, ValueError)


def test_real_en_fr_dictionary(shared_data) -> None:
    d = load_dictionary(shared_data("data/dics/en-fr.dic"))
    assert (d.lang1, d.lang2) == ("en", "fr")
    assert d.skipped == []
    assert 40_000 <= len(d) <= 60_000
    assert min(len(d.forward), len(d.backward)) >= 30_000
    assert "maison" in d.translations("house", "en") or "maisons" in d.translations("houses", "en")
    assert d.covers("fr-CA", "en")


def test_stop_words_do_not_count(dic: BilingualDictionary) -> None:
    en = bag_of_words(["The", "dog", "and", "the", "red", "bird"], stopwords("en"))
    de = bag_of_words(["Der", "Hund", "und", "der", "blaue", "Vogel"], stopwords("de"))
    assert en == {"dog", "red", "bird"} and de == {"hund", "blaue", "vogel"}
    # Only dog/hund translate: one word of three on each side, the articles and "and" left out.
    assert pcb_scores(en, de, dic, "en", "de", **PAPER) == pytest.approx((1 / 3, 1 / 3))
