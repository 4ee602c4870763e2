"""Main-content extraction (jusText paragraphs, kinds, boilerplate) and site-level repeated blocks."""

import os
import random

import pytest

from matchers.page.main_content import (
    MAX_PARAGRAPHS,
    Paragraph,
    RepeatedBlocks,
    extract_paragraphs,
    stoplist,
    stoplist_name,
)

ARTICLE_EN = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>  Annual report
 2024 | ACME Foundation </title>
<style>body { color: red }</style>
<script>var note = "A script string that is long enough to look like a sentence, if it were read.";</script>
</head><body>
<header><a href="/">ACME</a>
<nav><ul><li><a href="/">Home</a></li><li><a href="/about">About us</a></li>
<li><a href="/news">News</a></li><li><a href="/contact">Contact</a></li></ul></nav></header>
<main><article>
<h1>Our annual report for the year 2024</h1>
<p>The foundation has continued its work on the preservation of rare manuscripts, and this year we
were able to open two new reading rooms for the public. Visitors can now consult the collection on
weekdays from nine in the morning until six in the evening.</p>
<h2>Highlights of the year</h2>
<ul>
<li>We digitised more than four thousand pages of medieval manuscripts that had never been photographed.</li>
<li>Our volunteers gave over two hundred guided tours to schools and to the members of local associations.</li>
</ul>
<p>None of this would have been possible without the generous support of our members, and we would
like to thank all of them for the trust that they have placed in the foundation over the past year.</p>
</article></main>
<footer><p>Follow us on <a href="#">Facebook</a> and <a href="#">Twitter</a></p>
<p>This website is run by the foundation, and the texts that are published on it may be reused by
anyone who mentions where they have been taken from and who links to the page.</p></footer>
</body></html>
"""

ARTICLE_ZH = """<html><head><title>年度报告 - 文化基金会</title></head><body>
<div class="menu"><a href="/">首页</a> <a href="/about">关于我们</a> <a href="/news">新闻</a>
<a href="/contact">联系我们</a></div>
<h1>二〇二四年度报告</h1>
<p>基金会继续致力于珍贵手稿的保护工作。今年我们向公众开放了两个新的阅览室。</p>
<p>访客现在可以在工作日上午九点至下午六点查阅馆藏。</p>
<p>我们数字化了四千多页从未拍摄过的中世纪手稿。</p>
<p>志愿者为学校和地方协会的成员提供了两百多次导览。</p>
<p>如果没有会员的慷慨支持，这一切都不可能实现，我们衷心感谢他们。</p>
<div class="copyright">版权所有 © 2024 文化基金会</div>
</body></html>
"""

ARTICLE_JA = """<html><head><title>年次報告 | 文化財団</title></head><body>
<ul class="nav"><li><a href="/">ホーム</a></li><li><a href="/about">概要</a></li>
<li><a href="/contact">お問い合わせ</a></li></ul>
<h1>二〇二四年の年次報告</h1>
<p>財団は貴重な写本の保存に引き続き取り組みました。今年は一般向けに新しい閲覧室を二つ開設しました。</p>
<p>来館者は平日の午前九時から午後六時まで所蔵品を閲覧できます。</p>
<p>これまで撮影されたことのない中世の写本を四千ページ以上デジタル化しました。</p>
<p>会員の皆様の温かいご支援に心より感謝申し上げます。</p>
<p>Copyright © 2024 文化財団</p>
</body></html>
"""


def content(paragraphs: list[Paragraph]) -> list[str]:
    return [p.text for p in paragraphs if not p.boilerplate]


def boilerplate(paragraphs: list[Paragraph]) -> list[str]:
    return [p.text for p in paragraphs if p.boilerplate]


# --- extract_paragraphs -------------------------------------------------------------------------


def test_article_is_kept_and_navigation_and_footer_are_boilerplate():
    paragraphs = extract_paragraphs(ARTICLE_EN, "en")
    kept = content(paragraphs)
    assert any(t.startswith("The foundation has continued its work") for t in kept)
    assert any(t.startswith("None of this would have been possible") for t in kept)
    assert any(t.startswith("We digitised more than four thousand") for t in kept)
    dropped = boilerplate(paragraphs)
    for menu in ("Home", "About us", "News", "Contact"):
        assert menu in dropped
    assert "Follow us on Facebook and Twitter" in dropped
    # A long, sentence-like footer paragraph: jusText alone would keep it, <footer> says otherwise.
    assert any(t.startswith("This website is run by the foundation") for t in dropped)
    # Neither script nor style text is a paragraph.
    assert not any("script string" in p.text or "color" in p.text for p in paragraphs)


def test_kinds_title_heading_listitem_text():
    paragraphs = extract_paragraphs(ARTICLE_EN, "en")
    assert paragraphs[0] == Paragraph("Annual report 2024 | ACME Foundation", "title", False)
    kinds = {p.text: p.kind for p in paragraphs}
    assert kinds["Our annual report for the year 2024"] == "heading"
    assert kinds["Highlights of the year"] == "heading"
    assert kinds["Home"] == "listitem"
    assert kinds[next(t for t in kinds if t.startswith("We digitised"))] == "listitem"
    assert kinds[next(t for t in kinds if t.startswith("The foundation has"))] == "text"
    assert [p.kind for p in paragraphs].count("title") == 1
    # Headings of the article are content (jusText's "good headings" rule).
    assert "Highlights of the year" in content(paragraphs)


def test_text_is_whitespace_normalized():
    html = "<html><body><p>Line one\n   continues\u00a0here\tand\u3000there,</p></body></html>"
    (p,) = extract_paragraphs(html, "en")
    assert p.text == "Line one continues here and there,"


def test_spaces_between_inline_elements_are_kept():
    html = "<p>Click <a href='/x'>here</a> <b>now</b> to read the <i>full</i> <em>story</em> of the town.</p>"
    (p,) = extract_paragraphs(html, "en")
    assert p.text == "Click here now to read the full story of the town."


def test_heading_inside_list_item_is_a_heading():
    html = "<ul><li><h3>Opening hours</h3><p>Monday to Friday, from nine to six.</p></li></ul>"
    kinds = {p.text: p.kind for p in extract_paragraphs(html, "en")}
    assert kinds == {"Opening hours": "heading", "Monday to Friday, from nine to six.": "listitem"}


def test_svg_title_is_not_the_page_title():
    html = "<html><body><svg><title>icon</title></svg><p>Text of the page.</p></body></html>"
    paragraphs = extract_paragraphs(html, "en")
    assert [p.kind for p in paragraphs] == ["text"]
    assert "icon" not in [p.text for p in paragraphs]


@pytest.mark.parametrize("lang", ["zh", "zh-hans", "zh_CN", None])
def test_chinese_article_is_not_thrown_away(lang):
    paragraphs = extract_paragraphs(ARTICLE_ZH, lang)
    kept = content(paragraphs)
    assert "基金会继续致力于珍贵手稿的保护工作。今年我们向公众开放了两个新的阅览室。" in kept
    assert "志愿者为学校和地方协会的成员提供了两百多次导览。" in kept
    assert len([t for t in kept if t.endswith("。")]) == 5
    assert "二〇二四年度报告" in kept
    assert "首页 关于我们 新闻 联系我们" in boilerplate(paragraphs)  # the spaces between links stay
    assert "版权所有 © 2024 文化基金会" in boilerplate(paragraphs)


@pytest.mark.parametrize("lang", ["ja", None])
def test_japanese_article_is_not_thrown_away(lang):
    paragraphs = extract_paragraphs(ARTICLE_JA, lang)
    kept = content(paragraphs)
    assert len([t for t in kept if t.endswith("。")]) == 4
    assert {"ホーム", "概要", "お問い合わせ"} <= set(boilerplate(paragraphs))
    assert paragraphs[0] == Paragraph("年次報告 | 文化財団", "title", False)


def test_page_of_short_paragraphs_keeps_its_text():
    # No paragraph is long enough to be "good" for jusText; its near-good ones anchor the page.
    html = """<html><body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
    <h1>Blue ceramic teapot</h1>
    <p>This teapot is made by hand in a small workshop near the coast.</p>
    <p>It holds one litre of tea and keeps it warm for an hour.</p>
    <p>The glaze is safe for the dishwasher and for the microwave.</p>
    <footer>Terms</footer></body></html>"""
    kept = content(extract_paragraphs(html, "en"))
    assert "It holds one litre of tea and keeps it warm for an hour." in kept
    assert "This teapot is made by hand in a small workshop near the coast." in kept
    assert "Home Shop" not in kept and "Terms" not in kept


@pytest.mark.parametrize(
    "html",
    [
        "",
        "   \n\t ",
        "<html></html>",
        "<!-- only a comment -->",
        "<<<>>>&&&",
        "<div><p>unclosed <b>bold <table><tr><td>cell",
        "<?xml version='1.0' encoding='utf-8'?><html><body><p>x</p></body></html>",
        "\x00\x01garbage\x02\ufffd\ufffd <p>text",
        "lone \ud800 surrogate <p>text</p>",
        "<html><body>" + "<div>" * 3000 + "deep" + "</div>" * 3000 + "</body></html>",
        "<frameset><frame src='x'></frameset>",
        "plain text without any tag",
    ],
)
def test_bad_input_does_not_raise(html):
    paragraphs = extract_paragraphs(html, "en")
    assert isinstance(paragraphs, list)
    assert all(isinstance(p, Paragraph) and p.text for p in paragraphs)


def test_empty_input_gives_nothing():
    assert extract_paragraphs("") == []
    assert extract_paragraphs("  \n ") == []
    assert extract_paragraphs("<!-- nothing -->", "en") == []


def test_page_with_only_a_title():
    assert extract_paragraphs("<html><head><title> Only  a title </title></head></html>", "fr") == [
        Paragraph("Only a title", "title", False)
    ]
    assert extract_paragraphs("<title></title>", "fr") == []


def test_binary_garbage_decoded_as_text():
    rng = random.Random(7)
    for decode in (lambda b: b.decode("latin-1"), lambda b: b.decode("utf-8", "replace")):
        garbage = decode(bytes(rng.randrange(256) for _ in range(5000)))
        paragraphs = extract_paragraphs(garbage, "en")
        assert all("\x00" not in p.text for p in paragraphs)
    assert extract_paragraphs(os.urandom(64).decode("latin-1"), None) is not None


def test_huge_page_is_bounded():
    paragraphs = extract_paragraphs("<p>cell</p>" * 20000, "en")
    assert len(paragraphs) == MAX_PARAGRAPHS


def test_stoplist_names_for_language_codes():
    assert stoplist_name("en") == "English"
    assert stoplist_name("pt-br") == "Portuguese"
    assert stoplist_name("pt_BR") == "Portuguese"
    assert stoplist_name("nb-NO") == "Norwegian_Bokmal"
    assert stoplist_name("be-tarask") == "Belarusian_Taraskievica"
    assert stoplist_name("zh-hans") is None
    assert stoplist_name("ja") is None
    assert stoplist_name(None) is None
    assert "the" in stoplist("en-GB")
    assert stoplist("th") == frozenset()


def test_unknown_language_uses_language_independent_mode():
    paragraphs = extract_paragraphs(ARTICLE_EN, "xx")
    assert any(t.startswith("The foundation has continued") for t in content(paragraphs))
    assert "Home" in boilerplate(paragraphs)


# --- RepeatedBlocks ------------------------------------------------------------------------------


DIGIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def spelled(i: int) -> str:
    # Texts that differ only in their digits are the same text to RepeatedBlocks.
    return "-".join(DIGIT_NAMES[int(d)] for d in str(i))


def page(i: int, *extra: str) -> list[Paragraph]:
    return [
        Paragraph(f"Page {i}", "title", False),
        Paragraph(f"A sentence that only page {spelled(i)} has, about its own subject.", "text", False),
        *(Paragraph(t, "text", False) for t in extra),
    ]


FOOTER = "Contact"
DISCLAIMER = (
    "The information on this website is provided for general purposes only, and although we try to "
    "keep it up to date we make no warranty of any kind about its completeness or accuracy."
)


def test_footer_seen_on_many_pages_is_marked():
    blocks = RepeatedBlocks(min_pages=3, min_share=0.2)
    for i in range(10):
        blocks.observe(page(i, FOOTER, DISCLAIMER))
    marked = blocks.mark(page(10, FOOTER, DISCLAIMER))
    by_text = {p.text: p.boilerplate for p in marked}
    assert by_text[FOOTER] is True  # short and repeated
    assert by_text[DISCLAIMER] is True  # long and repeated
    assert by_text["A sentence that only page one-zero has, about its own subject."] is False
    assert by_text["Page 10"] is False  # titles are never marked
    assert blocks.is_repeated("  contact ")  # case and spacing do not matter


def test_observe_and_mark_is_observe_then_mark():
    # A site's pages in turn, in two languages, with a title carrying the site's name: the one-pass
    # form marks every page as observe followed by mark does.
    def site_page(i: int) -> tuple[list[Paragraph], str]:
        lang = "en" if i % 3 else "fr"
        title = Paragraph(f"Page {spelled(i)} - The Courier", "title", False)
        body = [p for p in page(i, FOOTER, DISCLAIMER if i % 2 else "", "Introduction" if i % 7 == 0 else "")[1:]]
        return [title, *body, Paragraph(FOOTER, "text", True)], lang

    one, two = RepeatedBlocks(min_pages=3, min_share=0.2), RepeatedBlocks(min_pages=3, min_share=0.2)
    marked = 0
    for i in range(40):
        paragraphs, lang = site_page(i)
        two.observe(paragraphs, lang)
        expected = two.mark(paragraphs, lang)
        assert one.observe_and_mark(paragraphs, lang) == expected
        marked += sum(p.boilerplate for p in expected[:-1])
    assert marked > 40  # the footer, the disclaimer and the title's site name were marked
    assert one.pages == two.pages == 40 and len(one) == len(two)


def test_min_pages_and_min_share():
    blocks = RepeatedBlocks(min_pages=3, min_share=0.2)
    blocks.observe(page(0, FOOTER))
    blocks.observe(page(1, FOOTER))
    assert not blocks.is_repeated(FOOTER)  # 2 pages < min_pages
    blocks.observe(page(2, FOOTER))
    assert blocks.is_repeated(FOOTER)
    shared = "Introduction"
    blocks = RepeatedBlocks(min_pages=3, min_share=0.2)
    for i in range(100):
        blocks.observe(page(i, shared) if i % 20 == 0 else page(i))  # 5 of 100 pages
    assert not blocks.is_repeated(shared)


def test_each_text_counts_once_per_page():
    blocks = RepeatedBlocks(min_pages=3, min_share=0.2)
    blocks.observe(page(0, FOOTER, FOOTER, FOOTER, FOOTER))
    assert not blocks.is_repeated(FOOTER)


def test_digits_are_masked():
    blocks = RepeatedBlocks(min_pages=3, min_share=0.5)
    for year in (2019, 2020, 2021, 2022):
        blocks.observe(page(year, f"© {year} ACME. Page {year % 7} of 12"))
    assert blocks.is_repeated("© 2024 ACME. Page 3 of 12")


def test_share_is_counted_per_language():
    # Ten languages: each footer is on a tenth of the site's pages, but on all pages of its language.
    langs = ["en", "fr", "de", "es", "it", "pt", "nl", "pl", "sv", "fi"]
    per_lang = RepeatedBlocks(min_pages=3, min_share=0.2)
    site_wide = RepeatedBlocks(min_pages=3, min_share=0.2)
    for i in range(10):
        for lang in langs:
            paragraphs = page(i, f"Footer in {lang}")
            per_lang.observe(paragraphs, lang)
            site_wide.observe(paragraphs)
    assert per_lang.is_repeated("Footer in fr", "fr")
    assert per_lang.is_repeated("Footer in fr", "fr-CA")
    assert not per_lang.is_repeated("Footer in fr", "de")
    assert not site_wide.is_repeated("Footer in fr")
    assert per_lang.mark(page(11, "Footer in fr"), "fr")[-1].boilerplate
    assert per_lang.pages == 100


def test_memory_is_bounded_and_boilerplate_survives_pruning():
    blocks = RepeatedBlocks(min_pages=3, min_share=0.2, max_entries=500)
    for i in range(2000):
        blocks.observe(page(i, FOOTER, f"another unique paragraph {spelled(i)}"))
        assert len(blocks) <= 500
    assert blocks.is_repeated(FOOTER)
    assert not blocks.is_repeated(page(1999)[1].text)


def test_mark_keeps_paragraphs_and_order():
    blocks = RepeatedBlocks()
    paragraphs = page(0, FOOTER)
    assert blocks.mark(paragraphs) == paragraphs  # nothing observed yet
    already = [Paragraph("x", "text", True)]
    assert blocks.mark(already) == already


def test_the_sites_name_is_taken_out_of_titles():
    from matchers.page.main_content import title_parts

    assert title_parts("Der Bote - Nicht-englische Tags") == ["Der Bote", " - ", "Nicht-englische Tags"]
    blocks = RepeatedBlocks(min_pages=3, min_share=0.2)
    for n in range(5):
        blocks.observe([Paragraph(f"Article {n} | The Courier", "title", False)], "en")
    [title] = blocks.mark([Paragraph("Elections in Spain | The Courier", "title", False)], "en")
    assert title.text == "Elections in Spain" and not title.boilerplate
    # A title that is only the site's name, or without a separator, stays whole.
    assert blocks.mark([Paragraph("The Courier", "title", False)], "en")[0].text == "The Courier"
    assert blocks.mark([Paragraph("Spain: the vote", "title", False)], "en")[0].text == "Spain: the vote"
    # Other languages count apart.
    assert blocks.mark([Paragraph("Wahlen | The Courier", "title", False)], "de")[0].text == "Wahlen | The Courier"
