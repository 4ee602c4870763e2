"""Pages whose rel=canonical names another page (print versions, copies) are stored as copies of
it and never paired in its place; a canonical naming a page of another language is ignored."""

from __future__ import annotations

from matchers.page.linearize import parse_html
from matchers.page.outlinks import canonical_link
from matchers.site.decision import Evidence, decide
from matchers.site.site_evidence import SiteEvidence

ARTICLE = "http://news.example/2024/03/05/elections.html"


def _page(canonical: str) -> str:
    return (f'<html><head><link rel="stylesheet" href="/s.css"><link rel="Canonical" href="{canonical}">'
            f"</head><body><p>Text.</p></body></html>")


def test_the_canonical_link_is_read_and_resolved():
    assert canonical_link(parse_html(_page(ARTICLE)), "http://news.example/print/17") == ARTICLE
    assert canonical_link(parse_html(_page("/2024/03/05/elections.html")), "http://news.example/print/17") == ARTICLE
    assert canonical_link(parse_html(_page(ARTICLE)), ARTICLE) is None  # its own URL
    assert canonical_link(parse_html("<html><body><p>x</p></body></html>"), ARTICLE) is None
    assert canonical_link(parse_html(_page("javascript:void(0)")), ARTICLE) is None


def test_a_copy_of_a_page_of_its_language_is_an_alias_and_never_paired():
    ev = SiteEvidence()
    ev.add_url(ARTICLE, "en")
    ev.add_url("http://news.example/print/17", "en")
    ev.add_canonical("http://news.example/print/17", ARTICLE)
    ev.add_url("http://nachrichten.example/artikel/4711.htm", "de")
    # A site that names its English page as canonical of every translation: no copy.
    ev.add_canonical("http://nachrichten.example/artikel/4711.htm", ARTICLE)
    assert ev.aliases() == {"http://news.example/print/17": ARTICLE}
    d = decide(Evidence(structure=0.9, content_share=0.9, maturity=1.0, alias_of=ARTICLE))
    assert not d.accepted and d.veto == f"copy of {ARTICLE} (rel=canonical)"


def test_a_resumed_site_keeps_its_copies():
    ev = SiteEvidence()
    ev.add(ARTICLE, "en", [], [], [])
    ev.add("http://news.example/print/17", "en", [], [], [], ARTICLE)
    assert ev.aliases() == {"http://news.example/print/17": ARTICLE}
