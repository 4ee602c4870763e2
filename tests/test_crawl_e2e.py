"""End-to-end: generated sites served on 127.0.0.1, crawled by `scrapy crawl` in a subprocess,
asserted on the stored rows, the exported files and the stats."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys

import pytest
from support import FAST, ROOT, gold_of, kill_once_stored, page_urls, pairs_of, scrapy_crawl, stat

from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import generate_site
from bitext_spider.stat_keys import declared
from bitext_spider.store.database import Store

# Crawls in subprocesses or against servers: the full tier only (pytest -m "not slow" skips them).
pytestmark = pytest.mark.slow

@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    port = free_port()
    info = generate_site(root, base_url=f"http://127.0.0.1:{port}", n_docs=14, langs=("en", "fr", "de"), seed=3)
    with serve_site(root, port=port):
        yield info


@pytest.fixture(scope="module")
def crawled(site, tmp_path_factory):
    db = f"sqlite:///{tmp_path_factory.mktemp('db') / 'crawl.db'}"
    proc = scrapy_crawl(site.seeds_path, db)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return db, proc.stderr


def test_crawl_finds_the_translations(site, crawled):
    db, log = crawled
    found = pairs_of(db)
    gold = gold_of(site)
    tp = len(found & gold)
    # Structure alone: hard negatives (same template, other text) may take a few slots.
    assert tp / len(gold) >= 0.9, (tp, len(gold))
    assert tp / len(found) >= 0.8, (tp, len(found))
    assert stat(log, "bitext/pairs") == len(found)
    assert stat(log, "bitext/pages/lang/en") >= 14
    assert stat(log, "bitext/candidates/structure") >= len(found)
    assert "bitext: pages" in log  # the periodic progress line


def test_crawl_stats_are_declared_and_the_progress_line_reads_them(crawled):
    _, log = crawled
    dump = log[log.rindex("Dumping Scrapy stats"):]
    keys = re.findall(r"'(bitext/[^']+)': ", dump)
    assert {"bitext/pages", "bitext/pairs", "bitext/pages/lang/en", "bitext/candidates/structure"} <= set(keys)
    assert not [k for k in keys if declared(k) is None], "stats missing from bitext_spider/stat_keys.py"
    # The line at close: the final pairs, and the rate and frontier of the crawl's last interval.
    last = [line for line in log.splitlines() if "bitext: pages" in line][-1]
    pages, pairs = stat(log, "bitext/pages"), stat(log, "bitext/pairs")
    assert re.search(rf"bitext: pages {pages} \(.*\), \d+\.\d pages/s, frontier 0, pairs {pairs}, compared ", last)


def test_spider_follows_sitemaps_feeds_and_obeys_robots(site, crawled):
    db, log = crawled
    urls = set(page_urls(db))
    assert set(site.sitemap_only) <= urls
    assert set(site.feed_only) <= urls
    assert not any("/private/" in u for u in urls)
    assert not any(u.endswith((".pdf", ".png")) for u in urls)
    assert {u for u, _ in site.pages} <= urls
    assert len(urls) == len(set(page_urls(db)))


def test_export_commands_on_the_crawl(crawled, tmp_path):
    db, _ = crawled
    out = tmp_path / "pairs.tsv"
    bitext = [sys.executable, "-m", "bitext_spider.commands.cli"]
    subprocess.run([*bitext, "export", "pairs", "--db", db, "-o", str(out)], check=True, cwd=ROOT)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "lang1\turl1\tlang2\turl2\tscore"
    assert len(lines) - 1 == len(pairs_of(db))
    assert all(len(line.split("\t")) == 5 for line in lines)
    pages = subprocess.run([*bitext, "export", "pages", "--db", db, "--format", "jsonl"], check=True, cwd=ROOT,
                           capture_output=True, text=True).stdout.splitlines()
    assert len(pages) == len(page_urls(db))


def test_langs_argument_restricts_pairs(site, tmp_path):
    db = f"sqlite:///{tmp_path / 'langs.db'}"
    proc = scrapy_crawl(site.seeds_path, db, "-a", "langs=en,fr")
    assert proc.returncode == 0, proc.stderr[-3000:]
    store = Store(db, create=False)
    langs = {(r.lang1, r.lang2) for r in store.pairs()}
    de_pages = [p for p in store.pages() if p.lang == "de"]
    store.close()
    assert langs and all(set(pair) == {"en", "fr"} for pair in langs)
    assert de_pages and not any(p.eligible for p in de_pages)  # stored, never paired


def test_matching_off_crawls_the_same_pages(site, crawled, tmp_path):
    db_on, _ = crawled
    db = f"sqlite:///{tmp_path / 'off.db'}"
    proc = scrapy_crawl(site.seeds_path, db, "-s", "BITEXT_ENABLED=False")
    assert proc.returncode == 0, proc.stderr[-3000:]
    # Every bitext stage is off, the store too: the spider's pages are its only output.
    assert stat(proc.stderr, "item_scraped_count") == len(page_urls(db_on))
    assert page_urls(db) == [] and pairs_of(db) == set()
    assert stat(proc.stderr, "bitext/candidates/compared") is None
    assert "bitext: pages" not in proc.stderr


def test_evidence_and_content_off_resolve_on_structure(site, tmp_path):
    """The WebMining pipeline alone (size, language and structure filters): no site-evidence
    stage, no decision at close; the candidates are resolved one-to-one on their structure
    similarity."""
    from matchers.site.one_to_one import Scored, resolve_one_to_one

    db = f"sqlite:///{tmp_path / 'structure.db'}"
    proc = scrapy_crawl(site.seeds_path, db, "-s", "BITEXT_CONTENT_ENABLED=False", "-s", "BITEXT_EVIDENCE_ENABLED=False")
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = proc.stderr
    assert stat(log, "bitext/url_keys/recomputed") is None  # the URL-key stage did not run
    assert "decision:" not in log  # nor the decision at close
    found = pairs_of(db)
    tp = len(found & gold_of(site))
    assert tp / len(gold_of(site)) >= 0.9 and tp / len(found) >= 0.8, (tp, len(found))
    store = Store(db, create=False)
    try:
        cands = list(store.candidates())
        pages = {p.url: p.id for p in store.pages()}
        assert all(not p.outlinks for p in store.pages())  # the link stage did not run either
    finally:
        store.close()
    assert cands and all("decision" not in c.scores for c in cands)
    assert all(c.score == pytest.approx(c.scores["structure"], abs=1e-6) for c in cands)
    ranked = [Scored(pages[c.url1], c.lang1, pages[c.url2], c.lang2, c.score, (c.scores["structure"],))
              for c in cands]
    by_id = {i: u for u, i in pages.items()}
    assert {frozenset((by_id[c.page1], by_id[c.page2])) for c in resolve_one_to_one(ranked)} == found


def test_resume_after_page_cap_gives_the_same_result(site, crawled, tmp_path):
    db_full, _ = crawled
    db = f"sqlite:///{tmp_path / 'resume.db'}"
    first = scrapy_crawl(site.seeds_path, db, "-s", "BITEXT_MAX_PAGES_PER_SITE=20")
    assert first.returncode == 0, first.stderr[-3000:]
    assert len(page_urls(db)) == 20
    second = scrapy_crawl(site.seeds_path, db)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "resuming with 20 stored pages" in second.stderr
    urls = page_urls(db)
    assert len(urls) == len(set(urls)) == len(page_urls(db_full)), (
        set(urls) ^ set(page_urls(db_full)), second.stderr[-5000:])
    assert pairs_of(db) == pairs_of(db_full)


def test_killed_crawl_resumes_without_duplicates_or_losses(site, crawled, tmp_path):
    db_full, _ = crawled
    db = f"sqlite:///{tmp_path / 'killed.db'}"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={site.seeds_path}",
           "-s", f"BITEXT_DB_URL={db}", *FAST, "-s", "DOWNLOAD_DELAY=0.05", "-s", "AUTOTHROTTLE_ENABLED=False",
           "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1", "-s", "BITEXT_WRITER_BATCH=1"]
    kill_once_stored(cmd, db, 10)
    stored = page_urls(db)
    assert 10 <= len(stored) < len(page_urls(db_full))
    again = scrapy_crawl(site.seeds_path, db)
    assert again.returncode == 0, again.stderr[-3000:]
    urls = page_urls(db)
    assert urls[: len(stored)] == stored  # nothing stored was lost
    assert len(urls) == len(set(urls)) == len(page_urls(db_full))
    assert pairs_of(db) == pairs_of(db_full)


def _sentences(db: str) -> list[tuple]:
    """Stored sentence pairs, each page pair in one orientation (which page of a pair is first
    depends on which arrived first)."""
    with sqlite3.connect(db.removeprefix("sqlite:///")) as conn:
        rows = conn.execute(
            "SELECT p1.url, p2.url, s.text1, s.text2, round(s.score, 3) FROM sentences s "
            "JOIN pages p1 ON p1.id = s.page1_id JOIN pages p2 ON p2.id = s.page2_id")
        return sorted((u1, u2, t1, t2, p) if u1 < u2 else (u2, u1, t2, t1, p) for u1, u2, t1, t2, p in rows)


def test_content_moved_to_disk_gives_the_same_pairs_and_sentences(site, crawled, tmp_path):
    db_full, _ = crawled
    db = f"sqlite:///{tmp_path / 'spilled.db'}"
    spill = tmp_path / "spill"
    spill.mkdir()
    proc = scrapy_crawl(site.seeds_path, db, "-s", "BITEXT_CONTENT_IN_MEMORY=2", "-s", f"BITEXT_SPILL_DIR={spill}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    # Every page but the last two of each language went to disk and was read back from there.
    assert stat(proc.stderr, "bitext/content/spilled") >= len(page_urls(db)) - 3 * 2 - 10
    assert pairs_of(db) == pairs_of(db_full)
    # Which sentences a pair's alignment keeps depends on the model of the moment, so on the
    # crawl's timing (two crawls of the same code differ by a few of their 600 sentences, more on
    # a loaded machine); the page pairs that have sentences do not.
    spilled, full = _sentences(db), _sentences(db_full)
    assert {r[:2] for r in spilled} == {r[:2] for r in full} != set()
    assert abs(len(spilled) - len(full)) <= 0.03 * len(full), (len(spilled), len(full))
    assert list(spill.iterdir()) == []  # the file has no name


def test_spill_dir_that_does_not_exist_stops_the_crawl_at_once(site, tmp_path):
    proc = scrapy_crawl(site.seeds_path, f"sqlite:///{tmp_path / 'x.db'}", "-s", f"BITEXT_SPILL_DIR={tmp_path / 'nope'}")
    assert proc.returncode != 0
    assert "BITEXT_SPILL_DIR" in proc.stderr and "not a directory" in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("declaration", ["none", "header", "meta"])
def test_non_utf8_sites_decode_and_identify(tmp_path, declaration):
    port = free_port()
    charsets = {"fr": "iso-8859-1", "ja": "shift_jis", "ko": "euc-kr"}
    info = generate_site(tmp_path / "site", base_url=f"http://127.0.0.1:{port}", n_docs=6,
                         langs=("en", "fr", "ja", "ko"), seed=5, charsets=charsets,
                         charset_declaration=declaration, extras=False)
    db = f"sqlite:///{tmp_path / 'cs.db'}"
    with serve_site(tmp_path / "site", port=port):
        proc = scrapy_crawl(info.seeds_path, db)
    assert proc.returncode == 0, proc.stderr[-3000:]
    store = Store(db, create=False)
    pages = {p.url: p for p in store.pages()}
    store.close()
    expected = dict(info.pages)
    assert set(expected) <= set(pages)
    for url, lang in expected.items():
        page = pages[url]
        assert page.lang == lang, (url, page.encoding, page.text[:80])
        assert "\ufffd" not in page.text
    langs_paired = {(r.lang1, r.lang2) for r in Store(db, create=False).pairs()}
    assert any("ko" in pair for pair in langs_paired) and any("ja" in pair for pair in langs_paired)


def test_malformed_seeds_lines_are_reported_and_skipped(site, tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"# test\nnot-a-url at all\n{site.base_url}/\nftp://x.example/\n", encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'm.db'}"
    proc = scrapy_crawl(seeds, db, "-s", "BITEXT_MAX_PAGES_PER_SITE=5")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"{seeds}:2: not an http(s) URL" in proc.stderr
    assert f"{seeds}:4: not an http(s) URL" in proc.stderr
    assert stat(proc.stderr, "bitext/seeds/malformed_lines") == 2
    assert len(page_urls(db)) == 5


def test_missing_seeds_file_stops_with_a_clear_message(tmp_path):
    proc = scrapy_crawl(tmp_path / "missing.txt", f"sqlite:///{tmp_path / 'x.db'}")
    assert proc.returncode != 0
    assert f"seeds file not found: {tmp_path / 'missing.txt'}" in proc.stderr


def test_bad_responses_do_not_lose_stored_pages(tmp_path):
    port = free_port()
    info = generate_site(tmp_path / "site", base_url=f"http://127.0.0.1:{port}", n_docs=4, langs=("en", "fr"),
                         seed=7, extras=False)
    base = info.base_url
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"{base}/ {base}/loop {base}/slow {base}/huge.html {base}/garbage.html\n")
    db = f"sqlite:///{tmp_path / 'bad.db'}"
    with serve_site(tmp_path / "site", port=port, redirect_loop=True, slow_seconds=5, huge_page=True,
                    garbage_page=True):
        proc = scrapy_crawl(seeds, db, "-s", "DOWNLOAD_TIMEOUT=2", "-s", "RETRY_TIMES=0")
    log = proc.stderr
    assert proc.returncode == 0, log[-3000:]
    urls = set(page_urls(db))
    assert {u for u, _ in info.pages} <= urls  # every real page is stored despite the bad ones
    assert f"{base}/garbage.html" not in urls
    assert stat(log, "bitext/pages/dropped/binary") == 1
    assert f"{base}/loop" not in urls  # a redirect to itself ends (dupefilter or REDIRECT_MAX_TIMES)
    assert stat(log, "bitext/errors/DownloadTimeoutError") == 1
    assert f"fetch failed: {base}/slow" in log
    assert stat(log, "bitext/pages/too_large") == 1 and f"{base}/huge.html" in urls
    assert "Dropped: binary content served as text/html" in log
    assert len(pairs_of(db)) >= 4


def test_depth_limit(site, tmp_path):
    db = f"sqlite:///{tmp_path / 'depth.db'}"
    proc = scrapy_crawl(site.seeds_path, db, "-s", "DEPTH_LIMIT=1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    store = Store(db, create=False)
    depths = {p.url: p.depth for p in store.pages()}
    store.close()
    assert depths and max(depths.values()) == 1
    assert set(site.home_pages.values()) <= set(depths)
    assert len(depths) < len(site.pages)
