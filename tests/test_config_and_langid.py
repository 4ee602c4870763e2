import pytest

from bitext_spider.config import BitextConfig, parse_langs
from matchers.page.lang_codes import primary_subtag
from matchers.page.language_id import LanguageIdentifier


def test_defaults_and_parsing():
    cfg = BitextConfig.from_settings({})
    assert cfg.enabled and cfg.langs is None and cfg.db_url == "sqlite:///bitext.db"
    cfg = BitextConfig.from_settings(
        {"BITEXT_ENABLED": "False", "BITEXT_LANGS": "en, FR,pt-BR", "BITEXT_MAX_PAGES_PER_SITE": "50",
         "BITEXT_SIZE_FILE_TOLERANCE": "0.25"}
    )
    assert not cfg.enabled
    assert cfg.langs == frozenset({"en", "fr", "pt"})
    assert cfg.max_pages_per_site == 50 and cfg.size_file_tolerance == 0.25
    assert cfg.wants("fr") and cfg.wants("pt-br") and not cfg.wants("de") and not cfg.wants("und")


def test_invalid_settings_are_rejected_with_the_setting_name():
    with pytest.raises(ValueError, match="BITEXT_SIZE_TAGS_TOLERANCE"):
        BitextConfig.from_settings({"BITEXT_SIZE_TAGS_TOLERANCE": "1.5"})
    with pytest.raises(ValueError, match="BITEXT_MAX_PAGES_PER_SITE"):
        BitextConfig.from_settings({"BITEXT_MAX_PAGES_PER_SITE": "many"})
    with pytest.raises(ValueError, match="BITEXT_STRUCTURE_BEST_MARGIN"):
        BitextConfig.from_settings({"BITEXT_STRUCTURE_BEST_MARGIN": "-0.1"})
    assert BitextConfig.from_settings({"BITEXT_STRUCTURE_BEST_MARGIN": "1"}).structure_best_margin == 1.0
    with pytest.raises(ValueError, match="BITEXT_LANG_MAX_CHARS"):
        BitextConfig.from_settings({"BITEXT_LANG_MAX_CHARS": "0"})
    assert BitextConfig.from_settings({"BITEXT_LANG_MAX_CHARS": "300"}).parse_options().lang_max_chars == 300


def test_lang_helpers():
    assert primary_subtag("zh_Hans") == "zh" and parse_langs("") is None and parse_langs(["de"]) == {"de"}


@pytest.mark.parametrize(
    "text,lang",
    [
        ("The weather is nice today and we are going to the beach with our friends.", "en"),
        ("Le temps est beau aujourd'hui et nous allons à la plage avec nos amis.", "fr"),
        ("Das Wetter ist heute schön und wir gehen mit unseren Freunden an den Strand.", "de"),
        ("今日は天気が良いので、友達と一緒に海に行きます。", "ja"),
        ("오늘은 날씨가 좋아서 친구들과 함께 바다에 갑니다.", "ko"),
    ],
)
def test_bundled_fasttext_model_identifies_languages(text, lang):
    got, prob = LanguageIdentifier().identify(text)
    assert got == lang and prob > 0.5


def test_no_text_is_undetermined():
    assert LanguageIdentifier().identify("   \n ") == ("und", 0.0)
    assert LanguageIdentifier().identify("The weather is nice", min_confidence=1.01)[0] == "und"


def test_only_the_first_max_chars_are_identified():
    french = "Le temps est beau aujourd'hui et nous allons à la plage avec nos amis. " * 4
    english = "The weather is nice today and we are going to the beach with our friends. " * 40
    identifier = LanguageIdentifier()
    assert identifier.identify(french + english, max_chars=len(french))[0] == "fr"
    assert identifier.identify(french + english, max_chars=len(french + english))[0] == "en"
