"""WARC archives: the writer (records warcio reads back, request/response pairs, rotation by size),
the crawl extension that feeds it, the reader's handling of Common Crawl conventions on small
hand-made WARC files, and the one-line refusals of ``bitext mine-warc``."""

from __future__ import annotations

import gzip
import random
from datetime import datetime, timezone
from io import BytesIO
from pathlib import Path

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from bitext_spider.commands.cli import main as bitext
from bitext_spider.config import BitextConfig
from bitext_spider.crawl.warc_output import WarcOutput, exchange_of
from bitext_spider.spiders.warc import archive_files
from bitext_spider.store.writer_lock import WriterLock
from bitext_spider.warc.archive_reader import Archived, Passed, WarcInputError, check_archive, read_archive
from bitext_spider.warc.archive_writer import ArchiveFiles, BackgroundArchive, Exchange

WHEN = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=timezone.utc)
HTML = "<html lang='fr'><head><title>Été</title></head><body><p>Bonjour à tous.</p></body></html>".encode()


def exchange(n: int, body: bytes = HTML, status: int = 200, **kw) -> Exchange:
    headers = kw.pop("headers", [("Content-Type", "text/html; charset=utf-8"), ("ETag", f'"e{n}"')])
    return Exchange(url=f"http://a.test/p{n}.html?x=1", date=WHEN, status=status, headers=headers, body=body,
                    request_headers=(("User-Agent", "bot/1"), ("Accept", "text/html")), **kw)


def records(path: Path) -> list:
    """(type, WARC headers, HTTP status/protocol line, HTTP headers, payload) of every record."""
    out = []
    with open(path, "rb") as fh:
        for rec in ArchiveIterator(fh, check_digests=True):
            http = rec.http_headers
            line = f"{http.protocol} {http.statusline}" if http is not None else ""
            out.append((rec.rec_type, dict(rec.rec_headers.headers), line,
                        list(http.headers) if http is not None else [], rec.content_stream().read()))
            assert rec.digest_checker.passed is not False, rec.digest_checker.problems
    return out


# -- writer ------------------------------------------------------------------------------------------

def test_each_exchange_is_a_response_then_its_request_that_warcio_reads_back(tmp_path):
    files = ArchiveFiles(str(tmp_path / "out" / "crawl.warc.gz"), 10**9, {"software": "test"})
    files.write(exchange(1))
    files.write(exchange(2, body=b"", status=404, headers=[("Server", "x")], ip_address="127.0.0.1",
                         truncated="disconnect"))
    files.close()
    assert files.paths == [tmp_path / "out" / "crawl-00000.warc.gz"]
    recs = records(files.paths[0])
    assert [r[0] for r in recs] == ["warcinfo", "response", "request", "response", "request"]
    assert recs[0][4] == b"software: test\r\n"
    (_, resp, line, headers, body), (_, req, req_line, req_headers, _) = recs[1], recs[2]
    assert line == "HTTP/1.1 200 OK" and body == HTML
    assert headers == [("Content-Type", "text/html; charset=utf-8"), ("ETag", '"e1"'), ("Content-Length", str(len(HTML)))]
    assert resp["WARC-Target-URI"] == req["WARC-Target-URI"] == "http://a.test/p1.html?x=1"
    assert resp["WARC-Date"] == req["WARC-Date"] == "2024-05-06T07:08:09.123456Z"
    assert resp["WARC-Payload-Digest"].startswith("sha1:")
    assert req["WARC-Concurrent-To"] == resp["WARC-Record-ID"]
    assert req_line == "GET /p1.html?x=1 HTTP/1.1"
    assert req_headers == [("Host", "a.test"), ("User-Agent", "bot/1"), ("Accept", "text/html")]
    error = recs[3]
    assert error[2] == "HTTP/1.1 404 Not Found" and error[4] == b""
    assert error[1]["WARC-IP-Address"] == "127.0.0.1" and error[1]["WARC-Truncated"] == "disconnect"


def test_framing_headers_the_client_undid_are_replaced_by_the_body_length(tmp_path):
    files = ArchiveFiles(str(tmp_path / "c.warc"), 10**9)  # .warc: uncompressed
    files.write(exchange(1, headers=[("Transfer-Encoding", "chunked"), ("Content-Length", "3"),
                                     ("Content-Encoding", "gzip")], body=gzip.compress(HTML)))
    files.close()
    raw = files.paths[0].read_bytes()
    assert raw.startswith(b"WARC/1.1\r\n") and b"chunked" not in raw
    (_, _, _, headers, body), = [r for r in records(files.paths[0]) if r[0] == "response"]
    assert headers == [("Content-Encoding", "gzip"), ("Content-Length", str(len(gzip.compress(HTML))))]
    assert body == HTML  # warcio decodes the content encoding the headers name


