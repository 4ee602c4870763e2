"""Tests of the link evidence between two pages: hreflang, language switchers, mutual links."""

from collections import Counter

import pytest

from matchers.site.link_evidence import (
    LANGUAGE_NAMES,
    PageLinks,
    has_link_evidence,
    hreflang_evidence,
    language_in_anchor,
    language_named,
    link_score,
    mutual_links,
    same_language,
    switcher_evidence,
    url_languages,
)

S = "https://example.org"


def page(path: str, lang: str, *links: tuple[str, str, str]) -> PageLinks:
    return PageLinks(S + path, lang, [(S + u, t, h) for u, t, h in links])


@pytest.mark.parametrize(
    "anchor,code",
    [
        ("Deutsch", "de"), ("Français", "fr"), ("Español", "es"), ("日本語", "ja"), ("中文", "zh"),
        ("Русский", "ru"), ("Українська", "uk"), ("العربية", "ar"), ("हिन्दी", "hi"), ("한국어", "ko"),
        ("Português", "pt"), ("Polski", "pl"), ("Svenska", "sv"), ("Magyar", "hu"), ("Română", "ro"),
        ("Italiano", "it"), ("Ελληνικά", "el"), ("Български", "bg"), ("Galego", "gl"), ("Türkçe", "tr"),
        ("English", "en"), ("German", "de"), ("FRENCH", "fr"), ("Francais", "fr"), ("  Español  ", "es"),
        ("EN", "en"), ("fr", "fr"), ("pt-BR", "pt-br"), ("zh_Hant", "zh-hant"), ("IT", "it"),
        ("繁體中文", "zh-hant"), ("中文（简体）", "zh-hans"), ("Bahasa Indonesia", "id"),
        ("Français (CA)", "fr-ca"), ("Português (BR)", "pt-br"), ("FR - Français", "fr"),
        ("🇩🇪 Deutsch", "de"), ("» English", "en"), ("English version", "en"), ("En español", "es"),
        ("Auf Deutsch", "de"),
    ],
)
def test_anchor_names_a_language(anchor, code):
    assert language_in_anchor(anchor) == code


@pytest.mark.parametrize(
    "anchor",
    ["Read it here", "It", "it", "No", "no", "Hi", "Be", "Home", "Contact us", "EN | FR",
     "English | Français", "Read in English and more", "", "»"],
)
def test_anchor_names_no_language(anchor):
    assert language_in_anchor(anchor) is None


def test_table_has_the_common_web_languages_once():
    codes = [row[0] for row in LANGUAGE_NAMES]
    assert len(codes) == len(set(codes)) >= 100
    assert all(len(row) >= 3 for row in LANGUAGE_NAMES)  # code, English name, endonym


@pytest.mark.parametrize(
    "url,codes",
    [
        ("https://example.org/fr/page.html", ["fr"]),
        ("https://example.org/pt-br/page", ["pt-br"]),
        ("https://de.example.org/seite", ["de"]),
        ("https://example.org/page?lang=es", ["es"]),
        ("https://example.org/search?q=x&hl=iw", ["he"]),
        ("https://example.org/about.de.html", ["de"]),
        ("https://example.org/about.html.de", ["de"]),
        ("https://example.org/about_fr.html", ["fr"]),
        ("https://example.org/news-es/", ["es"]),
        ("https://example.org/jp/products", ["ja"]),
        ("https://example.org/ca/fr/page", ["fr", "ca"]),  # country, then language
        ("https://example.org/no/om-oss", ["no"]),  # a whole segment is a language slot
        ("https://example.org/blog/post", []),
        ("https://example.org/just-do-it/", []),  # "it" as a suffix is a word
        ("https://example.org/what-is/", []),
        ("https://example.org/sign-in/", []),
        ("https://example.org/in/", []),
        ("https://example.org/cgi-bin/script.pl", []),  # a file extension, not Polish
        ("https://www.example.org/", []),
    ],
)
def test_language_slots_of_urls(url, codes):
    assert url_languages(url) == codes


