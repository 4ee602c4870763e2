"""Sentence splitting per language: abbreviations, CJK punctuation, Thai spaces, the length cap."""

import pytest

from matchers.page.sentence_split import MAX_SENTENCE_CHARS, sentencex_code, split_sentences


def test_english_abbreviations_do_not_split():
    text = "Dr. Smith arrived at 5 p.m. yesterday, e.g. on time. He left. Did he? Yes!"
    assert split_sentences(text, "en") == [
        "Dr. Smith arrived at 5 p.m. yesterday, e.g. on time.",
        "He left.",
        "Did he?",
        "Yes!",
    ]


def test_english_more_abbreviations_and_numbers():
    text = "Mr. Jones met Prof. Brown in the U.S. last year. The price was 3.5 dollars, i.e. cheap. Fine."
    assert split_sentences(text, "en-GB") == [
        "Mr. Jones met Prof. Brown in the U.S. last year.",
        "The price was 3.5 dollars, i.e. cheap.",
        "Fine.",
    ]


def test_french():
    text = (
        "M. Dupont et Mme Durand sont arrivés. Le Dr. Martin aussi. "
        "Il y a des fruits, p. ex. des pommes, c.-à-d. des fruits du verger. « Bonjour ! » dit-il. Puis il partit."
    )
    assert split_sentences(text, "fr") == [
        "M. Dupont et Mme Durand sont arrivés.",
        "Le Dr. Martin aussi.",
        "Il y a des fruits, p. ex. des pommes, c.-à-d. des fruits du verger.",
        "« Bonjour ! » dit-il.",
        "Puis il partit.",
    ]


def test_german():
    text = "Herr Dr. Müller kam z. B. am 3. Mai. Er ging dann usw. nach Hause. Prof. Weber blieb, d.h. er wartete."
    assert split_sentences(text, "de") == [
        "Herr Dr. Müller kam z. B. am 3. Mai.",
        "Er ging dann usw. nach Hause.",
        "Prof. Weber blieb, d.h. er wartete.",
    ]


def test_period_before_lower_case_does_not_split():
    # Abbreviations missing from sentencex's lists for Dutch, Swedish and Russian.
    assert split_sentences("Mevr. Jansen komt o.a. morgen. Fijn.", "nl") == [
        "Mevr. Jansen komt o.a. morgen.",
        "Fijn.",
    ]
    assert split_sentences("Han kom t.ex. igår. Bra.", "sv") == ["Han kom t.ex. igår.", "Bra."]
    assert split_sentences("Т. е. всё. Конец.", "ru") == ["Т. е. всё.", "Конец."]


def test_japanese_splits_on_ideographic_punctuation():
    assert split_sentences("今日は晴れです。明日は雨でしょう！本当ですか？はい。", "ja") == [
        "今日は晴れです。",
        "明日は雨でしょう！",
        "本当ですか？",
        "はい。",
    ]


@pytest.mark.parametrize("lang", ["zh", "zh-hans", "zh-Hant", "zh_TW"])
def test_chinese_splits_on_ideographic_punctuation(lang):
    assert split_sentences("今天天气很好。明天会下雨吗？是的！好。", lang) == [
        "今天天气很好。",
        "明天会下雨吗？",
        "是的！",
        "好。",
    ]


def test_thai_splits_at_spaces_into_several_sentences():
    text = "วันนี้อากาศดีมาก พรุ่งนี้ฝนจะตก ฉันชอบฝนเร็วๆ นี้ ราคา 100 บาท กรุงเทพฯ เป็นเมืองหลวง"
    assert split_sentences(text, "th") == [
        "วันนี้อากาศดีมาก",
        "พรุ่งนี้ฝนจะตก",
        "ฉันชอบฝนเร็วๆ นี้",  # the space after the repetition mark is a word space
        "ราคา 100 บาท",  # spaces around a number are word spaces
        "กรุงเทพฯ เป็นเมืองหลวง",  # so is the one after the abbreviation mark
    ]


def test_thai_inside_another_language_and_latin_inside_thai():
    assert split_sentences("Thai: สวัสดีครับ ยินดีต้อนรับ. Then English.", "en") == [
        "Thai: สวัสดีครับ",
        "ยินดีต้อนรับ.",
        "Then English.",
    ]
    assert split_sentences("ฉันใช้ iPhone ทุกวัน", "th") == ["ฉันใช้ iPhone ทุกวัน"]


