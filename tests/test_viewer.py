"""The viewer (bitext_spider.viewer) through Starlette's TestClient on a small hand-made database:
every route, the pair list's filters, sorts and pages, the final pairs against ``bitext export
pairs``, the pair page, and corrections through ``bitext export gold`` into ``bitext eval``."""

from __future__ import annotations

import json
import re

import lxml.html
import pytest
from sqlalchemy import insert, select
from starlette.testclient import TestClient

from bitext_spider.commands.cli import main as bitext
from bitext_spider.store.database import Store
from bitext_spider.store.deciding import deciding_evidence
from bitext_spider.store.models import CandidateRow, PageRow, PairRow, SentenceRow, SiteRow
from bitext_spider.viewer.app import create_app

SAME_ORIGIN = {"Origin": "http://testserver"}
EN_TEXT = ["Library opening hours", "Home | Contact", "The library opens every day at nine.",
           "Children borrow books for free.", "City of Example"]
FR_TEXT = ["Horaires de la bibliothèque", "Accueil | Contact", "La bibliothèque ouvre tous les jours à neuf heures.",
           "Les enfants empruntent des livres gratuitement.", "Ville d'Exemple"]


def _decision(terms: dict[str, float], accepted: bool, veto: str = "") -> dict:
    return {"decision": {"score": round(sum(terms.values()), 6), "accepted": accepted, "terms": terms, "veto": veto},
            "structure": 0.9, "content_share": 0.5}


def _page(pid: int, site: int, url: str, lang: str, lines: list[str] | None = None, t: float = 0.0) -> dict:
    lines = lines or [f"Text of {url}"]
    # Lines 1 and 4 (a menu and a footer) are boilerplate: not among the stored paragraphs.
    paragraphs = [["title" if i == 0 else "text", lang, x] for i, x in enumerate(lines) if i not in (1, 4)]
    return dict(id=pid, site_id=site, url=url, lang=lang, title=lines[0], text="\n".join(lines),
                paragraphs=paragraphs, fetched_at=1_700_000_000.0 + t, eligible=True, n_words=len(" ".join(lines).split()))


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    """Two sites; en-fr, en-de and fr-de pairs; a lost and a rejected candidate; ties on score."""
    url = f"sqlite:///{tmp_path_factory.mktemp('viewer') / 'v.db'}"
    store = Store(url)
    pages = [_page(1, 1, "http://a/en/lib", "en", EN_TEXT, 1), _page(2, 1, "http://a/fr/lib", "fr", FR_TEXT, 5)]
    pid = 3
    for i in range(40):  # site 1: 40 en-fr pairs, some with equal scores
        pages.append(_page(pid, 1, f"http://a/en/{i}", "en", t=pid))
        pages.append(_page(pid + 1, 1, f"http://a/fr/{i}", "fr", t=pid + 1))
        pid += 2
    for i in range(10):  # site 2: en-de
        pages.append(_page(pid, 2, f"http://b/en/{i}", "en", t=pid))
        pages.append(_page(pid + 1, 2, f"http://b/de/{i}", "de", t=pid + 1))
        pid += 2
    pages.append(_page(pid, 1, "http://a/fr/other", "fr", t=pid))
    other = pid
    cands = [dict(site_id=1, page1_id=1, page2_id=2, lang1="en", lang2="fr", score=0.95,
                  scores=_decision({"structure": 0.45, "url_key": 0.39}, True))]
    for i in range(40):
        a = 3 + 2 * i
        terms = {"structure": 0.4, "content": 0.1 + (i % 7) / 10} if i % 3 else {"url_key": 0.4, "link": 0.5}
        cands.append(dict(site_id=1, page1_id=a, page2_id=a + 1, lang1="en", lang2="fr",
                          score=round(0.5 + (i % 20) / 50, 3), scores=_decision(terms, True)))
    for i in range(10):
        a = 83 + 2 * i
        cands.append(dict(site_id=2, page1_id=a, page2_id=a + 1, lang1="en", lang2="de", score=0.6 + i / 100,
                          scores=_decision({"content": 0.3, "structure": 0.45}, True)))
    # Page 1 with another French page: accepted but beaten by (1, 2); page 3 with it: rejected.
    cands.append(dict(site_id=1, page1_id=1, page2_id=other, lang1="en", lang2="fr", score=0.5,
                      scores=_decision({"structure": 0.45}, True)))
    cands.append(dict(site_id=1, page1_id=3, page2_id=other, lang1="en", lang2="fr", score=0.4,
                      scores=_decision({"structure": 0.45, "contradiction": -1.0}, False)))
    cands.append(dict(site_id=1, page1_id=5, page2_id=other, lang1="en", lang2="fr", score=0.3,
                      scores=_decision({"structure": 0.45}, False, veto="near-duplicate of http://a/fr/1")))
    for c in cands:
        c["accepted"] = c["scores"]["decision"]["accepted"]
        c["deciding"] = deciding_evidence(c["scores"])
    with store.engine.begin() as conn:
        conn.execute(insert(SiteRow), [dict(id=1, key="a", start_urls=["http://a/"]),
                                       dict(id=2, key="b", start_urls=["http://b/"])])
        conn.execute(insert(PageRow), pages)
        conn.execute(insert(CandidateRow), cands)
        conn.execute(insert(SentenceRow), [
            dict(site_id=1, page1_id=1, page2_id=2, position=i, lang1="en", lang2="fr", text1=EN_TEXT[j],
                 text2=FR_TEXT[j], score=0.8 - i / 10) for i, j in enumerate((0, 2, 3))])
    store.resolve_site(1)
    store.resolve_site(2)
    store.close()
    return url