def test_language_named_prefers_the_anchor():
    assert language_named("Read it here", "https://example.org/blog/post") is None
    assert language_named("Deutsch", "https://example.org/fr/page") == "de"
    assert language_named("Next", "https://example.org/fr/page") == "fr"
    assert language_named("Read it here", "https://example.org/it/post") == "it"  # the URL slot names it


def test_same_language_compares_base_languages():
    assert same_language("pt-br", "pt") and same_language("PT_BR", "pt-PT")
    assert same_language("nb", "no") and same_language("iw", "he")
    assert not same_language("pt", "es")
    assert not same_language("und", "und") and not same_language("", "") and not same_language("x-default", "x")


def test_hreflang_pair():
    en = page("/en/about.html", "en", ("/fr/a-propos.html", "", "fr-CA"), ("/de/ueber.html", "", "de"))
    fr = page("/fr/a-propos.html", "fr")
    de_wrong = page("/de/ueber.html", "fr")  # hreflang says German, the page is French
    assert hreflang_evidence(en, fr) and hreflang_evidence(fr, en)
    assert not hreflang_evidence(en, de_wrong)
    assert not hreflang_evidence(en, page("/fr/autre.html", "fr"))  # no link to that page
    score, pieces = link_score(en, fr)
    assert pieces == {"hreflang": True, "switcher": True, "mutual": False, "cross_language": True}
    assert score == pytest.approx(1 - 0.1 * 0.3)  # the /fr/ in the URL makes it a switcher too


def test_switcher_by_anchor_text():
    en = page("/about.html", "en", ("/a-propos.html", "Français", ""))
    fr = page("/a-propos.html", "fr")
    assert switcher_evidence(en, fr) and switcher_evidence(fr, en)
    assert not hreflang_evidence(en, fr)
    assert not switcher_evidence(en, page("/a-propos.html", "de"))  # the anchor names French
    score, pieces = link_score(en, fr)
    assert pieces["switcher"] and not pieces["hreflang"] and not pieces["mutual"]
    assert score == pytest.approx(0.7)


def test_switcher_by_url():
    en = page("/en/about.html", "en", ("/fr/a-propos.html", "→", ""))
    fr = page("/fr/a-propos.html", "fr")
    assert switcher_evidence(en, fr)
    # An anchor that names another language overrides the URL.
    en_de = page("/en/about.html", "en", ("/fr/a-propos.html", "Deutsch", ""))
    assert not switcher_evidence(en_de, fr)


def test_read_it_here_is_not_italian():
    en = page("/news/story.html", "en", ("/blog/post.html", "Read it here", ""))
    it = page("/blog/post.html", "it")
    assert not switcher_evidence(en, it)
    assert link_score(en, it)[0] == 0.0


def test_mutual_links():
    en = page("/about.html", "en", ("/apropos.html", "More", ""))
    fr = page("/apropos.html", "fr", ("/about.html", "Plus", ""))
    one_way = page("/apropos.html", "fr")
    assert mutual_links(en, fr) and mutual_links(fr, en)
    assert not mutual_links(en, one_way)
    score, pieces = link_score(en, fr)
    assert pieces == {"hreflang": False, "switcher": False, "mutual": True, "cross_language": True}
    assert score == pytest.approx(0.3)


def test_weights_rank_hreflang_over_switcher_over_mutual():
    fr = page("/b.html", "fr")
    hreflang_only = link_score(page("/a.html", "en", ("/b.html", "Next", "fr")), fr)[0]
    switcher_only = link_score(page("/a.html", "en", ("/b.html", "Français", "")), fr)[0]
    mutual_only = link_score(page("/a.html", "en", ("/b.html", "Next", "")), page("/b.html", "fr", ("/a.html", "", "")))[0]
    everything = link_score(
        page("/a.html", "en", ("/b.html", "Français", "fr")), page("/b.html", "fr", ("/a.html", "English", "en"))
    )[0]
    assert everything > hreflang_only > switcher_only > mutual_only > 0
    assert everything == pytest.approx(1 - 0.1 * 0.3 * 0.7)


