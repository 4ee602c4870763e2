"""Crawling a site again on the same database (bitext_spider.crawl.recrawl): feeds first, listing
pages asked for conditionally, known articles left alone, new articles paired with stored ones."""

from __future__ import annotations

import time

import pytest
from conftest import require_shared
from growing_news_site import build, documents
from support import pairs_of, scrapy_crawl, stat

from bitext_spider.crawl.recrawl import (
    RecrawlError,
    RecrawlPlan,
    StoredValidators,
    conditional_headers,
    looks_like_feed,
    parse_refresh,
    parse_since,
)
from bitext_spider.demo.loopback_server import free_port, serve_site


def test_since_and_refresh_arguments():
    assert parse_since(None) is None
    assert parse_since("2024-03-05") == 738950
    with pytest.raises(RecrawlError, match="since='5 March' is not a date"):
        parse_since("5 March")
    assert parse_refresh("all").search("http://x/anything")
    assert parse_refresh("/news/").search("http://x/news/1") and not parse_refresh("/news/").search("http://x/a")
    with pytest.raises(RecrawlError, match="not a regular expression"):
        parse_refresh("news/(")


def test_the_plan_asks_again_for_start_urls_and_listings_only():
    day = 738950
    pages = [
        StoredValidators("http://n/", ["http://n/list"], None, '"e1"', ""),
        StoredValidators("http://n/list", ["http://n/a1", "http://n/a2", "http://n/about"], None, "",
                         "Tue, 05 Mar 2024 09:00:00 GMT"),
        StoredValidators("http://n/a1", ["http://n/a2"], day),
        StoredValidators("http://n/a2", ["http://n/a1", "http://n/list"], day + 1),
        StoredValidators("http://n/about", ["http://n/a1"], None),  # one dated link: not a listing
    ]
    plan = RecrawlPlan.of(pages, ["http://n/"])
    assert plan.revalidate == {"http://n/": ('"e1"', ""), "http://n/list": ("", "Tue, 05 Mar 2024 09:00:00 GMT")}
    assert set(RecrawlPlan.of(pages, ["http://n/"], parse_refresh("all")).revalidate) == {p.url for p in pages}
    assert conditional_headers('"e1"', "") == {"If-None-Match": '"e1"'}
    assert looks_like_feed("http://n/en/feed.xml") and looks_like_feed("http://n/rss/") and not looks_like_feed("http://n/a1")


@pytest.mark.slow
def test_a_repeated_crawl_fetches_what_is_new_and_keeps_earlier_pairs(tmp_path):
    docs = documents(require_shared("data/w3c-i18n"), 12)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    site = tmp_path / "site"
    db = f"sqlite:///{tmp_path / 'news.db'}"
    settings = ["-s", "BITEXT_CONTENT_MATURE_SENTENCES=30"]
    day1 = build(docs, site, base, 8, mtime=time.time() - 86400)
    with serve_site(site, port):
        first = scrapy_crawl(site / "seeds.txt", db, *settings)
    assert first.returncode == 0, first.stderr[-3000:]
    pairs1 = pairs_of(db)
    gold1 = {frozenset((a, b)) for _, a, _, b in day1}
    assert len(pairs1 & gold1) >= 7 and pairs1 <= gold1

    gold2 = build(docs, site, base, 12, mtime=time.time())
    new = {frozenset((a, b)) for _, a, _, b in gold2} - gold1
    with serve_site(site, port):
        second = scrapy_crawl(site / "seeds.txt", db, *settings)
    assert second.returncode == 0, second.stderr[-3000:]
    log = second.stderr
    # New articles (8) + the two listings and the home page asked again + two feeds, and robots.txt
    # twice (Scrapy's robots.txt middleware, and the spider's own read for sitemaps).
    fetched = stat(log, "downloader/response_count")
    assert fetched is not None and fetched <= 8 + 3 + 2 + 2, fetched
    assert stat(log, "bitext/recrawl/requested") == 3
    assert stat(log, "bitext/recrawl/not_modified") == 1  # the home page did not change
    pairs2 = pairs_of(db)
    assert pairs1 <= pairs2  # day-1 pairs kept
    assert len(pairs2 & new) >= 3 and pairs2 <= gold1 | new

    # Nothing new: listings answer 304, nothing else is fetched.
    with serve_site(site, port):
        third = scrapy_crawl(site / "seeds.txt", db, *settings)
    assert stat(third.stderr, "bitext/recrawl/not_modified") == 3
    assert pairs_of(db) == pairs2

    # since: the German listing's older articles are not even requested by a fresh crawl.
    db2 = f"sqlite:///{tmp_path / 'since.db'}"
    with serve_site(site, port):
        recent = scrapy_crawl(site / "seeds.txt", db2, "-a", "since=2024-03-09", *settings)
    assert recent.returncode == 0
    assert stat(recent.stderr, "bitext/skipped/before_since") >= 8
    assert pairs_of(db2) <= new