def test_files_rotate_by_size_without_splitting_an_exchange_and_never_overwrite(tmp_path):
    stem = tmp_path / "crawl.warc.gz"
    files = ArchiveFiles(str(stem), max_bytes=3000)
    sizes = [files.write(exchange(n, body=random.Random(n).randbytes(2048))) for n in range(6)]  # incompressible
    files.close()
    assert [p.name for p in files.paths] == [f"crawl-0000{i}.warc.gz" for i in range(len(files.paths))]
    assert len(files.paths) >= 3
    assert files.bytes_written == sum(p.stat().st_size for p in files.paths) > sum(sizes)  # + warcinfo
    urls = []
    for path in files.paths:
        recs = records(path)
        assert recs[0][0] == "warcinfo"
        assert [r[0] for r in recs[1:]] == ["response", "request"] * ((len(recs) - 1) // 2)
        # Closed once over the limit: only the last exchange of a file crosses it.
        assert path == files.paths[-1] or path.stat().st_size >= 3000
        urls += [r[1]["WARC-Target-URI"] for r in recs if r[0] == "response"]
    assert urls == [f"http://a.test/p{n}.html?x=1" for n in range(6)]
    again = ArchiveFiles(str(stem), max_bytes=3000)  # a resumed crawl: numbering goes on
    again.write(exchange(9))
    again.close()
    assert again.paths == [tmp_path / f"crawl-{len(files.paths):05d}.warc.gz"]


def test_background_archive_writes_in_order_and_counts_what_a_failure_loses(tmp_path):
    sizes = []
    archive = BackgroundArchive(ArchiveFiles(str(tmp_path / "w.warc.gz"), 10**9), on_written=sizes.append)
    for n in range(20):
        archive.put(exchange(n))
    archive.close()
    assert archive.written == 20 and archive.lost == 0 and len(sizes) == 20
    got = [r[1]["WARC-Target-URI"] for r in records(tmp_path / "w-00000.warc.gz") if r[0] == "response"]
    assert got == [f"http://a.test/p{n}.html?x=1" for n in range(20)]
    (tmp_path / "file").write_text("not a directory")
    broken = BackgroundArchive(ArchiveFiles(str(tmp_path / "file" / "w.warc.gz"), 10**9))
    for n in range(3):
        broken.put(exchange(n))
    broken.close()
    assert broken.written == 0 and broken.lost == 3 and isinstance(broken.error, OSError)


def test_output_setting_takes_warc_paths_only():
    assert BitextConfig.from_settings({"BITEXT_WARC_OUTPUT": "a/b.warc.gz"}).warc_output == "a/b.warc.gz"
    assert BitextConfig.from_settings({}).warc_output == ""
    with pytest.raises(ValueError, match="BITEXT_WARC_OUTPUT"):
        BitextConfig.from_settings({"BITEXT_WARC_OUTPUT": "crawl.zip"})


def test_extension_archives_downloaded_responses_and_is_off_without_the_setting(tmp_path):
    with pytest.raises(NotConfigured):
        WarcOutput.from_crawler(get_crawler())
    crawler = get_crawler(settings_dict={"BITEXT_WARC_OUTPUT": str(tmp_path / "x.warc.gz"), "BITEXT_ENABLED": False})
    ext = WarcOutput.from_crawler(crawler)
    request = Request("http://a.test/robots.txt", headers={"User-Agent": "bot/1"})
    ext.response_downloaded(HtmlResponse("http://a.test/robots.txt", status=301, body=b"",
                                         headers={"Location": "/r"}, request=request), request)
    ext.response_downloaded(HtmlResponse("data:,x", body=b"x"), Request("data:,x"))
    ext.spider_closed()
    recs = records(tmp_path / "x-00000.warc.gz")
    assert [(r[0], r[2]) for r in recs] == [("warcinfo", ""), ("response", "HTTP/1.1 301 Moved Permanently"),
                                             ("request", "GET /robots.txt HTTP/1.1")]
    assert ("Location", "/r") in recs[1][3]
    assert crawler.stats.get_value("bitext/warc/written/responses") == 1
    assert crawler.stats.get_value("bitext/warc/written/files") == 1


def test_exchange_of_a_response_cut_short_is_marked_truncated():
    request = Request("https://a.test/p", method="POST", body=b"q=1")
    response = HtmlResponse("https://a.test/p", body=b"<html>", flags=["dataloss"], request=request,
                            headers={"Content-Type": "text/html"}, protocol="HTTP/1.0")
    ex = exchange_of(response, request)
    assert (ex.url, ex.status, ex.method, ex.request_body, ex.truncated) == (
        "https://a.test/p", 200, "POST", b"q=1", "disconnect")
    assert ex.headers == [("Content-Type", "text/html")] and ex.protocol == "HTTP/1.0"


# -- reader: hand-made archives ------------------------------------------------------------------------

def http(status: str, headers: list[tuple[str, str]], body: bytes) -> bytes:
    head = "".join(f"{k}: {v}\r\n" for k, v in headers)
    return f"HTTP/1.1 {status}\r\n{head}\r\n".encode() + body


def chunked(data: bytes, size: int = 7) -> bytes:
    parts = [data[i:i + size] for i in range(0, len(data), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


def write_warc(path: Path, recs: list[tuple], gzipped: bool = True) -> Path:
    """``recs``: (type, uri, payload bytes, WARC headers) or ("revisit", uri, refers_to)."""
    with open(path, "wb") as fh:
        w = WARCWriter(fh, gzip=gzipped)
        w.write_record(w.create_warcinfo_record(path.name, {"software": "hand"}))
        for rec in recs:
            if rec[0] == "revisit":
                w.write_record(w.create_revisit_record(
                    rec[1], "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", rec[2], "2024-01-01T00:00:00Z",
                    http_headers=StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")))
                continue
            kind, uri, payload, extra = rec
            content_type = {"metadata": "application/warc-fields", "conversion": "text/plain"}.get(kind, "")
            w.write_record(w.create_warc_record(uri, kind, payload=BytesIO(payload), length=len(payload),
                                                warc_content_type=content_type, warc_headers_dict=extra))
    return path


PAGE = b"<html><body><p>" + b"Texte de la page. " * 40 + b"</p></body></html>"
CC_LIKE = [
    ("request", "http://a.test/", b"GET / HTTP/1.1\r\nHost: a.test\r\n\r\n", {}),
    ("response", "http://a.test/", http("200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(PAGE)))],
                                        PAGE), {"WARC-Date": "2024-03-04T05:06:07Z"}),
    ("response", "http://a.test/gz", http("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                                     ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")],
                                          chunked(gzip.compress(PAGE))), {}),
    ("metadata", "http://a.test/gz", b"fetchTimeMs: 12\r\n", {}),
    ("revisit", "http://a.test/again", "http://a.test/"),
    ("response", "http://a.test/cut", http("200 OK", [("Content-Type", "text/html")], PAGE[:100]),
     {"WARC-Truncated": "length"}),
    ("response", "http://a.test/missing", http("404 Not Found", [("Content-Type", "text/html")], b"no"), {}),
    ("response", "http://a.test/old", http("301 Moved Permanently", [("Location", "/new")], b""), {}),
    ("response", "http://a.test/zst", http("200 OK", [("Content-Encoding", "x-unknown")], b"\x00\x01"), {}),
    ("response", "dns:a.test", b"20240101000000\na.test. 300 IN A 127.0.0.1\n", {}),
    ("response", "http://a.test/logo.png", http("200 OK", [("Content-Type", "image/png")], b"\x89PNG"), {}),
]


def test_reader_decodes_responses_and_says_why_it_passes_the_rest(tmp_path):
    got = list(read_archive(write_warc(tmp_path / "cc.warc.gz", CC_LIKE)))
    pages = [r for r in got if isinstance(r, Archived)]
    assert [(p.url, p.status, p.body == PAGE) for p in pages] == [
        ("http://a.test/", 200, True), ("http://a.test/gz", 200, True), ("http://a.test/logo.png", 200, False)]
    assert pages[0].headers == [("Content-Type", "text/html")]  # the length was the message's, not the page's
    assert pages[1].headers == [("Content-Type", "text/html; charset=utf-8")]  # decoded: no framing left
    assert pages[0].fetched_at == datetime(2024, 3, 4, 5, 6, 7, tzinfo=timezone.utc).timestamp()
    passed = [(r.reason, r.url, r.location) for r in got if isinstance(r, Passed)]
    assert passed == [("", "", None), ("", "", None), ("", "", None),
                      ("revisit", "http://a.test/again", None), ("truncated", "http://a.test/cut", None),
                      ("status", "http://a.test/missing", None),
                      ("redirect", "http://a.test/old", "http://a.test/new"),
                      ("undecodable", "http://a.test/zst", None), ("not_http", "dns:a.test", None)]


def test_truncated_records_are_mined_as_they_are_when_asked(tmp_path):
    path = write_warc(tmp_path / "cc.warc", CC_LIKE, gzipped=False)
    cut = [r for r in read_archive(path, keep_truncated=True) if isinstance(r, Archived) and r.url.endswith("/cut")]
    assert len(cut) == 1 and cut[0].truncated and cut[0].body == PAGE[:100]


def test_files_that_cannot_be_mined_are_refused_with_one_line(tmp_path):
    with pytest.raises(WarcInputError, match="no WARC file at"):
        check_archive(tmp_path / "missing.warc.gz")
    (tmp_path / "notes.txt").write_text("not a WARC\n" * 10)
    with pytest.raises(WarcInputError, match="is not a readable WARC file"):
        check_archive(tmp_path / "notes.txt")
    (tmp_path / "empty.warc.gz").write_bytes(b"")
    with pytest.raises(WarcInputError, match="holds no WARC record"):
        check_archive(tmp_path / "empty.warc.gz")
    wet = write_warc(tmp_path / "cc.warc.wet.gz", [("conversion", "http://a.test/", b"Bonjour", {})])
    with pytest.raises(WarcInputError, match="is a WET file"):
        check_archive(wet)
    check_archive(write_warc(tmp_path / "ok.warc.gz", CC_LIKE))


def test_a_file_cut_short_yields_its_records_up_to_the_cut_then_fails(tmp_path):
    whole = write_warc(tmp_path / "whole.warc.gz", CC_LIKE[:3]).read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(whole[: len(whole) - 40])
    check_archive(cut)  # starts like a WARC: the cut is found when mining
    got = []
    with pytest.raises(WarcInputError, match="cut.warc.gz is cut short"):
        for rec in read_archive(cut):
            got.append(rec)
    assert [r.url for r in got if isinstance(r, Archived)] == ["http://a.test/"]


def test_archive_files_expands_patterns_in_order(tmp_path):
    for n in (1, 0, 10):
        (tmp_path / f"c-{n:05d}.warc.gz").write_bytes(b"")
    assert archive_files(str(tmp_path / "c-*.warc.gz")) == [str(tmp_path / f"c-{n:05d}.warc.gz") for n in (0, 1, 10)]
    assert archive_files(["b.warc", "a.warc"]) == ["b.warc", "a.warc"]
    assert archive_files("x.warc.gz,y.warc.gz") == ["x.warc.gz", "y.warc.gz"]


def test_mine_warc_refuses_bad_input_before_touching_the_database(tmp_path, capsys):
    db = tmp_path / "mined.db"
    wet = write_warc(tmp_path / "x.wet.gz", [("conversion", "http://a.test/", b"Bonjour", {})])
    (tmp_path / "notes.txt").write_text("hello\n")
    for args, message in (
        ([str(tmp_path / "missing.warc.gz")], "no WARC file at"),
        ([str(tmp_path / "nothing-*.warc.gz")], "no WARC file at"),  # a pattern that matches nothing
        ([str(tmp_path / "notes.txt")], "is not a readable WARC file"),
        ([str(wet)], "is a WET file (extracted text, no HTML)"),
    ):
        assert bitext(["mine-warc", *args, "--db", str(db)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("bitext: ") and message in err[0], err
    ok = write_warc(tmp_path / "ok.warc.gz", CC_LIKE)
    assert bitext(["mine-warc", str(ok), "--db", str(db), "-s", "BITEXT_WARC_MAX_BYTES=0"]) == 2
    assert "BITEXT_WARC_MAX_BYTES" in capsys.readouterr().err
    assert bitext(["mine-warc", str(ok), "--db", str(db), "--seeds", str(tmp_path / "no-seeds.txt")]) == 2
    assert "seeds file not found" in capsys.readouterr().err
    assert not db.exists()
    lock = WriterLock(f"sqlite:///{db}")  # a crawl writing the database
    try:
        assert bitext(["mine-warc", str(ok), "--db", str(db)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "another crawl is writing" in err[0], err
    finally:
        lock.release()


# -- the warc spider, in this process ------------------------------------------------------------------

def page(title: str, links: str = "", head: str = "") -> bytes:
    body = " ".join(f"{title} sentence number {i} of this page." for i in range(6))
    return (f"<html lang='en'><head><title>{title}</title>{head}</head><body><h1>{title}</h1><p>{body}</p>"
            f"{links}</body></html>").encode()


HTML_TYPE = [("Content-Type", "text/html; charset=utf-8")]
SITE_RECORDS = [
    ("response", "http://s.test/robots.txt",
     http("200 OK", [("Content-Type", "text/plain")], b"User-agent: *\nSitemap: http://s.test/sitemap.xml\n"), {}),
    ("response", "http://s.test/", http("200 OK", HTML_TYPE, page("Home", "<a href='/a.html'>a</a>"
                                                                  "<a href='/old'>old</a>")), {}),
    ("response", "http://s.test/sitemap.xml", http("200 OK", [("Content-Type", "application/xml")], (
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc>http://s.test/b.html</loc></url><url><loc>http://s.test/feed.rss</loc></url></urlset>")), {}),
    ("response", "http://s.test/a.html", http("200 OK", HTML_TYPE, page("Page A", "<a href='/b.html'>b</a>")), {}),
    ("response", "http://s.test/b.html", http("200 OK", HTML_TYPE, page("Page B")), {}),
    ("response", "http://s.test/old", http("301 Moved Permanently", [("Location", "/new.html")], b""), {}),
    ("response", "http://s.test/new.html", http("200 OK", HTML_TYPE, page("New")), {}),
    ("response", "http://s.test/feed.rss", http("200 OK", [("Content-Type", "application/rss+xml")], (
        b'<?xml version="1.0"?><rss version="2.0"><channel><item><link>http://s.test/c.html</link>'
        b"<pubDate>Tue, 05 Mar 2024 11:46:00 +0100</pubDate></item></channel></rss>")), {}),
    ("response", "http://s.test/c.html", http("200 OK", HTML_TYPE, page("Page C")), {}),
    ("response", "http://s.test/a.html", http("200 OK", HTML_TYPE, page("Page A again")), {}),
    ("revisit", "http://s.test/a2.html", "http://s.test/a.html"),
    ("response", "http://s.test/logo.png", http("200 OK", [("Content-Type", "image/png")], b"\x89PNG"), {}),
    ("response", "http://s.test/moved.html", http("200 OK", HTML_TYPE, page(
        "Moved", head="<meta http-equiv='refresh' content='0; url=/b.html'>")), {}),
    ("response", "http://other.test/x.html", http("200 OK", HTML_TYPE, page("Other host")), {}),
]


def replay(tmp_path, settings: dict, **spider_args) -> tuple[list, dict]:
    """Run the warc spider's start() to its end: the items it yields and the stats."""
    import asyncio

    from bitext_spider.spiders.warc import WarcSpider

    crawler = get_crawler(WarcSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'r.db'}",
                                       "BITEXT_PARSE_WORKERS": 0, **settings})
    spider = WarcSpider.from_crawler(crawler, **spider_args)
    crawler.spider = spider

    async def run() -> list:
        return [item async for item in spider.start()]

    try:
        items = asyncio.run(run())
    finally:
        spider.runtime.close()
    return items, crawler.stats.get_stats()


def test_warc_spider_makes_the_site_spiders_pages_in_file_order(tmp_path):
    path = write_warc(tmp_path / "site.warc.gz", SITE_RECORDS)
    items, stats = replay(tmp_path, {}, files=[str(path)])
    got = [(i.url, i.site, i.depth, i.published) for i in items]
    assert got == [
        ("http://s.test/", "s.test", 0, None),
        ("http://s.test/a.html", "s.test", 1, None),
        ("http://s.test/b.html", "s.test", 2, None),  # robots.txt -> sitemap (1) -> b (2)
        ("http://s.test/new.html", "s.test", 1, None),  # linked from home as /old, redirected
        ("http://s.test/c.html", "s.test", 3, 738950),  # the feed's pubDate
        ("http://other.test/x.html", "other.test", 0, None),
    ]
    assert all(i.parsed is not None and i.status == 200 for i in items)
    assert b"Page A again" not in items[1].body  # the first record of a URL is its page
    assert items[1].links == ["http://s.test/b.html"]
    assert stats["bitext/warc/read/records"] == len(SITE_RECORDS) + 1  # and the warcinfo
    assert stats["bitext/warc/sites"] == 2
    assert (stats["bitext/warc/skipped/duplicate"], stats["bitext/warc/skipped/revisit"],
            stats["bitext/warc/skipped/redirect"], stats["bitext/skipped/non_html"]) == (1, 1, 2, 1)


def test_warc_spider_groups_hosts_by_seeds_line_and_works_with_matching_off(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://s.test/ http://other.test/\n")
    path = write_warc(tmp_path / "site.warc.gz", SITE_RECORDS)
    items, stats = replay(tmp_path, {"BITEXT_ENABLED": False}, files=[str(path)], seeds=str(seeds))
    assert {i.site for i in items} == {"other.test s.test"} and len(items) == 6
    assert all(i.parsed is None for i in items)
    assert stats["bitext/warc/sites"] == 1