def test_same_or_unknown_language_scores_zero():
    a = page("/a.html", "en", ("/b.html", "English", "en"))
    b = page("/b.html", "en-GB", ("/a.html", "English", "en"))
    score, pieces = link_score(a, b)
    assert score == 0.0 and not pieces["cross_language"] and pieces["mutual"]
    assert link_score(page("/a.html", "und", ("/b.html", "Français", "fr")), page("/b.html", "fr"))[0] == 0.0


def _global_menu_site() -> dict[str, PageLinks]:
    # Every English page has a menu entry "Français" to the French home page and vice versa; the
    # inner pages also link their own translation.
    en_inner = [("about", "a-propos"), ("news", "actualites"), ("contact", "contact"), ("jobs", "emplois")]
    pages = {
        "en/index": page("/en/index.html", "en", ("/fr/index.html", "Français", "")),
        "fr/index": page("/fr/index.html", "fr", ("/en/index.html", "English", "")),
    }
    for en_name, fr_name in en_inner:
        pages[f"en/{en_name}"] = page(
            f"/en/{en_name}.html", "en", ("/fr/index.html", "Français", ""), (f"/fr/{fr_name}.html", "FR", "")
        )
        pages[f"fr/{fr_name}"] = page(f"/fr/{fr_name}.html", "fr", ("/en/index.html", "English", ""))
    return pages


def _inlinks(pages: dict[str, PageLinks]):
    counts = Counter((u, p.lang) for p in pages.values() for u in {u for u, _, _ in p.links})
    return lambda url, lang: counts[(url, lang)]


def test_global_language_menu_is_no_evidence_for_inner_pages():
    pages = _global_menu_site()
    inlinks = _inlinks(pages)
    about, fr_home = pages["en/about"], pages["fr/index"]
    # Without the counts the menu link looks like a switcher to the French home page ...
    assert switcher_evidence(about, fr_home)
    # ... with them it is site-wide (linked from 5 English pages) and the French home page's own
    # menu points to the English home page, not back to this one.
    assert not switcher_evidence(about, fr_home, inlinks)
    assert link_score(about, fr_home, inlinks)[0] == 0.0
    # Every inner English page is in the same position.
    for key, p in pages.items():
        if key.startswith("en/") and key != "en/index":
            assert not switcher_evidence(p, fr_home, inlinks)


def test_global_language_menu_still_pairs_the_home_pages_and_specific_links_count():
    pages = _global_menu_site()
    inlinks = _inlinks(pages)
    assert switcher_evidence(pages["en/index"], pages["fr/index"], inlinks)
    assert switcher_evidence(pages["en/about"], pages["fr/a-propos"], inlinks)  # linked from one page
    assert not switcher_evidence(pages["en/about"], pages["fr/actualites"], inlinks)


def test_site_wide_hreflang_is_guarded_too():
    pages = {
        f"en/{n}": page(f"/en/{n}.html", "en", ("/fr/", "", "fr")) for n in ("a", "b", "c", "d")
    }
    fr_home = page("/fr/", "fr")
    inlinks = _inlinks(pages)
    assert hreflang_evidence(pages["en/a"], fr_home)
    assert not hreflang_evidence(pages["en/a"], fr_home, inlinks)
    assert hreflang_evidence(pages["en/a"], fr_home, inlinks, max_inlinks=4)


def test_has_link_evidence_is_a_link_score_above_zero():
    pages = _global_menu_site()
    inlinks = _inlinks(pages)
    pages["und"] = page("/x.html", "und", ("/fr/index.html", "Français", "fr"))
    pages["en-gb"] = page("/en-gb.html", "en-GB", ("/en/index.html", "English", "en"))
    pages["fr/hreflang"] = page("/fr/h.html", "fr", ("/en/about.html", "", "en"))
    seen = set()
    for a in pages.values():
        for b in pages.values():
            for counts in (None, inlinks):
                expected = link_score(a, b, counts)[0] > 0
                assert has_link_evidence(a, b, counts) == expected
                seen.add(expected)
    assert seen == {True, False}