@pytest.fixture(scope="module")
def client(db) -> TestClient:
    store = Store(db, create=False)
    yield TestClient(create_app(store.engine))
    store.close()


@pytest.fixture
def annotating(tmp_path, db) -> tuple[TestClient, str]:
    """An annotating viewer on a copy of the database (corrections are written)."""
    import shutil

    path = tmp_path / "copy.db"
    shutil.copy(db.removeprefix("sqlite:///"), path)
    store = Store(f"sqlite:///{path}", create=False)
    yield TestClient(create_app(store.engine, annotate=True)), f"sqlite:///{path}"
    store.close()


def _rows(html: str) -> list[tuple[str, str, str, str]]:
    """(url1, url2, score, status) of a pair list page."""
    doc = lxml.html.fromstring(html)
    out = []
    for tr in doc.xpath("//table[contains(@class, 'pairs')]/tbody/tr[td[@class='url']]"):
        urls = tr.xpath("td[@class='url']/a/@title")
        out.append((urls[0], urls[1], tr.xpath("string(td[@class='num'])").strip(),
                    tr.xpath("string(.//span[contains(@class, 'badge')])").strip()))
    return out


def _link(html: str, rel: str) -> str | None:
    found = lxml.html.fromstring(html).xpath(f"//nav[@class='pager']/a[@rel='{rel}']/@href")
    return found[0] if found else None


def _walk(client: TestClient, url: str) -> list[tuple[str, str, str, str]]:
    rows, seen = [], 0
    while url:
        r = client.get(url)
        assert r.status_code == 200
        rows += _rows(r.text)
        url = _link(r.text, "next")
        seen += 1
        assert seen < 100
    return rows


def _total(html: str) -> int:
    return int(lxml.html.fromstring(html).xpath("string(//b[@id='total'])").replace(",", ""))


def test_every_page_answers(client, db):
    for path in ("/", "/pairs", "/pair/1/2", "/pair/2/1", "/page/1", "/corrections", "/corrections/gold.tsv",
                 "/static/viewer.css", "/static/viewer.js"):
        r = client.get(path)
        assert r.status_code == 200, path
    assert client.get("/pair/1/99999").status_code == 404
    assert client.get("/page/99999").status_code == 404
    assert client.get("/pairs?status=nope").status_code == 400
    assert client.get("/pairs?min=abc").status_code == 400
    # The plots page renders whatever the plotting module gives, or says it is not there.
    r = client.get("/plots")
    assert r.status_code == 200 and "Plots" in r.text


def test_overview_counts(client):
    html = client.get("/").text
    doc = lxml.html.fromstring(html)
    cards = [(c.xpath("string(span)"), c.xpath("string(span/following-sibling::text())").strip())
             for c in doc.xpath("//div[@class='card']")]
    assert cards == [("2", "sites"), ("103", "pages"), ("54", "candidates"), ("51", "final pairs")]
    lang_rows = {tr.xpath("string(td[1])").strip(): [td.text_content() for td in tr.xpath("td")[1:]]
                 for tr in doc.xpath("//section[h2='Language pairs']//tbody/tr")}
    assert lang_rows == {"en-fr": ["44", "42", "41"], "de-en": ["10", "10", "10"]}
    assert "<svg" in html and "polyline" in html  # the timeline


