"""What the viewer reads that the crawl writes: the deciding evidence of a decision (and its
back-fill by migration 0006), and the crawl_runs rows."""

from __future__ import annotations

import json

from scrapy.settings import Settings
from sqlalchemy import create_engine, inspect, select, text
from sqlalchemy.orm import Session

from bitext_spider.store.crawl_runs import crawl_settings, finish_run, start_run
from bitext_spider.store.deciding import deciding_evidence
from bitext_spider.store.models import CrawlRunRow, make_engine, upgrade


def _scores(terms: dict[str, float], accepted: bool, veto: str = "") -> dict:
    return {"structure": 0.9, "decision": {"score": sum(terms.values()), "accepted": accepted, "terms": terms,
                                           "veto": veto}}


def test_deciding_evidence():
    assert deciding_evidence({}) is None
    assert deciding_evidence(None) is None
    assert deciding_evidence(_scores({"structure": 0.45, "url_key": 0.39}, True)) == "structure"
    assert deciding_evidence(_scores({"structure": 0.2, "link": 0.5}, True)) == "link"
    # Rejected although the positive terms would accept: the contradiction decided.
    assert deciding_evidence(_scores({"structure": 0.45, "contradiction": -1.0}, False)) == "contradiction"
    # Rejected for want of evidence: the largest term there was.
    assert deciding_evidence(_scores({"fingerprint": 0.1, "bag": 0.01}, False)) == "fingerprint"
    assert deciding_evidence(_scores({"structure": 0.45}, False, veto="same language")) == "veto"
    assert deciding_evidence(_scores({}, False)) == "none"


def test_migration_backfills_deciding(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    assert upgrade(url, "0005") == "0005"
    engine = create_engine(url)
    rows = [(1, _scores({"structure": 0.45, "url_key": 0.39}, True)), (2, _scores({"structure": 0.2}, False, "x")),
            (3, {"structure": 0.5})]
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO sites (id, key, start_urls) VALUES (1, 'a', '[]')"))
        for pid in range(1, 7):
            conn.execute(text("INSERT INTO pages (id, site_id, url, requested_url, status, depth, fetched_at, "
                              "content_type, encoding, size_bytes, size_chars, n_tags, n_paragraphs, n_words, "
                              "lang_score, declared_lang, eligible, title, text, links, paragraphs, outlinks, "
                              "images, note, etag, last_modified) VALUES (:i, 1, :u, '', 200, 0, 0, '', '', 0, 0, "
                              "0, 0, 0, 0, '', 1, '', '', '[]', '[]', '[]', '[]', '', '', '')"),
                         {"i": pid, "u": f"http://a/{pid}"})
        for cid, scores in rows:
            conn.execute(text("INSERT INTO candidates (id, site_id, page1_id, page2_id, lang1, lang2, score, scores, "
                              "accepted) VALUES (:i, 1, :a, :b, 'en', 'fr', 0.5, :s, 1)"),
                         {"i": cid, "a": 2 * cid - 1, "b": 2 * cid, "s": json.dumps(scores)})
    engine.dispose()
    assert upgrade(url) == "0006"
    engine = make_engine(url, create=False)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT id, deciding FROM candidates ORDER BY id")).all() == \
            [(1, "structure"), (2, "veto"), (3, None)]
        tables = set(inspect(conn).get_table_names())
    assert {"crawl_runs", "corrections"} <= tables
    engine.dispose()


def test_crawl_runs_rows(tmp_path):
    settings = Settings({"BITEXT_LANGS": "en,fr", "DEPTH_LIMIT": 3, "BITEXT_DB_URL": "sqlite:///x.db"})
    kept = crawl_settings(settings)
    assert kept["BITEXT_LANGS"] == "en,fr" and kept["DEPTH_LIMIT"] == 3 and "ROBOTSTXT_OBEY" in kept
    assert not any(k.startswith("LOG_") for k in kept)
    engine = make_engine(f"sqlite:///{tmp_path / 'r.db'}")
    import datetime

    run = start_run(engine, "site", kept)
    with Session(engine) as s:
        row = s.execute(select(CrawlRunRow)).scalar_one()
        assert (row.spider, row.finished_at, row.settings["BITEXT_LANGS"]) == ("site", None, "en,fr")
    finish_run(engine, run, {"bitext/pages": 12, "start_time": datetime.datetime(2026, 1, 2, 3, 4, 5),
                             "bitext/ratio": float("nan")})
    with Session(engine) as s:
        row = s.execute(select(CrawlRunRow)).scalar_one()
        assert row.finished_at >= row.started_at
        assert row.stats["bitext/pages"] == 12 and row.stats["start_time"] == "2026-01-02T03:04:05"
    engine.dispose()
