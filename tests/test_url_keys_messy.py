"""URL pairing keys on the URLs real sites have: unbalanced languages, one page at several URLs,
untranslated pages, language codes in query strings or as numbers, and keys in two fields at
once (matchers/site/url_keys.py, url_canonical.py, url_markers.py)."""

import random

from matchers.site.url_canonical import canonical_url
from matchers.site.url_keys import UrlKeyIndex

H = "https://www.example.org"


def pair_set(index: UrlKeyIndex) -> set[frozenset[str]]:
    return {frozenset((a, b)) for a, b, _ in index.pairs()}


def build(entries: list[tuple[str, str]], seed: int = 0, **params: object) -> UrlKeyIndex:
    entries = list(entries)
    random.Random(seed).shuffle(entries)
    return UrlKeyIndex.from_urls(entries, **params)


def test_canonical_form_folds_the_urls_of_one_page():
    same = ["http://www.example.org/a/x.html", "https://example.org/a/x.html?", "http://example.org:80/a/x.html#top",
            "http://example.org/a/x.html?PHPSESSID=9f8e7d", "http://example.org/a/x.html;jsessionid=AB12"]
    assert {canonical_url(u) for u in same} == {"//example.org/a/x.html"}
    assert canonical_url("http://example.org/d/index.html") == canonical_url("http://example.org/d/")
    assert canonical_url("http://example.org/p?lang=fr&id=3") == canonical_url("http://example.org/p?id=3&lang=fr")
    assert canonical_url("http://example.org/p?id=3") != canonical_url("http://example.org/p?id=4")
    assert canonical_url("http://example.org:8080/") != canonical_url("http://example.org/")


def test_unbalanced_site_keeps_a_key_that_covers_its_smaller_language():
    # 3,000 French pages, 240 English ones, 200 of them translated: the key can link at most 240
    # pages, far under a tenth of the site's 3,240 URLs.
    fr = [(f"{H}/fra/notice-{i}.html", "fr") for i in range(3000)]
    en = [(f"{H}/eng/notice-{i}.html", "en") for i in range(200)]
    en += [(f"{H}/eng/only-english-{i}.html", "en") for i in range(40)]
    index = build(fr + en)
    assert [k.text for k in list(index.keys())] == ["eng:fra"]
    assert pair_set(index) == {frozenset((f"{H}/eng/notice-{i}.html", f"{H}/fra/notice-{i}.html"))
                               for i in range(200)}
    assert 0.5 < index.key_score(f"{H}/eng/notice-1.html", f"{H}/fra/notice-1.html") < 1
    # The paper's threshold alone (a tenth of the site) rejects it.
    assert build(fr + en, min_side_share=100.0).pairs() == []


def test_aliases_and_untranslated_pages_do_not_drop_the_key():
    entries = []
    for i in range(60):
        # A third of the English section is untranslated French text.
        entries.append((f"{H}/en/doc-{i}.html", "fr" if i % 3 == 0 else "en"))
        entries.append((f"{H}/fr/doc-{i}.html", "fr"))
        if i % 2 == 0:  # the same page again, under another URL
            entries.append((f"http://example.org/en/doc-{i}.html?", "fr" if i % 3 == 0 else "en"))
            entries.append((f"{H}/fr/doc-{i}.html?sid={i * 7919:x}", "fr"))
    index = build(entries)
    pairs = pair_set(index)
    translated = [i for i in range(60) if i % 3]
    assert len(pairs) == len(translated) == 40
    for i in translated:  # each page once, under whichever of its URLs the index saw first
        assert index.key_score(f"{H}/en/doc-{i}.html", f"{H}/fr/doc-{i}.html") > 0
        if i % 2 == 0:
            assert index.key_score(f"http://example.org/en/doc-{i}.html?", f"{H}/fr/doc-{i}.html?sid={i * 7919:x}") > 0
    assert index.key_score(f"{H}/en/doc-3.html", f"{H}/fr/doc-3.html") == 0  # both French


