"""Page relevance p and m (ILSP-FC 3.5), link scores s_l and request priorities (3.6), and the
best-first frontier of a focused crawl."""

from __future__ import annotations

import pytest

from bitext_spider.config import BitextConfig
from bitext_spider.crawl.focused import WINDOW, BestFirstFrontier, focus_page, window_for
from matchers.page.domain_terms import Domain, parse_domain_text
from matchers.page.linearize import parse_html
from matchers.page.link_relevance import (
    LinkContext,
    is_translation_link,
    link_contexts,
    link_scores,
    priority,
)
from matchers.page.page_parse import ParseOptions, parse_page
from matchers.page.topic_relevance import PageLocations, TopicScore, head_fields, paragraph_terms, score_page

DOMAIN = Domain("i18n", tuple(parse_domain_text(
    "100:character encoding=characters>en\n50:Unicode=characters\n20:font=typography>en\n"
    "-10:programming language=other>en\n100:Zeichenkodierung=characters>de\n").terms))


def test_p_weighs_each_occurrence_by_term_and_location_and_m_counts_main_content_terms():
    page = PageLocations(
        title="Character encodings",  # 100 x 10
        metadata=("All about Unicode",),  # 50 x 4
        keywords=("unicode, fonts",),  # (50 + 20) x 2
        text=("A character encoding maps characters to bytes.", "Unicode and Unicode again.",
              "Not a programming language."),  # 100 + 2 x 50 - 10
    )
    s = score_page(DOMAIN, "en", page, min_score=1000, min_terms=2)
    assert s.p == pytest.approx(1000 + 200 + 140 + 190)
    assert s.m == 2  # character encoding, Unicode; a negative-weight term is not a domain term
    assert s.relevant
    assert s.terms == {"character encoding": 2, "Unicode": 4, "font": 1, "programming language": 1}
    assert s.subdomains == ("characters", "typography") and s.domain == "i18n"
    assert not score_page(DOMAIN, "en", page, min_score=1531, min_terms=2).relevant
    assert not score_page(DOMAIN, "en", page, min_score=0, min_terms=3).relevant
    assert TopicScore.from_json(s.as_json()) == TopicScore(1530.0, 2, True, s.terms, s.subdomains, "i18n")


def test_head_fields_are_the_descriptive_and_keyword_meta():
    root = parse_html('<html><head><meta name="description" content="About  Unicode">'
                      '<meta property="og:title" content="Encodings"><meta name="keywords" content="utf-8, bidi">'
                      '<meta name="viewport" content="width=device-width"></head><body></body></html>')
    assert head_fields(root) == (("About Unicode", "Encodings"), ("utf-8, bidi",))


def test_paragraph_terms_name_each_paragraphs_positive_terms():
    assert paragraph_terms(DOMAIN, "en", ["Unicode fonts", "a programming language", "nothing"]) == [
        ["Unicode", "font"], [], []]


LINKS_PAGE = """<html lang="en"><head><title>Character encodings</title>
<link rel="alternate" hreflang="de" href="/de/encodings.html"></head><body>
<ul><li>Read <a href="/fonts.html">this page</a> about the font of a character encoding</li>
<li><a href="/cooking.html">Cooking</a></li></ul>
<p><a href="/encodings.fr.html">Français</a> <a href="/encodings.es.html">other</a></p>
<div><a href="/unicode.html" title="Unicode">more</a></div></body></html>"""


def test_link_contexts_are_anchor_title_and_the_text_around():
    ctx = link_contexts(parse_html(LINKS_PAGE), "http://s.test/encodings.en.html")
    assert ctx["http://s.test/fonts.html"].texts == ["Read this page about the font of a character encoding"]
    assert ctx["http://s.test/cooking.html"].texts == ["Cooking"]
    assert ctx["http://s.test/unicode.html"].texts == ["more Unicode"]
    assert ctx["http://s.test/de/encodings.html"].hreflangs == ["de"]


