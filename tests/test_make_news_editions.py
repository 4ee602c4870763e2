"""benchmarks/make_news_editions.py: newspaper editions built from the W3C i18n pages that share
nothing but content (own host, template, URL shape and paragraphing per edition), checked file
by file; no crawl. Skipped when ../shared/data/w3c-i18n is missing (see conftest.py)."""

from __future__ import annotations

import importlib.util
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from itertools import combinations
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import lxml.html
import pytest
from conftest import require_shared

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("make_news_editions", ROOT / "benchmarks" / "make_news_editions.py")
mne = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = mne
_spec.loader.exec_module(mne)
gold = sys.modules["news_sentence_gold"]  # imported by the builder from benchmarks/

LANGS = ["en", "de", "es"]


def tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text("utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    src = require_shared("data/w3c-i18n")
    dst = tmp_path_factory.mktemp("news") / "site"
    assert mne.main([str(src), str(dst), "--seed", "3", "--port-base", "8310"]) == 0
    return dst


@pytest.fixture(scope="module")
def layout(site):
    """Per-site facts: folder of each base URL, language of each article URL, articles by document."""
    roots = {base: site / folder for folder, base in tsv(site / "hosts.tsv")}
    lang_of = {url: lang for url, lang in tsv(site / "pages.tsv")}
    docs: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for doc, lang, url, date, printed, source in tsv(site / "articles.tsv"):
        docs[doc][lang] = [url, date, printed, source]
    return roots, lang_of, docs


def file_of(roots: dict[str, Path], url: str) -> Path:
    parts = urlsplit(url)
    path = unquote(parts.path)
    return roots[f"{parts.scheme}://{parts.netloc}"] / (path.lstrip("/") + ("index.html" if path.endswith("/") else ""))


def tree(roots, url) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(file_of(roots, url).read_bytes())


def host(url: str) -> str:
    return urlsplit(url).netloc


def tokens(url: str) -> set[str]:
    return {t for t in re.split(r"[^0-9a-z]+", unquote(urlsplit(url).path).lower()) if t}


def test_one_edition_per_language_each_on_its_own_host(site, layout):
    roots, lang_of, _ = layout
    assert len(roots) == 3 and len({host(b) for b in roots}) == 3
    assert all(host(b).startswith("127.0.0.1:") for b in roots)
    lines = [ln for ln in (site / "seeds.txt").read_text("utf-8").splitlines() if ln.strip()]
    assert len(lines) == 1, "one site spread over the editions' hosts: one seeds line"
    assert sorted(host(u) for u in lines[0].split()) == sorted(host(b) for b in roots)
    langs_by_host = defaultdict(set)
    for url, lang in lang_of.items():
        langs_by_host[host(url)].add(lang)
    assert sorted(sorted(v) for v in langs_by_host.values()) == [[x] for x in sorted(LANGS)]
    assert (site / "README.md").read_text("utf-8").count("W3C") >= 2


def test_gold_pairs_join_pages_of_one_w3c_document_across_editions(site, layout):
    roots, lang_of, docs = layout
    src = require_shared("data/w3c-i18n")
    parent: dict[str, str] = {}

    def find(u):
        parent.setdefault(u, u)
        while parent[u] != u:
            u = parent[u]
        return u

    for _, u1, _, u2 in tsv(src / "gold.tsv"):
        parent[find(u1)] = find(u2)
    source = {url: row[2] for pages in docs.values() for url, *row in pages.values()}
    gold = tsv(site / "gold.tsv")
    assert gold
    for l1, u1, l2, u2 in gold:
        assert l1 < l2 and lang_of[u1] == l1 and lang_of[u2] == l2
        assert host(u1) != host(u2)
        assert find(source[u1]) == find(source[u2])
    expected = sum(len(pages) * (len(pages) - 1) // 2 for pages in docs.values())
    assert len({(u1, u2) for _, u1, _, u2 in gold}) == len(gold) == expected
    assert {(l1, l2) for l1, _, l2, _ in gold} == {("de", "en"), ("de", "es"), ("en", "es")}


def test_translations_share_no_url_token_and_no_language_code(site, layout):
    roots, lang_of, _ = layout
    for _, u1, _, u2 in tsv(site / "gold.tsv"):
        assert not tokens(u1) & tokens(u2), (u1, u2)
    codes = set(LANGS)
    assert not any(tokens(u) & codes for u in lang_of)
    for base, root in roots.items():
        for f in root.rglob("*.htm*"):
            text = f.read_text("utf-8")
            assert not lxml.html.fromstring(text.encode()).xpath("//@hreflang"), f
            assert not [b for b in roots if b != base and b in text], f"{f} links another edition"


def test_templates_and_paragraphing_differ_between_editions(layout):
    roots, _, docs = layout
    full = [pages for pages in docs.values() if len(pages) == 3]
    assert full
    paragraphs = defaultdict(int)
    for pages in full:
        seqs, classes = {}, {}
        for lang, (url, *_) in pages.items():
            doc = tree(roots, url)
            seqs[lang] = [el.tag for el in doc.iter() if isinstance(el.tag, str)]
            classes[lang] = {c for el in doc.iter() if isinstance(el.tag, str) for c in (el.get("class") or "").split()}
            paragraphs[lang] += len(doc.xpath("//p[not(@class)] | //p[@class='lead'] | //span[@class='absatz']"))
        for a, b in combinations(LANGS, 2):
            assert seqs[a] != seqs[b]
            assert not classes[a] & classes[b], (a, b, classes[a] & classes[b])
    # B (de) joins paragraphs, C (es) cuts long ones: over many articles the counts must show it.
    assert paragraphs["de"] < paragraphs["en"] < paragraphs["es"]
    a = tree(roots, full[0]["en"][0])
    assert a.xpath("//header/nav") and a.xpath("//main/article/p")
    b = tree(roots, full[0]["de"][0])
    leiste, inhalt = b.xpath("//td[@class='leiste']"), b.xpath("//td[@class='inhalt']")
    assert leiste and inhalt and leiste[0].getparent().index(leiste[0]) < inhalt[0].getparent().index(inhalt[0])
    assert not b.xpath("//h1|//h2|//p[not(ancestor::td[@class='leiste'])]")


def test_article_text_is_the_w3c_main_content(layout):
    roots, _, docs = layout
    for pages in docs.values():
        for url, _, _, source in pages.values():
            src_text = re.sub(r"\s+", " ", lxml.html.parse(file_of_w3c(source)).getroot().text_content())
            doc = tree(roots, url)
            assert not doc.xpath("//script|//table[@id='size']|//*[@id='mainNavigation']")
            body = doc.xpath("//p[not(@class)] | //p[@class='lead'] | //span[@class='absatz']")
            assert body, url
            first = re.split(r"(?<=[.!?]) ", body[0].text_content())[0]
            assert first in src_text, (url, first)


def file_of_w3c(url: str) -> str:
    src = require_shared("data/w3c-i18n")
    roots = {base.rstrip("/"): src / folder for folder, base in tsv(src / "hosts.tsv")}
    return str(file_of(roots, url))


def test_one_language_articles_make_about_the_asked_share(layout):
    _, _, docs = layout
    single = [pages for pages in docs.values() if len(pages) == 1]
    assert 0.15 <= len(single) / len(docs) <= 0.25
    assert {lang for pages in single for lang in pages} == set(LANGS)


def test_print_pages_are_canonicalised_to_their_article_and_not_in_gold(site, layout):
    roots, lang_of, _ = layout
    printed = tsv(site / "print.tsv")
    gold_urls = {u for row in tsv(site / "gold.tsv") for u in row[1::2]}
    per_host = defaultdict(int)
    for print_url, article in printed:
        assert urlsplit(print_url).path.startswith("/print/") and host(print_url) == host(article)
        assert print_url not in lang_of and print_url not in gold_urls and article in lang_of
        assert tree(roots, print_url).xpath("//link[@rel='canonical']/@href") == [article]
        assert urljoin(article, urlsplit(print_url).path) in [urljoin(article, h) for h in
                                                              tree(roots, article).xpath("//a/@href")]
        per_host[host(article)] += 1
    for base in roots:
        n = sum(host(u) == host(base) for u in lang_of)
        assert per_host[host(base)] == round(0.1 * n)


def test_feeds_are_linked_from_home_pages_and_carry_pubdates(layout):
    roots, lang_of, docs = layout
    date_of = {url: datetime.fromisoformat(row[0]) for pages in docs.values() for url, *row in pages.values()}
    for base in roots:
        home = tree(roots, base + "/")
        hrefs = home.xpath("//link[@rel='alternate'][@type='application/rss+xml']/@href")
        assert len(hrefs) == 1
        assert hrefs[0] in home.xpath("//a/@href")
        channel = ET.fromstring(file_of(roots, urljoin(base + "/", hrefs[0])).read_bytes()).find("channel")
        items = channel.findall("item")
        assert 10 <= len(items) <= 20
        for item in items:
            link = item.findtext("link")
            assert link in lang_of
            assert parsedate_to_datetime(item.findtext("pubDate")) == date_of[link]


def test_dates_shown_three_ways_and_within_a_day_across_editions(layout):
    roots, _, docs = layout
    for pages in docs.values():
        for lang, (url, date, *_) in pages.items():
            d = datetime.fromisoformat(date)
            doc = tree(roots, url)
            if lang == "en":
                assert f"/{d:%Y/%m/%d}/" in url
            elif lang == "de":
                assert doc.xpath("//meta[@property='article:published_time']/@content") == [date]
            else:
                assert doc.xpath("//time/@datetime") == [date]
        days = sorted(datetime.fromisoformat(row[1]).date() for row in pages.values())
        assert days[-1] - days[0] <= timedelta(days=1)


def test_home_pages_listings_and_redirects_reach_every_article(site, layout):
    roots, lang_of, _ = layout
    seen, todo = set(), [u for u in (site / "seeds.txt").read_text("utf-8").split()]
    redirected = 0
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        path = file_of(roots, url)
        if path.is_dir():
            todo.append(url + "/")  # serve.py's 301
            redirected += 1
            continue
        if path.suffix in (".xml", ".rss"):
            continue
        doc = tree(roots, url)
        refresh = doc.xpath("//meta[@http-equiv='refresh']/@content")
        links = [refresh[0].split("url=", 1)[1]] if refresh else doc.xpath("//a/@href")
        todo += [urljoin(url, h) for h in links if urljoin(url, h) not in seen]
    assert set(lang_of) <= seen
    assert redirected >= 1
    kinds = [kind for _, _, kind in tsv(site / "redirects.tsv")]
    assert kinds.count("meta-refresh") == 6 and any(k.startswith("301") for k in kinds)
    for old, target, _ in tsv(site / "redirects.tsv"):
        assert target in lang_of and old not in lang_of


def test_same_seed_same_site_and_refuses_to_write_into_the_repository(site, tmp_path, capsys):
    src = require_shared("data/w3c-i18n")
    again = tmp_path / "again"
    mne.main([str(src), str(again), "--seed", "3", "--port-base", "8310"])
    assert (again / "gold.tsv").read_text() == (site / "gold.tsv").read_text()
    assert (again / "sentences.tsv").read_text() == (site / "sentences.tsv").read_text()
    assert (again / "edition-b").exists() and sorted(p.name for p in (again / "edition-b" / "artikel").iterdir()) == \
        sorted(p.name for p in (site / "edition-b" / "artikel").iterdir())
    with pytest.raises(SystemExit):
        mne.main([str(src), str(ROOT / "news-site")])
    with pytest.raises(SystemExit):
        mne.main([str(src), str(again)])  # not empty, no --overwrite
    assert not (ROOT / "news-site").exists()


def page_text(roots, url: str) -> str:
    return mne.norm(tree(roots, url).text_content())


def test_gold_sentences_lie_on_gold_page_pairs_in_document_order(site, layout):
    roots, _, _ = layout
    gold_pairs = {tuple(row) for row in tsv(site / "gold.tsv")}
    rows = tsv(site / "sentences.tsv")
    by_pair: dict[tuple, list[tuple[str, str]]] = defaultdict(list)
    for l1, u1, l2, u2, t1, t2 in rows:
        assert (l1, u1, l2, u2) in gold_pairs and l1 < l2
        assert t1 == mne.norm(t1) and t2 == mne.norm(t2) and t1 and t2
        by_pair[l1, u1, l2, u2].append((t1, t2))
    texts = {}
    for (_l1, u1, _l2, u2), pairs in by_pair.items():
        for side, url in ((0, u1), (1, u2)):
            text = texts.setdefault(url, page_text(roots, url))
            at = 0
            for pair in pairs:
                found = text.find(pair[side], at)
                assert found >= 0, (url, pair[side], "not in the page's text after the previous gold sentence")
                at = found + len(pair[side])
    # Most gold page pairs are covered, with many sentences each; never more than a page holds (its
    # sentence marks plus its headings and paragraphs, sentences without a final mark).
    assert len(by_pair) >= 0.8 * len(gold_pairs)
    counts = sorted(len(p) for p in by_pair.values())
    assert counts[len(counts) // 2] >= 15
    for (_l1, u1, _l2, u2), pairs in by_pair.items():
        for url in (u1, u2):
            blocks = [el.text_content() for el in tree(roots, url).xpath("//body//*[not(*)]")]
            assert len(pairs) <= sum(1 + len(re.findall(r"[.!?…]", b)) for b in blocks), url
    assert {(l1, l2) for l1, _, l2, _ in by_pair} == {("de", "en"), ("de", "es"), ("en", "es")}


def test_gold_sentences_start_with_the_titles(site, layout):
    roots = layout[0]
    firsts: dict[tuple[str, str], tuple[str, str]] = {}
    for _, u1, _, u2, t1, t2 in tsv(site / "sentences.tsv"):
        firsts.setdefault((u1, u2), (t1, t2))
    titled = sum(t1 in mne.norm(tree(roots, u1).findtext(".//title")) and t2 in mne.norm(tree(roots, u2).findtext(".//title"))
                 for (u1, u2), (t1, t2) in firsts.items())
    assert titled >= 0.8 * len(firsts)


def test_sentence_splitter_of_the_gold():
    assert gold.split_sentences("See e.g. The Spec. Next one! Und z. B. Das. ¿Qué? Bien.") == [
        "See e.g. The Spec.", "Next one!", "Und z. B. Das.", "¿Qué?", "Bien."]
    assert gold.split_sentences('He said "Stop." Then (see below.) Next. Version 1.3.10 works.') == [
        'He said "Stop."', "Then (see below.)", "Next.", "Version 1.3.10 works."]
    assert gold.split_sentences("  – ") == []
    # No cut inside a quotation or brackets; German quotations close with “.
    assert gold.split_sentences("Sie sagt: „Eins. Zwei.“ Dann (a. B.) Ende.") == [
        "Sie sagt: „Eins. Zwei.“", "Dann (a. B.) Ende."]


def test_gold_pairs_only_where_the_structure_agrees():
    # Same kinds: block i is block i; the second paragraph splits 2 against 1: left out.
    a = [("t", "Title one"), ("p", "First sentence here. Second one here."), ("p", "Alone. Two.")]
    b = [("t", "Titel eins"), ("p", "Erster Satz hier. Zweiter Satz hier."), ("p", "Allein zwei.")]
    assert gold.gold_pairs(a, b) == [("Title one", "Titel eins"), ("First sentence here.", "Erster Satz hier."),
                                     ("Second one here.", "Zweiter Satz hier.")]
    # Same count but lengths that do not fit: a split and a join inside one block.
    c = [("t", "Title one"), ("p", "Short. " + "A long second sentence that goes on and on for a while. " * 2),
         ("p", "Alone.")]
    d = [("t", "Titel eins"), ("p", "Kurz und dazu ein langer erster Satz der weitergeht und weitergeht. "
          "Ende."), ("p", "Allein.")]
    assert ("Short.", "Kurz und dazu ein langer erster Satz der weitergeht und weitergeht.") not in gold.gold_pairs(c, d)
    # Kind sequences that differ: only the common prefix and suffix correspond, short of the run
    # of paragraphs one of which is new (any of them could be).
    assert gold.corresponding_blocks("thpphp", "thppphp") == [(0, 0), (1, 1), (4, 5), (5, 6)]
    assert gold.corresponding_blocks("thph", "thhph") == [(0, 0), (2, 3), (3, 4)]
    assert gold.corresponding_blocks("thp", "thp") == [(0, 0), (1, 1), (2, 2)]
    # One version a stub of the other: no gold at all.
    stub = [("t", "Moved"), ("p", "This page can now be found here.")]
    assert gold.gold_pairs(stub, a * 6) == []
    # A sentence an edition's paragraph cut separates is left out with its block.
    assert gold.gold_pairs(a, b, shown2=["Titel eins", "Erster Satz", "hier. Zweiter Satz hier."]) == [
        ("Title one", "Titel eins")]


def test_gold_leaves_out_what_an_edition_page_hides_and_untranslated_text():
    a = [("t", "Title one"), ("p", "It works as follows:"), ("p", "The value is set.")]
    b = [("t", "Titel eins"), ("p", "Es geht wie folgt:"), ("p", "Der Wert wird gesetzt.")]
    assert len(gold.gold_pairs(a, b)) == 3
    # Edition B joined the two paragraphs: "folgt: Der Wert" hides the boundary from any splitter.
    joined = ["Titel eins", "Es geht wie folgt: Der Wert wird gesetzt."]
    assert gold.gold_pairs(a, b, shown2=joined) == [("Title one", "Titel eins")]
    # Joined after a final stop, the boundary stays visible.
    c = [("t", "Title one"), ("p", "It works."), ("p", "The value is set.")]
    d = [("t", "Titel eins"), ("p", "Es geht."), ("p", "Der Wert wird gesetzt.")]
    assert len(gold.gold_pairs(c, d, shown2=["Titel eins", "Es geht. Der Wert wird gesetzt."])) == 3
    # An untranslated sentence is no translation.
    e = [("t", "Title one"), ("p", "It works."), ("p", "Same text here.")]
    f = [("t", "Titel eins"), ("p", "Es geht."), ("p", "Same text here.")]
    assert gold.gold_pairs(e, f) == [("Title one", "Titel eins"), ("It works.", "Es geht.")]