def test_lao_khmer_myanmar():
    assert split_sentences("ນີ້ແມ່ນປະໂຫຍກ ອີກອັນໜຶ່ງ", "lo") == ["ນີ້ແມ່ນປະໂຫຍກ", "ອີກອັນໜຶ່ງ"]
    assert split_sentences("នេះជាប្រយោគ។ មួយទៀត។", "km") == ["នេះជាប្រយោគ។", "មួយទៀត។"]
    # Written with full stops, Burmese keeps its phrase spaces inside sentences ...
    assert split_sentences("ဒါဟာ စာကြောင်းပါ။ နောက်တစ်ကြောင်း။", "my") == ["ဒါဟာ စာကြောင်းပါ။", "နောက်တစ်ကြောင်း။"]
    # ... written without, its spaces are the only boundaries there are.
    assert split_sentences("ဒါဟာ စာကြောင်းပါ နောက်တစ်ကြောင်း", "my") == ["ဒါဟာ", "စာကြောင်းပါ", "နောက်တစ်ကြောင်း"]


def test_long_sentence_is_capped_at_spaces():
    words = [f"word{i}" for i in range(700)]
    text = " ".join(words)  # ~5,500 characters, no sentence boundary
    pieces = split_sentences(text, "en")
    assert len(pieces) > 1
    assert all(0 < len(p) <= MAX_SENTENCE_CHARS for p in pieces)
    assert " ".join(pieces).split() == words  # cut between words, nothing lost


def test_long_sentence_is_capped_at_clause_marks_and_hard_cut_without():
    text = "这是一个很长的句子，" * 250  # 2,500 characters, commas but no full stop
    pieces = split_sentences(text, "zh")
    assert all(len(p) <= MAX_SENTENCE_CHARS and p.endswith("，") for p in pieces)
    assert "".join(pieces) == text
    blob = "中" * 2500
    pieces = split_sentences(blob, "zh")
    assert [len(p) for p in pieces] == [1000, 1000, 500]


@pytest.mark.parametrize("lang", ["xx", "zz-Latn", "", "und", "tlh", "EN"])
def test_unknown_language_codes_fall_back(lang):
    assert split_sentences("Hello there. Dr. Smith came. Bye!", lang) == [
        "Hello there.",
        "Dr. Smith came.",
        "Bye!",
    ]


def test_output_is_stripped_and_non_empty():
    assert split_sentences("", "en") == []
    assert split_sentences("   \n ", "en") == []
    assert split_sentences("  One.  \n\n  Two.  ", "en") == ["One.", "Two."]
    assert split_sentences("No final punctuation", "en") == ["No final punctuation"]


def test_sentencex_codes():
    assert sentencex_code("pt-br") == "pt"
    assert sentencex_code("zh-hans") == "zh"
    assert sentencex_code("zh_Hant") == "zh"
    assert sentencex_code(None) == "en"
    assert sentencex_code("und") == "en"


def test_closing_brackets_and_quotes_stay_with_their_sentence():
    assert split_sentences("Es ist so, so auch hier.) Ein Codepunkt kann einen Wert haben.", "de") == [
        "Es ist so, so auch hier.)", "Ein Codepunkt kann einen Wert haben."]
    assert split_sentences("(In practice, browsers convert text to Unicode.) Note that this is not all.", "en") == [
        "(In practice, browsers convert text to Unicode.)", "Note that this is not all."]
    assert split_sentences("He said \u201cStop the car.\u201d Then he left.", "en") == [
        "He said \u201cStop the car.\u201d", "Then he left."]
    # Not before a lower-case word, and straight quotes open quotations too.
    assert split_sentences("See the article (it is long.) then read more.", "en") == [
        "See the article (it is long.) then read more."]
    assert split_sentences('He wrote "Go." "Now!" And he left.', "en") == ['He wrote "Go."', '"Now!"', "And he left."]


def test_markup_shown_as_text_is_not_a_sentence_end():
    assert split_sentences("Use the <em>..</em> tags for emphasis.", "en") == ["Use the <em>..</em> tags for emphasis."]