def test_translation_links_by_hreflang_anchor_language_or_url_language_code():
    url = "http://s.test/encodings.en.html"
    ctx = link_contexts(parse_html(LINKS_PAGE), url)
    found = {u for u, c in ctx.items() if is_translation_link(url, "en", c)}
    assert found == {"http://s.test/de/encodings.html", "http://s.test/encodings.fr.html",
                     "http://s.test/encodings.es.html"}
    same_lang = LinkContext("http://s.test/encodings.en.html?x=1", ["English"], ["English"], [])
    assert not is_translation_link(url, "en", same_lang)
    assert is_translation_link("http://s.test/tutorial/", "en",
                               LinkContext("http://s.test/de/tutorial/", ["Tutorial"], ["Tutorial"], []))
    assert not is_translation_link("http://s.test/tutorial/", "en",
                                   LinkContext("http://s.test/de/other/", ["x"], ["x"], []))


def test_link_score_is_c_plus_p_over_l_plus_weighted_terms_around_it():
    url = "http://s.test/encodings.en.html"
    ctx = link_contexts(parse_html(LINKS_PAGE), url)
    scores, translations = link_scores(DOMAIN, "en", url, ctx.values(), p=600.0, n_links=6, relevant=True,
                                       bonus=1000.0)
    assert scores["http://s.test/fonts.html"] == pytest.approx(100 + 20 + 100)
    assert scores["http://s.test/cooking.html"] == pytest.approx(100)
    assert scores["http://s.test/unicode.html"] == pytest.approx(100 + 50)
    assert scores["http://s.test/encodings.fr.html"] == pytest.approx(1000 + 100)
    assert translations == {"http://s.test/de/encodings.html", "http://s.test/encodings.fr.html",
                            "http://s.test/encodings.es.html"}
    # An irrelevant page's links have the terms around them alone: no p/L, no bonus.
    plain, none = link_scores(DOMAIN, "en", url, ctx.values(), p=250.0, n_links=6, relevant=False, bonus=1000.0)
    assert none == set() and plain["http://s.test/encodings.fr.html"] == 0.0
    assert plain["http://s.test/fonts.html"] == pytest.approx(120)


def test_priority_grows_with_the_score_on_a_log_scale():
    assert priority(0) == 0 and priority(-5) == 0 and priority(float("nan")) == 0
    assert priority(1) < priority(100) < priority(150) < priority(1100)
    assert priority(100) == 67 and priority(1e30) == 300


def test_focus_page_scores_the_parsed_page_and_ranks_its_followed_links():
    html = LINKS_PAGE.replace("<body>", "<body><h1>Character encodings</h1><p>" + "A character encoding "
                              "maps Unicode characters to bytes, and the font shows them. " * 3 + "</p>")
    url = "http://s.test/encodings.en.html"
    parsed = parse_page(html.encode(), "text/html; charset=utf-8", url, ParseOptions(), _English())
    config = BitextConfig(topic_min_score=300, topic_min_terms=2)
    focus = focus_page(DOMAIN, config, parsed, url)
    assert focus.topic.relevant and focus.topic.m == 3
    assert set(focus.priorities) == set(parsed.follow)
    ranked = sorted(focus.priorities, key=lambda u: -focus.priorities[u])
    assert set(ranked[:3]) == {"http://s.test/encodings.fr.html", "http://s.test/encodings.es.html",
                               "http://s.test/de/encodings.html"}
    assert focus.priorities["http://s.test/fonts.html"] > focus.priorities["http://s.test/cooking.html"]
    assert focus.translation_links == 3


class _English:
    """A language identifier that says English (the page-parse tests need no fastText)."""

    def identify(self, text: str, min_confidence: float = 0.0, max_chars: int = 0) -> tuple[str, float]:
        return "en", 1.0


def test_frontier_pops_best_then_shallowest_then_first_and_keeps_a_links_best_score():
    f = BestFirstFrontier(window=2)
    f.push("a", 10, 2)
    f.push("b", 50, 3)
    f.push("c", 10, 1)
    f.push("d", 10, 1)
    f.push("a", 70, 2)  # found again from a better place
    f.push("b", 5, 1)  # a worse score does not replace the better one
    assert len(f) == 4
    assert [f.pop() for _ in range(5)] == [("a", 70, 2), ("b", 50, 3), ("c", 10, 1), ("d", 10, 1), None]
    f.in_flight = 1
    assert f.room() == 1


def test_a_small_page_budget_narrows_the_frontiers_window():
    assert window_for(0) == WINDOW == 16
    assert window_for(10_000) == window_for(128) == 16
    assert window_for(32) == 4
    assert window_for(5) == 1
