"""The hostile test site (tests/hostile_site.py) and a default crawl of it.

The fast tests check that the site misbehaves as intended; the slow one is the acceptance test of
the crawler against it: with default settings the crawl must end by itself, fetch little of the
link traps, pair exactly the genuine translations and stay within memory.
"""

from __future__ import annotations

import http.client
import re
import subprocess
import urllib.error
import urllib.request
import zlib
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta
from urllib.parse import urljoin, urlsplit

import lxml.html
import pytest
from hostile_site import (
    BOGUS_CHARSET,
    HUGE_BYTES,
    ITEMS,
    LONG_URL_CHARS,
    MANY_TAGS,
    NESTING,
    OFFSITE,
    PAGES,
    build_hostile_site,
    gzip_bomb,
)
from support import page_urls, pairs_of, scrapy_crawl, stat

from bitext_spider.demo.loopback_server import free_port

MAXSIZE = 16 * 1024 * 1024  # the project's DOWNLOAD_MAXSIZE
TRAP_BUDGET = 1_000
MEMORY_BUDGET = 1 << 30


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    site = build_hostile_site(tmp_path_factory.mktemp("hostile"), free_port())
    gzip_bomb()
    with site.serve() as server:
        yield site, server


def _get(url: str, timeout: float = 10) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and raw body of one GET, redirects and errors included."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""))
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def _links(url: str) -> list[str]:
    status, _, body = _get(url)
    assert status == 200, url
    return [urljoin(url, href) for href in lxml.html.fromstring(body).xpath("//a/@href")]


def _text(body: bytes) -> str:
    doc = lxml.html.fromstring(body)
    return " ".join(" ".join(doc.xpath("//body//text()")).split())


# --------------------------------------------------------------------------------------------------
# The site


def test_gold_pairs_come_from_the_genuine_part(served):
    site, _ = served
    lines = (site.root / "gold.tsv").read_text("utf-8").splitlines()
    assert len(site.gold) == len(lines) >= 8
    urls = {u for pair in site.gold for u in pair}
    assert all(len(pair) == 2 for pair in site.gold)
    assert all(u.startswith(site.base_url + "/") for u in urls)
    assert not any(u.startswith(site.url(p)) for u in urls for p in site.trap_prefixes + site.item_prefixes)
    assert site.seeds.read_text().split() == [site.base_url + "/"]


def test_root_page_links_every_hostile_path(served):
    site, _ = served
    links = _links(site.url("/"))
    paths = {urlsplit(u).path for u in links if u.startswith(site.base_url)}
    assert set(PAGES) <= paths
    for prefix in (*site.trap_prefixes, *site.item_prefixes, "/error/", "/long/"):
        assert any(p.startswith(prefix) for p in paths), prefix
    assert any(u.startswith("javascript:") for u in links)
    assert any(u.startswith("mailto:") for u in links)
    assert max(len(u) for u in links) == LONG_URL_CHARS
    for lang in ("en", "fr"):  # the junk catalogues also hang off the real home pages
        assert site.url(f"/{lang}/item/") in _links(site.url(f"/{lang}/index.html"))


def test_calendar_is_endless(served):
    site, _ = served
    day = date(2024, 3, 5)
    for _ in range(30):
        here = site.url(f"/calendar/{day.isoformat()}")
        links = set(_links(here))
        assert {f"{here}?view=week", f"{here}?view=month"} <= links
        assert any(u.startswith(f"{here}?sid=") for u in links)
        assert site.url(f"/calendar/{(day + timedelta(days=400)).isoformat()}") in links
        day += timedelta(days=1)
        assert site.url(f"/calendar/{day.isoformat()}") in links
    sids = {u for _ in range(2) for u in _links(site.url("/calendar/2024-03-05")) if "?sid=" in u}
    assert len(sids) == 2  # a new session id at every visit: the same day never has the same URL
    for end in ("0001-01-01", "9999-12-31", "1970-01-01", "2024-02-29"):
        assert _get(site.url(f"/calendar/{end}?view=month"))[0] == 200
    assert _get(site.url("/calendar/2023-02-29"))[0] == 404


