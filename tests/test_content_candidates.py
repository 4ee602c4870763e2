"""Candidates on content alone: publication days, the translated bag-of-words index and the
mutual best it gives (matchers.page.publication_date, matchers.content.bag_index,
matchers.content.content_candidates)."""

from __future__ import annotations

import numpy as np
from support import ARTICLES, GERMAN, D, article_content, article_dictionary, article_site

from matchers.content.bag_index import BagIndex, dictionary_translate, page_terms
from matchers.content.content_candidates import ContentCandidates
from matchers.page.linearize import parse_html
from matchers.page.publication_date import parse_day, publication_day, url_day


def test_the_publication_day_comes_from_metadata_time_or_url():
    def day(head: str, body: str = "", url: str = "http://n.example/a") -> int | None:
        return publication_day(parse_html(f"<html><head>{head}</head><body>{body}</body></html>"), url)

    assert day('<meta property="article:published_time" content="2024-03-05T23:10:00+01:00">') == D
    assert day('<meta itemprop="datePublished" content="2024-03-05">') == D
    assert day('<meta name="DC.date" content="2024-03-05">') == D
    assert day('<script type="application/ld+json">{"@graph": [{"@type": "NewsArticle", '
               '"datePublished": "2024-03-05T08:00:00Z"}]}</script>') == D
    assert day("", '<p>x</p><time datetime="2024-03-05">5 March</time>') == D
    assert day("", "", "http://n.example/news/2024/03/05/elections.html") == D
    assert day("", "", "http://n.example/2024-03-05-elections") == D
    assert day("", "", "http://n.example/archive/20240305/x.html") == D
    # Metadata wins over the URL; nonsense and out-of-range dates are no date.
    assert day('<meta property="article:published_time" content="2024-03-06">', "",
               "http://n.example/news/2024/03/05/x.html") == D + 1
    assert day('<meta property="article:published_time" content="yesterday">') is None
    assert day('<script type="application/ld+json">{not json</script>') is None
    assert url_day("http://n.example/p/1870/13/45/x") is None
    assert parse_day("Tue, 05 Mar 2024 11:46:00 +0100") == D  # RSS pubDate
    assert parse_day("2024-02-30") is None


def test_terms_drop_stop_words_and_keep_numbers():
    terms = page_terms(article_content("en", "The 312 votes of the parliament."), frozenset({"the", "of"}))
    assert terms == {"312": 1, "votes": 1, "parliament": 1}


def test_the_translated_bag_ranks_the_translation_first():
    bags = BagIndex()
    names = list(ARTICLES)
    for row, name in enumerate(names):
        bags.add("de", row, article_content("de", *GERMAN[name]))
    dic = article_dictionary()
    translate = dictionary_translate(lambda w: dic.translate_word(w, "en"))
    for name in names:
        found = bags.query(article_content("en", *ARTICLES[name]), "de", translate=translate, k=3)
        assert names[int(found.rows[0])] == name
        assert list(found.cosines) == sorted(found.cosines, reverse=True)
    # Without a dictionary the numbers and names spelt alike still find it.
    found = bags.query(article_content("en", *ARTICLES["budget"]), "de", k=1)
    assert names[int(found.rows[0])] == "budget"


def test_dates_and_lengths_block_comparisons():
    bags = BagIndex()
    bags.add("de", 0, article_content("de", *GERMAN["budget"]), day=D)
    bags.add("de", 1, article_content("de", *GERMAN["budget"]), day=D + 40)
    bags.add("de", 2, article_content("de", *GERMAN["budget"]))  # no date: compared with every date
    bags.add("de", 3, article_content("de", GERMAN["budget"][0]))  # a third of the length
    query = article_content("en", *ARTICLES["budget"])
    assert sorted(bags.query(query, "de", k=9, day=D + 1, window=31, max_length_diff=0.4).rows.tolist()) == [0, 2]
    assert sorted(bags.query(query, "de", k=9).rows.tolist()) == [0, 1, 2, 3]
    assert bags.query(query, "de", k=9, exclude=np.array([True, True, False, True])).rows.tolist() == [2]
    assert bags.query(query, "fr", k=3).rows.tolist() == []


def test_mutual_best_and_copies():
    pages = [(f"http://en.example/{n}", "en", article_content("en", *ARTICLES[n]), D, None) for n in ARTICLES]
    pages += [(f"http://de.example/{n}", "de", article_content("de", *GERMAN[n]), D, None) for n in ARTICLES]
    # A print copy of the German budget article: never proposed on content.
    pages.append(("http://de.example/print/budget", "de", article_content("de", *GERMAN["budget"]), D,
                  "http://de.example/budget"))
    index = article_site(pages)
    finder = ContentCandidates(article_dictionary(), window=31, max_length_diff=0.4)
    found = finder.find(index, index.content("http://en.example/flood"), D, "de", 3)
    urls = [index.index("de").urls[c.row] for c in found]
    assert urls[0] == "http://de.example/flood" and found[0].mutual
    assert "http://de.example/print/budget" not in urls
    assert not any(c.mutual for c in found[1:])
    # A month and more apart: not compared.
    assert finder.find(index, index.content("http://en.example/flood"), D + 60, "de", 3) == []