def test_final_pairs_are_the_export(client, db, capsys):
    assert bitext(["export", "pairs", "--db", db]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    exported = [(u1, u2, f"{float(s):.3f}") for _l1, u1, _l2, u2, s in (x.split("\t") for x in lines)]
    listed = _walk(client, "/pairs?limit=25")
    assert [(u1, u2, s) for u1, u2, s, _st in listed] == exported
    assert {st for *_x, st in listed} == {"final"}


def test_pages_back_and_forth(client):
    first = client.get("/pairs?limit=25&sort=found")
    assert _link(first.text, "prev") is None
    second = client.get(_link(first.text, "next"))
    back = client.get(_link(second.text, "prev"))
    assert _rows(back.text) == _rows(first.text)
    last = client.get(_link(first.text, "last"))
    assert _link(last.text, "next") is None
    everything = _walk(client, "/pairs?limit=25&sort=found")
    assert _rows(last.text) == everything[-len(_rows(last.text)):]
    assert _rows(client.get(_link(last.text, "prev")).text) == everything[-25 - len(_rows(last.text)):-len(_rows(last.text))]


def test_sorts(client):
    best = _walk(client, "/pairs?limit=25")
    worst = _walk(client, "/pairs?limit=25&sort=score_asc")
    assert sorted(best) == sorted(worst)
    scores = [float(s) for _a, _b, s, _st in worst]
    assert scores == sorted(scores)
    assert [float(s) for _a, _b, s, _st in best] == sorted(scores, reverse=True)


def test_filters(client):
    de = _walk(client, "/pairs?langs=en-de")
    assert len(de) == 10 and all("//b/" in u1 for u1, *_ in de)
    assert _walk(client, "/pairs?langs=de-en") == de
    assert len(_walk(client, "/pairs?site=2")) == 10
    ranged = _walk(client, "/pairs?min=0.6&max=0.7")
    assert ranged and all(0.6 <= float(s) <= 0.7 for _a, _b, s, _st in ranged)
    by_link = _walk(client, "/pairs?deciding=link")
    assert len(by_link) == 14  # every third en-fr pair: url_key 0.4 and link 0.5
    lost = _walk(client, "/pairs?status=lost")
    assert [(a, b, st) for a, b, _s, st in lost] == [("http://a/en/lib", "http://a/fr/other", "lost")]
    rejected = _walk(client, "/pairs?status=rejected")
    assert {st for *_x, st in rejected} == {"rejected"} and len(rejected) == 2
    assert [r[1] for r in _walk(client, "/pairs?status=rejected&deciding=veto")] == ["http://a/fr/other"]
    assert len(_walk(client, "/pairs?status=rejected&deciding=contradiction")) == 1
    assert len(_walk(client, "/pairs?status=all")) == 54
    r = client.get("/pairs?status=all&site=1&limit=25")
    assert _total(r.text) == 44


def test_pair_page(client):
    html = client.get("/pair/1/2").text
    doc = lxml.html.fromstring(html)
    # Both pages side by side: boilerplate lines greyed, sentences marked and listed with scores.
    sides = doc.xpath("//section[@class='side']")
    assert len(sides) == 2
    assert [p.text_content() for p in sides[0].xpath(".//p[contains(@class, 'boilerplate')]")] == \
        ["Home | Contact", "City of Example"]
    marked = [a.text_content() for a in sides[1].xpath(".//a[contains(@class, 'sent')]")]
    assert marked == [FR_TEXT[0], FR_TEXT[2], FR_TEXT[3]]
    rows = doc.xpath("//table[contains(@class, 'sentences')]/tbody/tr")
    assert [r.xpath("string(td[2])") for r in rows] == [EN_TEXT[0], EN_TEXT[2], EN_TEXT[3]]
    assert rows[0].xpath("string(td[4])").strip() == "0.800"
    # The evidence and the decision as `bitext explain` gives them.
    evidence = [k.text_content() for k in doc.xpath("//table[contains(@class, 'evidence')]//td[@class='key']")]
    assert evidence == ["structure", "content_share"]
    terms = [k.text_content() for k in doc.xpath("//table[contains(@class, 'decision')]//td[@class='key']")]
    assert terms == ["structure", "url_key", "score"]
    assert "Final pair: yes" in html
    # The other candidates of page 1 link to their pair pages.
    assert doc.xpath("//a[@href='/pair/1/103']")


def test_pair_page_of_a_lost_candidate_names_the_winner(client):
    html = client.get("/pair/1/103").text
    assert "lost the one-to-one resolution" in html
    assert "http://a/en/lib is paired with http://a/fr/lib" in html


def test_read_only_refuses_posts(client):
    assert client.post("/pair/1/2/verdict", data={"verdict": "right"}, headers=SAME_ORIGIN).status_code == 403
    assert client.post("/corrections", data={"url1": "http://a/en/0", "url2": "http://a/fr/1"},
                       headers=SAME_ORIGIN).status_code == 403
    doc = lxml.html.fromstring(client.get("/pair/1/2").text)
    assert doc.xpath("//form[@method='post']") == []
    assert lxml.html.fromstring(client.get("/page/1").text).xpath("//form[@method='post']") == []


def test_cross_origin_posts_are_refused(annotating):
    client, _db = annotating
    assert client.post("/pair/1/2/verdict", data={"verdict": "right"}).status_code == 403
    assert client.post("/pair/1/2/verdict", data={"verdict": "right"},
                       headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.post("/pair/1/2/verdict", data={"verdict": "right"},
                       headers={"Referer": "http://testserver/pair/1/2"}, follow_redirects=False).status_code == 303


def test_corrections_round_trip_into_eval(annotating, tmp_path, capsys):
    client, db = annotating
    post = {"headers": SAME_ORIGIN, "follow_redirects": False}
    assert client.post("/pair/1/2/verdict", data={"verdict": "right"}, **post).status_code == 303
    assert client.post("/pair/3/4/verdict", data={"verdict": "right"}, **post).status_code == 303
    assert client.post("/pair/3/4/verdict", data={"verdict": "wrong"}, **post).status_code == 303  # changed mind
    assert client.post("/pair/5/6/verdict", data={"verdict": "nonsense"}, **post).status_code == 400
    # A missed pair: a stored page and one the crawl never fetched (its language given).
    r = client.post("/corrections", data={"url1": "http://a/en/39", "url2": "http://a/fr/never", "lang2": "fr",
                                          "back": "/page/81"}, **post)
    assert r.status_code == 303 and r.headers["location"] == "/corrections"
    r = client.post("/corrections", data={"url1": "http://a/en/39", "url2": "http://a/fr/never2", "back": "/page/81"},
                    **post)
    assert r.status_code == 303 and r.headers["location"].startswith("/page/81?error=")
    page = client.get("/corrections").text
    assert page.count("v-right") == 2 and page.count("v-wrong") == 1 and page.count("v-missed") == 1
    assert "badge v-wrong" in client.get("/pair/3/4").text

    gold = tmp_path / "gold.tsv"
    assert bitext(["export", "gold", "--db", db, "-o", str(gold)]) == 0
    lines = gold.read_text().splitlines()
    assert lines == ["lang1\turl1\tlang2\turl2", "en\thttp://a/en/lib\tfr\thttp://a/fr/lib",
                     "en\thttp://a/en/39\tfr\thttp://a/fr/never"]
    assert client.get("/corrections/gold.tsv").text.splitlines() == lines
    capsys.readouterr()
    assert bitext(["eval", "--db", db, "--gold", str(gold), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    en_fr = result["per_language_pair"]["en-fr"] if "per_language_pair" in result else result["pairs"]["en-fr"]
    assert (en_fr["tp"], en_fr["gold"]) == (1, 2)


def test_view_command_errors(tmp_path, capsys):
    assert bitext(["view", "--db", str(tmp_path / "missing.db")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no database at" in err[0]
    assert bitext(["view", "--db", "nosuchdialect://x/y"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_view_command_refuses_a_port_in_use(db, capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert bitext(["view", "--db", db, "--port", str(port)]) == 2
    assert re.search(r"cannot listen on 127\.0\.0\.1:\d+", capsys.readouterr().err)


def test_timeline_counts_pairs_from_their_later_page(db):
    from sqlalchemy.orm import Session

    from bitext_spider.viewer.overview import timeline

    store = Store(db, create=False)
    try:
        with Session(store.engine) as s:
            t = timeline(s, points=20)
            fetched = dict(s.execute(select(PageRow.id, PageRow.fetched_at)).all())
            later = [max(fetched[a], fetched[b]) for a, b in s.execute(select(PairRow.page1_id, PairRow.page2_id))]
    finally:
        store.close()
    pages = sorted(fetched.values())
    assert len(t.times) == 21 and (t.pages[0], t.pairs[0]) == (0, 0)
    assert (t.pages[-1], t.pairs[-1]) == (103, 51)
    for when, n_pages, n_pairs in zip(t.times[1:-1], t.pages[1:-1], t.pairs[1:-1], strict=True):
        # Each point counts what was there by then (a time on a bucket's edge may fall either side).
        assert sum(x < when - 1e-6 for x in pages) <= n_pages <= sum(x <= when + 1e-6 for x in pages)
        assert sum(x < when - 1e-6 for x in later) <= n_pairs <= sum(x <= when + 1e-6 for x in later)