def test_faceted_search_keeps_branching(served):
    site, _ = served
    frontier, seen = [site.url("/search?color=red")], set()
    while frontier and len(seen) < 60:
        url = frontier.pop(0)
        if url in seen:
            continue
        seen.add(url)
        links = [u for u in _links(url) if urlsplit(u).path == "/search"]
        assert len(links) >= 15
        frontier += links
    assert len(seen) == 60 and len(frontier) > 500
    assert any("page=2" in u for u in seen)
    deep = site.url("/search?color=red&color=blue&size=m&sort=name&page=9999")
    assert site.url("/search?color=red&color=blue&size=m&sort=name&page=10000") in _links(deep)


def test_relative_link_nests_forever(served):
    site, _ = served
    url = site.url("/loop/a/")
    for depth in range(1, 30):
        (nxt,) = _links(url)
        assert nxt == site.url("/loop/" + "a/" * (depth + 1))
        url = nxt
    assert _get(site.url("/loop/" + "a/" * 500))[0] == 200
    assert _get(site.url("/loop/b/"))[0] == 404


def test_item_pages_are_identical_textless_twins(served):
    site, _ = served
    for n in (1, 77, ITEMS):
        en, fr = (_get(site.url(f"/{lang}/item/{n}")) for lang in ("en", "fr"))
        assert en[0] == fr[0] == 200
        assert _text(en[2]) == _text(fr[2])
        assert f"Item {n}" in _text(en[2]) and f"No. {n}" in _text(en[2])
        assert b'lang="en"' in en[2] and b'lang="fr"' in fr[2]
        assert f'hreflang="fr" href="/fr/item/{n}"'.encode() in en[2]
    assert _get(site.url(f"/en/item/{ITEMS + 1}"))[0] == 404
    index = [u for u in _links(site.url("/fr/item/")) if re.search(r"/fr/item/\d+$", u)]
    assert len(index) == ITEMS


def test_gzip_bomb_is_small_on_the_wire_and_huge_inflated(served):
    site, _ = served
    status, headers, body = _get(site.url("/bomb.html"))
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert headers["content-type"].startswith("text/html")
    assert len(body) < 2 * 1024 * 1024 and body == gzip_bomb()
    inflater = zlib.decompressobj(31)
    size, chunk = 0, body
    while chunk and size <= 4 * MAXSIZE:  # inflate just enough to see it is real, not all of it
        size += len(inflater.decompress(chunk, 1 << 20))
        chunk = inflater.unconsumed_tail
    assert size > 4 * MAXSIZE
    assert int.from_bytes(body[-4:], "little") == 1 << 30  # gzip's trailer: the inflated size mod 2**32


def test_pathological_html(served):
    site, _ = served
    status, headers, body = _get(site.url("/huge.html"))
    assert status == 200 and HUGE_BYTES - 1024 < len(body) <= HUGE_BYTES < MAXSIZE
    status, _, body = _get(site.url("/many-tags.html"))
    assert status == 200 and body.count(b"<b>") == MANY_TAGS
    status, _, body = _get(site.url("/deep.html"))
    assert status == 200 and body.count(b"<div>") == NESTING == body.count(b"</div>")
    status, headers, body = _get(site.url("/binary.html"))
    assert status == 200 and headers["content-type"] == "text/html"
    with pytest.raises(UnicodeDecodeError):
        body.decode("utf-8")
    status, headers, body = _get(site.url("/bogus-charset.html"))
    assert headers["content-type"] == f"text/html; charset={BOGUS_CHARSET}"
    assert f'<meta charset="{BOGUS_CHARSET}">'.encode() in body


def test_redirects_and_failures(served):
    site, _ = served
    status, headers, _ = _get(site.url("/redir-loop"))
    assert status == 302 and headers["location"] == "/redir-loop"
    status, headers, _ = _get(site.url("/offsite-redirect"))
    assert status == 302 and headers["location"] == OFFSITE
    assert [_get(site.url("/flaky"))[0] for _ in range(3)] == [500, 200, 200]
    for code in (500, 502, 503):
        assert [_get(site.url(f"/error/{code}"))[0] for _ in range(2)] == [code, code]
    assert _get(site.url("/long/" + "x" * 8000))[0] == 200


def test_slow_page_outlasts_a_timeout(served):
    site, _ = served
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        urllib.request.urlopen(site.url("/slow"), timeout=1)