def test_a_fixed_index_answers_mutual_checks_as_a_changing_one_does():
    pages = [(f"http://en.example/{n}", "en", article_content("en", *ARTICLES[n]), D, None) for n in ARTICLES]
    pages += [(f"http://de.example/{n}", "de", article_content("de", *GERMAN[n]), D, None) for n in ARTICLES]
    # Two English pages whose best German page is the same one: the second search reuses the
    # German page's own search, and must still say it is not mutual for the page it does not pick.
    pages.append(("http://en.example/budget-short", "en", article_content("en", *ARTICLES["budget"][:2]), D, None))
    pages.append(("http://en.example/rain", "en", article_content(
        "en", "Rain fell on the valley for a long time again.", "The river was high and the weather was cold.",
        "Farmers waited for the water to go down in spring."), D, None))
    index = article_site(pages)
    finder = ContentCandidates(article_dictionary(), window=31, max_length_diff=0.4)

    def search() -> list[tuple[str, list[tuple[int, bool]]]]:
        return [(url, [(c.row, c.mutual) for c in finder.find(index, index.content(url), D, "de", 3)])
                for url in index.index("en").urls]

    plain = search()
    with finder.index_fixed():
        fixed = search()
        assert finder._backs  # the reverse queries were kept
    assert fixed == plain
    assert finder._backs is None
    best = dict(plain)
    full, short = best["http://en.example/budget"][0], best["http://en.example/budget-short"][0]
    assert full[0] == short[0] == index.index("de").urls.index("http://de.example/budget")
    assert not (full[1] and short[1])  # one page at most is the German page's own best
    flood, rain = best["http://en.example/flood"][0], best["http://en.example/rain"][0]
    assert flood == (index.index("de").urls.index("http://de.example/flood"), True)
    assert rain == (flood[0], False)  # searched after the flood article, with the same best


def test_a_query_ranks_as_the_numpy_formulation_of_its_cosines():
    """Sums, cosines, blocking and the stable top-k against the same computed with numpy."""
    import math
    from collections import Counter

    from matchers.content import bag_index as bi

    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(60)]
    index = bi.BagIndex()
    for row in range(300):
        terms = Counter({str(w): int(rng.integers(1, 4)) for w in rng.choice(words, int(rng.integers(0, 12)))})
        day = None if rng.random() < 0.3 else int(rng.integers(0, 30))
        with index._lock:
            index._add("fr", row, terms, int(rng.integers(50, 500)), day)
    bags = index._langs["fr"]
    checked = 0
    for _ in range(80):
        query = {str(w): float(rng.choice([0.5, 1.0, 2.0, 3.0])) for w in rng.choice(words, int(rng.integers(1, 15)))}
        length, k = float(rng.integers(50, 500)), int(rng.integers(1, 6))
        day, window = int(rng.integers(0, 30)), int(rng.choice([0, 3]))
        max_diff = float(rng.choice([1.0, 0.5]))
        exclude = rng.random(int(rng.integers(0, 320))) < 0.2
        limit = None if rng.random() < 0.5 else int(rng.integers(0, 300))
        found = index._postings(query, "fr")
        if found is None:
            continue
        rows_all, weights, factors, counts, qnorm = found
        n = len(bags.norms)
        scores = np.bincount(rows_all, weights=weights * np.repeat(factors, counts), minlength=n)[:n]
        norms = np.frombuffer(bags.norms, dtype=np.float32).astype(np.float64)
        cos = np.divide(scores, norms * math.sqrt(qnorm), out=np.zeros(n), where=norms > 0)
        ok = cos > 0
        if window > 0:
            days = np.frombuffer(bags.days, dtype=np.int32)
            ok &= (days < 0) | (np.abs(days - day) <= window)
        if max_diff < 1.0:
            lengths = np.frombuffer(bags.lengths, dtype=np.int64).astype(np.float64)
            ok &= np.abs(lengths - length) <= max_diff * np.maximum(np.maximum(lengths, length), 1.0)
        if limit is not None:
            ok[limit:] = False
        m = min(len(exclude), n)
        ok[:m] &= ~exclude[:m]
        rows = np.flatnonzero(ok)
        want = rows[np.argsort(-cos[rows], kind="stable")[:k]]
        top, cosines = bi._best_rows(
            rows_all, weights, factors, counts, np.frombuffer(bytes(bags.norms), dtype=np.float32), math.sqrt(qnorm),
            window > 0, np.frombuffer(bytes(bags.days), dtype=np.int32), day, window, max_diff < 1.0,
            np.frombuffer(bytes(bags.lengths), dtype=np.int64), length, max_diff, -1 if limit is None else limit,
            exclude, k,
        )
        assert top.tolist() == want.tolist()
        assert cosines.tolist() == cos[want].tolist()
        checked += len(want) > 0
    assert checked > 40
