"""The close sweep's passes: a later pass searches again only where a page taken in the pass
before can change a search's result, and finds what searching everything again finds
(matchers.content.sweep_state, ContentFilter.sweep_site, ContentCandidates.find)."""

from __future__ import annotations

from contextlib import nullcontext
from types import SimpleNamespace

import numpy as np
from support import ARTICLES, GERMAN, D, article_content, article_dictionary, article_site

from bitext_spider.config import BitextConfig
from matchers.content import content_filter as content_filter_module
from matchers.content.content_candidates import ContentCandidate, ContentCandidates
from matchers.content.content_filter import ContentFilter
from matchers.content.sweep_state import SweepSearches
from matchers.content.translation_model import TranslationModel
from matchers.site.content_shelf import ContentShelf


def test_a_search_depends_only_on_the_rows_it_reports():
    pages = [(f"http://en.example/{n}", "en", article_content("en", *ARTICLES[n]), D, None) for n in ARTICLES]
    pages += [(f"http://de.example/{n}", "de", article_content("de", *GERMAN[n]), D, None) for n in ARTICLES]
    # A second German budget page as close as the first: the best is not clear of the second.
    pages.append(("http://de.example/budget-again", "de", article_content("de", *GERMAN["budget"]), D, None))
    # German pages that share no word with the English ones: found by length only.
    for i in range(6):
        pages.append((f"http://de.example/other{i}", "de",
                      article_content("de", *(f"Zeile {j} Wort{i}x{j} folgt hier." for j in range(3 + i % 3))), D, None))
    index = article_site(pages)
    finder = ContentCandidates(article_dictionary(), window=31, max_length_diff=0.4)
    n_de = len(index.index("de"))
    rng = np.random.default_rng(3)

    def result(url: str, k: int, exclude: np.ndarray, looked: list[int] | None = None) -> list[tuple[int, bool]]:
        found = finder.find(index, index.content(url), D, "de", k, exclude=exclude, looked=looked)
        return [(c.row, c.mutual) for c in found]

    changed = 0
    for url in index.index("en").urls:
        for k in (1, 2):
            for _ in range(20):
                exclude = rng.random(n_de) < 0.3
                looked: list[int] = []
                before = result(url, k, exclude, looked)
                assert {row for row, _ in before} <= set(looked)
                others = [r for r in range(n_de) if r not in looked and not exclude[r]]
                # Excluding any rows it did not report leaves the result as it was ...
                more = exclude.copy()
                more[rng.permutation(others)[: len(others) // 2]] = True
                assert result(url, k, more) == before
                # ... and excluding one it reported can change it.
                if looked:
                    hit = exclude.copy()
                    hit[looked[0]] = True
                    changed += result(url, k, hit) != before
    assert changed > 0


def test_searches_are_made_again_only_when_a_row_they_depend_on_is_taken():
    pages = [(f"http://en.example/{n}", "en", article_content("en", *ARTICLES[n]), D, None) for n in ARTICLES]
    pages += [(f"http://de.example/{n}", "de", article_content("de", *GERMAN[n]), D, None) for n in ARTICLES]
    index = article_site(pages)
    searches = SweepSearches()
    assert searches.changed("en", 0, "de")  # never searched
    searches.searched("en", 0, ["de", "fr"], {"de": [1, 2]})  # "fr" was not searched at all
    searches.searched("en", 1, ["de"], {"de": [0]})
    searches.passes += 1
    searches.taken(index, "http://de.example/flood", "en")  # German row 1, now taken in English
    searches.taken(index, "http://de.example/match", "fr")  # row 2, but taken in French
    assert searches.changed("en", 0, "de")
    assert not searches.changed("en", 0, "fr") and not searches.changed("en", 1, "de")
    searches.searched("en", 0, ["de"], {"de": [2, 0]})  # searched again in this pass
    assert not searches.changed("en", 0, "de")


LONELY = "http://en.example/lonely"


class _Finder:
    """Each page's ranking of the other language's pages: a search returns the first row not
    excluded and depends on the first two (as the bags' best two do)."""

    def __init__(self, ranking: dict[str, list[int]], index) -> None:
        self.ranking, self.index, self.calls = ranking, index, []

    def find(self, index, content, day, lang, k, exclude=None, visible=None, looked=None):
        url = next(u for lg in index.languages for u in index.index(lg).urls if index.content(u) is content)
        self.calls.append(url)
        rows = [r for r in self.ranking[url] if exclude is None or r >= len(exclude) or not exclude[r]][:2]
        if looked is not None:
            looked += rows
        return [ContentCandidate(rows[0], 0.5, True)] if rows else []

    def index_fixed(self):
        from contextlib import nullcontext
        return nullcontext()


def _sweep(monkeypatch, always_again: bool) -> tuple[list[tuple[str, str]], list[str]]:
    names = list(ARTICLES)
    pages = [(f"http://en.example/{n}", "en", article_content("en", *ARTICLES[n], *ARTICLES[n]), D, None) for n in names]
    pages += [(f"http://de.example/{n}", "de", article_content("de", *GERMAN[n], *GERMAN[n]), D, None) for n in names]
    pages.append((LONELY, "en", article_content("en", *ARTICLES["flood"], *ARTICLES["budget"]), D, None))
    index = article_site(pages)
    de = {n: index.index("de").urls.index(f"http://de.example/{n}") for n in names}
    en = {n: index.index("en").urls.index(f"http://en.example/{n}") for n in names}
    # The flood article's English page ranks the German budget page first, which the budget
    # article takes in the first pass; only the second pass, with it excluded, reaches the German
    # flood page.  Every German page ranks an English page that is not its translation first.
    ranking = {
        "http://en.example/budget": [de["budget"], de["match"]],
        "http://en.example/flood": [de["budget"], de["flood"]],
        "http://en.example/match": [de["match"], de["flood"]],
        LONELY: [],  # no page of the other language to search: its result never changes
        "http://de.example/budget": [en["match"]],
        "http://de.example/flood": [en["budget"]],
        "http://de.example/match": [en["budget"]],
    }
    translations = {(f"http://en.example/{n}", f"http://de.example/{n}") for n in names}

    def fake_match(model, a, b):
        pair = next((p for p in translations if {index.content(p[0]).uid, index.content(p[1]).uid} == {a.uid, b.uid}),
                    None)
        share = 1.0 if pair is not None else 0.1
        return SimpleNamespace(share=share, mean=share, good=6, first=a, second=b, aligned=lambda: None)

    model = TranslationModel("en", "de")
    model.sentences_seen = 10_000
    content = ContentFilter(BitextConfig(), SimpleNamespace(get=lambda *a: model))
    content.finder = _Finder(ranking, index)
    monkeypatch.setattr(content, "_match", fake_match)
    monkeypatch.setattr(content_filter_module, "prefix_share", lambda *a: None)
    if always_again:
        monkeypatch.setattr(SweepSearches, "changed", lambda self, lang, row, other: True)
    found = content.sweep_site(1, index, [])
    return sorted((url, other_url) for url, _lang, other_url, *_ in found), content.finder.calls


def test_a_later_sweep_pass_finds_what_searching_everything_again_finds(monkeypatch):
    found, calls = _sweep(monkeypatch, always_again=False)
    with monkeypatch.context() as m:
        found_all, calls_all = _sweep(m, always_again=True)
    assert found == found_all
    assert ("http://en.example/flood", "http://de.example/flood") in found  # found in the second pass
    assert len(found) == 3
    # Every page is searched in the first pass; the second searches again the two flood pages
    # (their first choices were taken), and a third pass, after the flood pair, has nothing to
    # search again.  Searching everything again repeats the page whose search found nothing.
    assert calls[:7] == calls_all[:7]
    assert sorted(calls[7:]) == ["http://de.example/flood", "http://en.example/flood"]
    assert calls.count(LONELY) == 1 and calls_all.count(LONELY) == 3


def test_the_sweep_reads_only_the_contents_of_pages_it_searches_for(monkeypatch):
    names = list(ARTICLES)
    pages = [(f"http://en.example/{n}", "en", article_content("en", *ARTICLES[n], *ARTICLES[n]), D, None) for n in names]
    pages += [(f"http://de.example/{n}", "de", article_content("de", *GERMAN[n], *GERMAN[n]), D, None) for n in names]
    index = article_site(pages)
    # Every page has a candidate in the other language but the flood article's two.
    candidates = [SimpleNamespace(id=k, url1=f"http://en.example/{n}", lang1="en", url2=f"http://de.example/{n}",
                                  lang2="de", scores={}) for k, n in enumerate(names) if n != "flood"]
    read: list[tuple[int, int]] = []
    original = ContentShelf.__getitem__
    monkeypatch.setattr(ContentShelf, "__getitem__", lambda self, row: read.append((id(self), row)) or original(self, row))
    searched = []

    class NoneFound:
        def find(self, index, content, day, lang, k, exclude=None, visible=None, looked=None):
            searched.append((content.lang, lang))
            return []

        def index_fixed(self):
            return nullcontext()

    model = TranslationModel("en", "de")
    model.sentences_seen = 10_000
    content = ContentFilter(BitextConfig(), SimpleNamespace(get=lambda *a: model))
    content.finder = NoneFound()
    assert content.sweep_site(1, index, candidates) == []
    assert sorted(searched) == [("de", "en"), ("en", "de")]
    shelves = {id(index.index(lang).content): lang for lang in ("en", "de")}
    assert sorted((shelves[s], index.index(shelves[s]).urls[row]) for s, row in read) == [
        ("de", "http://de.example/flood"), ("en", "http://en.example/flood")]