def test_robots_allows_all_and_announces_a_billion_laughs_sitemap(served):
    from scrapy.utils.sitemap import Sitemap

    site, _ = served
    status, _, robots = _get(site.url("/robots.txt"))
    assert status == 200
    assert re.search(r"^Allow: /$", robots.decode(), re.M) and "Disallow" not in robots.decode()
    assert f"Sitemap: {site.url('/sitemap.xml')}" in robots.decode()
    status, headers, body = _get(site.url("/sitemap.xml"))
    assert status == 200 and "xml" in headers["content-type"] and len(body) < 4096
    assert b"<!ENTITY lol9" in body and b"<loc>&lol9;</loc>" in body and b"<urlset" in body[:2048]
    locs = [entry.get("loc") or "" for entry in Sitemap(body)]  # a safe parser does not expand it
    assert {site.url("/en/index.html"), site.url("/fr/index.html")} <= set(locs)
    assert max(map(len, locs)) < 100


def test_request_counter_is_per_route_and_thread_safe(served):
    site, server = served
    before = server.counts()
    urls = [site.url(f"/calendar/2030-01-{d:02d}") for d in range(1, 29)] * 2 + [site.url("/search?size=s")] * 10
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda u: _get(u)[0], urls))
    assert statuses == [200] * len(urls)
    after = server.counts()
    assert after["/calendar/"] - before.get("/calendar/", 0) == 56
    assert after["/search"] - before.get("/search", 0) == 10
    assert server.requests("/calendar/", "/search") - (before.get("/calendar/", 0) + before.get("/search", 0)) == 66
    assert server.requests(*site.trap_prefixes) >= 66


# --------------------------------------------------------------------------------------------------
# The crawl


@pytest.mark.slow
def test_default_crawl_survives_the_hostile_site(tmp_path):
    port = free_port()
    site = build_hostile_site(tmp_path / "site", port)
    gzip_bomb()  # built before the crawl, not while the crawler waits for it
    db = f"sqlite:///{tmp_path / 'crawl.db'}"
    with site.serve() as server:
        try:
            # Scrapy samples peak memory once a minute by default; every second catches the peak
            # of a short crawl without changing what it does.
            proc = scrapy_crawl(site.seeds, db, "-s", "MEMUSAGE_ENABLED=True",
                                "-s", "MEMUSAGE_CHECK_INTERVAL_SECONDS=1", timeout=900)
        except subprocess.TimeoutExpired as exc:
            log = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
            pytest.fail(f"the crawl did not end by itself in {exc.timeout:.0f} s "
                        f"(requests per route: {server.counts()}):\n{log[-3000:]}")
        counts = server.counts()
    log = proc.stderr
    assert proc.returncode == 0, log[-3000:]

    memory = stat(log, "memusage/max")
    assert memory is not None and memory < MEMORY_BUDGET, memory

    pairs = pairs_of(db)
    assert not [p for p in pairs if any("/item/" in u for u in p)], "text-less template pages were paired"
    assert site.gold <= pairs, sorted(map(sorted, site.gold - pairs))
    assert pairs == site.gold, sorted(map(sorted, pairs - site.gold))

    urls = set(page_urls(db))
    assert {u for pair in site.gold for u in pair} <= urls
    assert not {site.url(p) for p in ("/bomb.html", "/binary.html", "/slow", "/redir-loop")} & urls
    assert "exceeded DOWNLOAD_MAXSIZE" in log  # the gzip bomb is refused while inflating
    assert stat(log, "bitext/errors/DownloadTimeoutError") == 1
    assert stat(log, "bitext/pages/dropped/binary") == 1
    assert site.url("/flaky") in urls  # retried after its 500
    assert counts.get("/redir-loop", 0) <= 11  # REDIRECT_MAX_TIMES + 1 at most
    assert "/long/" not in counts  # over URLLENGTH_LIMIT, never requested
    assert not any("example.invalid" in u for u in urls)

    trap_requests = sum(n for key, n in counts.items() if key.startswith(site.trap_prefixes))
    assert trap_requests <= TRAP_BUDGET, counts
    dump = log[log.rindex("Dumping Scrapy stats"):]
    assert re.search(r"'bitext/traps/[^']+': ", dump), "no bitext/traps/ stat in the stats dump"
