"""Word tokens: normalization, apostrophes and hyphens, numbers, CJK and Thai characters."""

from matchers.page.word_tokens import word_tokens


def test_mixed_text():
    text = "L’Homme paie 3,50 € pour l'UTF-8 e-mail — 東京タワー ภาษา! Don't stop."
    assert word_tokens(text) == [
        "l'", "homme", "paie", "3,50", "pour", "l'", "utf-8", "e-mail",
        "東", "京", "タ", "ワ", "ー", "ภ", "า", "ษ", "า",
        "don'", "t", "stop",
    ]  # fmt: skip


def test_case_width_and_compatibility_forms_are_folded():
    assert word_tokens("Ｈｅｌｌｏ ＷＯＲＬＤ１２３ ﬁne Straße STRASSE") == [
        "hello",
        "world123",
        "fine",
        "strasse",
        "strasse",
    ]
    assert word_tokens("ΣΊΣΥΦΟΣ Σίσυφος") == ["σίσυφοσ", "σίσυφοσ"]
    assert word_tokens("ｶﾀｶﾅ") == ["カ", "タ", "カ", "ナ"]  # half-width katakana


def test_numbers_are_tokens():
    assert word_tokens("In 2024, 1,000,000 people paid 3.5% more (+12) for 10km.") == [
        "in", "2024", "1,000,000", "people", "paid", "3.5", "more", "12", "for", "10km",
    ]  # fmt: skip
    assert word_tokens("2024年に") == ["2024", "年", "に"]
    assert word_tokens("ราคา ๑๐๐ บาท")[4] == "๑๐๐"  # Thai digits stay a number


def test_apostrophes_and_hyphens():
    assert word_tokens("dell’arte, l'homme, aujourd'hui") == [
        "dell'",
        "arte",
        "l'",
        "homme",
        "aujourd'",
        "hui",
    ]
    assert word_tokens("the students' books, 'quoted', rock 'n' roll") == [
        "the", "students", "books", "quoted", "rock", "n", "roll",
    ]  # fmt: skip
    assert word_tokens("porte-monnaie -dash- well--known non\u2011breaking") == [
        "porte-monnaie", "dash", "well", "known", "non-breaking",
    ]  # fmt: skip


def test_combining_marks_stay_in_words():
    assert word_tokens("हिन्दी भाषा") == ["हिन्दी", "भाषा"]
    assert word_tokens("İstanbul") == ["i\u0307stanbul"]
    assert word_tokens("தமிழ் மொழி") == ["தமிழ்", "மொழி"]


def test_spaced_scripts_stay_words():
    assert word_tokens("한국어 문장입니다.") == ["한국어", "문장입니다"]
    assert word_tokens("Привет, мир!") == ["привет", "мир"]
    assert word_tokens("مرحبا بالعالم") == ["مرحبا", "بالعالم"]


def test_unspaced_scripts_are_split_into_characters_with_their_marks():
    assert word_tokens("我爱北京。") == ["我", "爱", "北", "京"]
    assert word_tokens("กิน") == ["กิ", "น"]  # the vowel sign stays on its consonant
    assert word_tokens("abc中文def") == ["abc", "中", "文", "def"]


def test_invisible_characters_and_punctuation():
    assert word_tokens("co\u00adop\u00aderation zero\u200bwidth") == ["cooperation", "zerowidth"]
    assert word_tokens("foo_bar") == ["foo", "bar"]
    assert word_tokens("... !!! — « » © ® $ € 😀") == []
    assert word_tokens("") == []
