"""Pairs through a third language (matchers/site/pivot_pairs.py) and their weight in the decision."""

from matchers.site.decision import ACCEPT, Evidence, decide
from matchers.site.pivot_pairs import pivot_proposals


def clique(doc: str, langs: str) -> list[tuple[str, str]]:
    return [(f"/{doc}.{lang}.html", lang) for lang in langs.split()]


def pairs_of(pages: list[tuple[str, str]], skip: set[frozenset[str]] = frozenset()) -> list[tuple[str, str, str, str]]:
    out = []
    for i, (u1, l1) in enumerate(pages):
        for u2, l2 in pages[i + 1:]:
            if frozenset((l1, l2)) not in skip:
                out.append((u1, l1, u2, l2))
    return out


def test_the_missing_pair_of_a_clique_is_proposed_with_every_pivot():
    # Galician and Japanese pair with the four other languages but not with each other.
    pages = clique("intro", "en fr de es gl ja")
    props = pivot_proposals(pairs_of(pages, {frozenset(("gl", "ja"))}))
    assert [(p.url1, p.url2) for p in props] == [("/intro.gl.html", "/intro.ja.html")]
    (p,) = props
    assert p.pivots == ("/intro.de.html", "/intro.en.html", "/intro.es.html", "/intro.fr.html")
    assert p.shared == 4
    assert p.support == 4 / 5


def test_no_proposal_for_filled_slots_or_between_languages_already_paired():
    pages = clique("intro", "en fr de")
    assert pivot_proposals(pairs_of(pages)) == []
    # fr already has a German partner (another page): no second one is proposed.
    pairs = pairs_of(pages, {frozenset(("fr", "de"))}) + [("/other.de.html", "de", "/intro.fr.html", "fr")]
    assert all({p.lang1, p.lang2} != {"de", "fr"} for p in pivot_proposals(pairs))


def test_one_wrong_pair_on_the_way_gives_little_support():
    # The two articles are complete cliques in en, fr, de, es; the Japanese page of article a
    # was wrongly paired with the English page of article b only.
    pairs = pairs_of(clique("a", "en fr de es")) + pairs_of(clique("b", "en fr de es"))
    pairs += [("/a.ja.html", "ja", "/b.en.html", "en")]
    props = {(p.url1, p.url2): p for p in pivot_proposals(pairs)}
    p = props[("/a.ja.html", "/b.fr.html")]
    assert p.pivots == ("/b.en.html",)
    assert p.support == 1 / 2  # one pivot, and in the one shared language the partner agrees
    # Pivots count for the share of the languages both pages have partners in where the partner
    # is the same page: here the French and the Japanese page agree on English only.
    pairs = [("/a.fr.html", "fr", "/a.en.html", "en"), ("/a.fr.html", "fr", "/a.de.html", "de"),
             ("/a.fr.html", "fr", "/a.es.html", "es"), ("/a.ja.html", "ja", "/a.en.html", "en"),
             ("/a.ja.html", "ja", "/x.de.html", "de"), ("/a.ja.html", "ja", "/b.es.html", "es")]
    weak = {(p.url1, p.url2): p for p in pivot_proposals(pairs)}[("/a.fr.html", "/a.ja.html")]
    assert (weak.pivots, weak.shared) == (("/a.en.html",), 3)
    assert weak.support == 1 / 2 * 1 / 3


def test_decision_weighs_pivot_support_with_the_other_evidence():
    one_pivot = Evidence(pivot=1 / 2)
    assert not decide(one_pivot).accepted  # alone it needs some other evidence
    assert decide(Evidence(pivot=1 / 2, fingerprint_ratio=0.4, content_share=0.3, maturity=0.5)).accepted
    assert decide(Evidence(pivot=4 / 5)).score >= ACCEPT
    # A trained model that aligns nothing contradicts it.
    assert not decide(Evidence(pivot=4 / 5, content_share=0.0, maturity=1.0)).accepted