def test_a_key_that_pairs_copies_of_pages_is_dropped_but_not_one_that_pairs_some_by_chance():
    # htm:html joins two copies of every page (same language): far more same-language pairs than
    # pairing its two sides at random would give.
    entries = [(f"{H}/{lang}/p{i}.{ext}", lang) for i in range(20) for lang in ("en", "de") for ext in ("htm", "html")]
    index = build(entries)
    assert len(index.pairs()) == 40
    assert all(a.rsplit("/", 1)[1] == b.rsplit("/", 1)[1] for a, b, _ in index.pairs())
    assert ("htm:html", "same-language") in {(r.key.text, r.reason) for r in index.rejected_keys()}


def test_language_codes_in_the_query_string_in_any_parameter_order():
    entries = []
    rnd = random.Random(3)
    for doc in range(30):
        for lang in ("en", "fr", "de"):
            params = [f"id={doc}", f"lang={lang}"]
            rnd.shuffle(params)
            entries.append((f"{H}/index.php?{'&'.join(params)}", lang))
    index = build(entries)
    assert len(pair_set(index)) == 90
    assert index.key_score(f"{H}/index.php?lang=en&id=4", f"{H}/index.php?id=4&lang=de") > 0 or \
        index.key_score(f"{H}/index.php?id=4&lang=en", f"{H}/index.php?lang=de&id=4") > 0


def test_languages_as_numbers():
    codes = {"en": 1, "fr": 2, "de": 7}
    entries = [(f"{H}/content.asp?clang={codes[lang]}&id={100 + doc}", lang)
               for doc in range(25) for lang in codes]
    index = build(entries)
    assert len(pair_set(index)) == 75
    assert index.key_score(f"{H}/content.asp?clang=1&id=105", f"{H}/content.asp?clang=7&id=105") > 0
    assert index.key_score(f"{H}/content.asp?clang=1&id=105", f"{H}/content.asp?clang=7&id=106") == 0


def test_two_fields_differing_at_once_are_paired_by_language_markers():
    names = {"en": "english", "de": "german", "fr": "french"}
    entries = [(f"{H}/{names[lang]}/guide/{slug}_{lang}.html", lang)
               for slug in [f"topic{i}" for i in range(20)] for lang in names]
    entries.append((f"{H}/english/guide/only-english_en.html", "en"))
    index = build(entries)
    assert len(pair_set(index)) == 60
    assert index.key_score(f"{H}/german/guide/topic3_de.html", f"{H}/french/guide/topic3_fr.html") > 0
    assert {k.field for k in list(index.keys())} == {"fields"}
    # Without the page languages there are no markers, and Kit & Ng's single-field keys find no
    # translation (only slug keys between pages of one language section).
    plain = UrlKeyIndex.from_urls([u for u, _ in entries])
    assert plain.key_score(f"{H}/german/guide/topic3_de.html", f"{H}/french/guide/topic3_fr.html") == 0
    assert all(a.split("/")[3] == b.split("/")[3] for a, b, _ in plain.pairs())


def test_a_home_page_whose_code_is_the_file_name_pairs_with_the_rest():
    entries = [(f"{H}/{lang}/{page}", lang) for lang in ("en", "fr") for page in ("about", "blog", "download", "docs")]
    entries += [(f"{H}/en", "en"), (f"{H}/fr", "fr")]
    index = build(entries)
    assert index.key_score(f"{H}/en", f"{H}/fr") > 0
    assert len(pair_set(index)) == 5


