"""End-to-end: a generated site crawled with WARC output, the server stopped, the archive mined by
``bitext mine-warc`` into another database: the same pages and the same pairs.  Also sites of
several hosts from a seeds file, and a file cut short."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support import ROOT, page_html, pairs_of, scrapy_crawl, stat
from warcio.archiveiterator import ArchiveIterator

from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import generate_site
from bitext_spider.store.database import Store
from bitext_spider.warc.archive_writer import ArchiveFiles, Exchange

pytestmark = pytest.mark.slow


def mine(*args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "bitext_spider.commands.cli", "mine-warc", *args,
           "-s", "LOG_LEVEL=INFO", "-s", "BITEXT_LOGSTATS_INTERVAL=0"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


def pages(db: str) -> dict[str, tuple]:
    store = Store(db, create=False)
    try:
        return {p.url: (p.lang, p.published, p.size_bytes, p.n_tags) for p in store.pages()}
    finally:
        store.close()


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    """The site is served only while it is crawled: the mining runs with no server."""
    tmp = tmp_path_factory.mktemp("warc")
    port = free_port()
    info = generate_site(tmp / "site", base_url=f"http://127.0.0.1:{port}", n_docs=12, langs=("en", "fr", "de"),
                         seed=5)
    db = f"sqlite:///{tmp / 'live.db'}"
    with serve_site(tmp / "site", port=port):
        proc = scrapy_crawl(info.seeds_path, db, "-s", f"BITEXT_WARC_OUTPUT={tmp / 'archive' / 'crawl.warc.gz'}",
                            "-s", "BITEXT_WARC_MAX_BYTES=60000")
    assert proc.returncode == 0, proc.stderr[-3000:]
    files = sorted((tmp / "archive").glob("crawl-*.warc.gz"))
    return info, db, files, proc.stderr, tmp


def test_the_archive_holds_every_response_with_its_request(crawled):
    info, db, files, log, _ = crawled
    assert len(files) >= 2  # rotated by size
    responses, requests = [], []
    for path in files:
        with open(path, "rb") as fh:
            for rec in ArchiveIterator(fh):
                if rec.rec_type == "response":
                    responses.append((rec.rec_headers.get_header("WARC-Target-URI"), rec.http_headers.get_statuscode()))
                elif rec.rec_type == "request":
                    requests.append(rec.rec_headers.get_header("WARC-Target-URI"))
    assert [u for u, _ in responses] == requests
    assert stat(log, "bitext/warc/written/responses") == len(responses)
    assert stat(log, "bitext/warc/written/files") == len(files)
    urls = {u for u, _ in responses}
    assert set(pages(db)) <= urls  # every page
    root = info.pages[0][0].split("/", 3)[:3]
    base = "/".join(root)
    assert f"{base}/robots.txt" in urls and f"{base}/sitemap.xml" in urls
    assert any(u.endswith(".rss") or "feed" in u for u in urls)  # feeds: non-HTML responses too


def test_mined_archive_gives_the_crawls_pages_and_pairs(crawled):
    _, db, files, _, tmp = crawled
    mined = f"sqlite:///{tmp / 'mined.db'}"
    proc = mine(*map(str, files), "--db", mined)
    assert proc.returncode == 0, proc.stderr[-3000:]
    live_pairs, mined_pairs = pairs_of(db), pairs_of(mined)
    # The same pages in the same order; the translation model trains in the order the pipelines
    # finish pages, which their concurrency can change by a page under load, so a pair the model
    # judges at the margin may differ (the W3C site: 1,555 pairs live, 1,554 mined, docs/warc.md).
    assert live_pairs and len(live_pairs ^ mined_pairs) <= 1, live_pairs ^ mined_pairs
    # The same pages, with the same language, publication day (a feed's too), size and tags.
    assert pages(mined) == pages(db)
    assert f"pairs, into {mined}" in proc.stderr.splitlines()[-1]
    assert stat(proc.stderr, "bitext/warc/read/responses") >= len(pages(db))


def _exchange(url: str, html: str) -> Exchange:
    from datetime import datetime, timezone

    return Exchange(url=url, date=datetime.now(timezone.utc), status=200,
                    headers=[("Content-Type", "text/html; charset=utf-8")], body=html.encode())


def test_seeds_lines_group_hosts_into_sites_and_other_hosts_are_their_own(tmp_path):
    files = ArchiveFiles(str(tmp_path / "hand.warc.gz"), 10**9)
    for host in ("en.a.test", "fr.a.test", "c.test"):
        for n in range(2):
            files.write(_exchange(f"http://{host}/p{n}.html", page_html("en", [f"Title {host} {n}", "Some text."])))
    files.close()
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://en.a.test/ http://fr.a.test/\n")
    db = f"sqlite:///{tmp_path / 'sites.db'}"
    proc = mine(str(files.paths[0]), "--db", db, "--seeds", str(seeds))
    assert proc.returncode == 0, proc.stderr[-3000:]
    store = Store(db, create=False)
    try:
        assert sorted(key for _, key, _ in store.sites()) == ["c.test", "en.a.test fr.a.test"]
        assert len(list(store.pages())) == 6
    finally:
        store.close()


def test_a_file_cut_short_is_mined_up_to_the_cut_and_reported(tmp_path):
    good = ArchiveFiles(str(tmp_path / "good.warc.gz"), 10**9)
    good.write(_exchange("http://a.test/1.html", page_html("en", ["One", "Text one."])))
    good.close()
    cut = ArchiveFiles(str(tmp_path / "cut.warc.gz"), 10**9)
    sizes = [cut.write(_exchange(f"http://a.test/{n}.html", page_html("en", [f"Page {n}", "Some more text."])))
             for n in range(2, 5)]
    cut.close()
    data = cut.paths[0].read_bytes()
    cut.paths[0].write_bytes(data[: len(data) - sizes[-1] // 2])  # inside the last exchange
    db = f"sqlite:///{tmp_path / 'cut.db'}"
    proc = mine(str(good.paths[0]), str(cut.paths[0]), "--db", db)
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.splitlines() if line.startswith("bitext: error:")]
    assert len(errors) == 1 and "cut-00000.warc.gz is cut short" in errors[0]
    assert set(pages(db)) == {"http://a.test/1.html", "http://a.test/2.html", "http://a.test/3.html"}


def test_mine_warc_runs_from_any_directory(tmp_path):
    files = ArchiveFiles(str(tmp_path / "x.warc.gz"), 10**9)
    files.write(_exchange("http://a.test/1.html", page_html("en", ["One", "Text one."])))
    files.close()
    db = tmp_path / "x.db"
    proc = subprocess.run([sys.executable, "-m", "bitext_spider.commands.cli", "mine-warc", str(files.paths[0]),
                           "--db", str(db), "-s", "BITEXT_ENABLED=False"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "bitext: 1 pages from 1 responses" in proc.stderr