def test_a_language_pair_seen_once_on_a_multilingual_site_pairs_through_its_family():
    langs = ["en", "fr", "de", "es", "gl", "ja"]
    entries = [(f"{H}/docs/a{i}.{lang}.html", lang) for i in range(12) for lang in langs[:4]]
    entries += [(f"{H}/docs/a{i}.gl.html", "gl") for i in (0, 1, 2)]
    entries += [(f"{H}/docs/a{i}.ja.html", "ja") for i in (0, 5, 6)]
    index = build(entries)
    assert {(k.field, k.text): k.power for k in index.candidate_keys()}[("file", "gl:ja")] == 1
    # gl:ja links one pair only, but both codes belong to the site's language slot.
    assert index.key_score(f"{H}/docs/a0.gl.html", f"{H}/docs/a0.ja.html") > 0


def test_two_conflicts_from_untranslated_copies_do_not_drop_a_small_key():
    # Two of the three URLs under zh-hans that have a Bulgarian partner are English copies (the
    # site serves English where the Chinese translation is missing): bg:zh-hans pairs them with
    # Bulgarian pages that already have their English partner.  Two conflicts of three are no
    # evidence of a false key; the one true pair stays.
    entries = [(f"{H}/docs/a{i}.{lang}.html", lang) for i in range(10) for lang in ("en", "fr", "de")]
    entries += [(f"{H}/docs/a{i}.bg.html", "bg") for i in range(3)]
    entries += [(f"{H}/docs/a0.zh-hans.html", "zh-hans")]
    entries += [(f"{H}/docs/a{i}.zh-hans.html", "en") for i in (1, 2)]
    index = build(entries)
    assert index.key_score(f"{H}/docs/a0.bg.html", f"{H}/docs/a0.zh-hans.html") > 0
    assert index.key_score(f"{H}/docs/a1.bg.html", f"{H}/docs/a1.zh-hans.html") == 0


def test_one_page_whose_slug_is_not_translated_pairs_on_the_language_markers_alone():
    # digital.canada.ca: every slug is translated (no key has a second pair), except /a11y/;
    # /en/ and /fr/ mark their languages on every other URL, which is the key's evidence.  The
    # French word "en" in two French slugs does not make /en/ an impure marker.
    en = ["its-about-people", "think-big-start-small", "picking-our-projects", "designing-for-canada",
          "hello-world-canada", "coding-is-a-team-activity", "hiring-at-cds", "always-a-challenge"]
    fr = ["ce-sont-les-gens-qui-comptent", "voir-grand-commencer-modestement", "choisir-nos-projets",
          "concevoir-pour-le-canada", "bonjour-le-monde-canada", "coder-une-activite-dequipe",
          "en-pleine-croissance", "en-temps-de-pandemie"]
    urls = [(f"https://digital.canada.ca/en/2017/07/{i:02d}/{s}/", "en") for i, s in enumerate(en)]
    urls += [(f"https://digital.canada.ca/fr/2017/07/{i:02d}/{s}/", "fr") for i, s in enumerate(fr)]
    urls += [("https://digital.canada.ca/en/a11y/", "en"), ("https://digital.canada.ca/fr/a11y/", "fr")]
    index = UrlKeyIndex.from_urls(urls)
    assert {(a, b) for a, b, _ in index.pairs()} == {
        ("https://digital.canada.ca/en/a11y/", "https://digital.canada.ca/fr/a11y/")}


def test_the_crawler_fetches_one_url_per_page():
    from matchers.site.url_canonical import fetch_url

    assert fetch_url("http://h/x.html?") == "http://h/x.html"
    assert fetch_url("http://h/x.html?PHPSESSID=8f3a2c") == "http://h/x.html"
    assert fetch_url("http://h/a.php?id=3&PHPSESSID=8f&lang=en#top") == "http://h/a.php?id=3&lang=en"
    assert fetch_url("http://h/a;jsessionid=9F?x=1") == "http://h/a?x=1"
    assert fetch_url("http://h/p?utm_source=feed&utm_medium=rss") == "http://h/p"
    # "sid" names an article on some sites: only compared as a session id, never dropped.
    assert fetch_url("http://h/show.php?sid=4") == "http://h/show.php?sid=4"
    assert fetch_url("http://h/index.html") == "http://h/index.html"
