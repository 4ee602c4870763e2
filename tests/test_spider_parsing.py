"""The spider's link sources, on hand-made responses (no network)."""

import gzip

from scrapy.http import HtmlResponse, Request, Response, XmlResponse
from scrapy.utils.test import get_crawler

from bitext_spider.config import scrapy_ignored_extensions
from bitext_spider.spiders.site import SiteSpider

SITEMAP = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://s.test/en/a.html</loc></url><url><loc>http://s.test/fr/a.html</loc></url>
</urlset>"""
FEED = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<item><title>x</title><link>http://s.test/en/news.html</link></item></channel></rss>"""
ATOM = b"""<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><title>x</title>
<link href="http://s.test/en/atom.html"/><link rel="self" href="http://s.test/feed.atom"/></entry></feed>"""


def spider(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://s.test/\n")
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 's.db'}"})
    return SiteSpider.from_crawler(crawler, seeds=str(seeds))


def test_sitemaps_plain_and_gzipped(tmp_path):
    sp = spider(tmp_path)
    plain = XmlResponse("http://s.test/sitemap.xml", body=SITEMAP)
    assert sp._xml_links(plain) == ["http://s.test/en/a.html", "http://s.test/fr/a.html"]
    packed = Response("http://s.test/sitemap.xml.gz", body=gzip.compress(SITEMAP))
    assert sp._is_gzipped_sitemap(packed)
    assert sp._xml_links(packed) == ["http://s.test/en/a.html", "http://s.test/fr/a.html"]
    broken = Response("http://s.test/broken.xml.gz", body=b"\x1f\x8b" + b"not gzip")
    assert sp._xml_links(broken) == []


def test_feeds(tmp_path):
    sp = spider(tmp_path)
    assert sp._xml_links(XmlResponse("http://s.test/feed.xml", body=FEED)) == ["http://s.test/en/news.html"]
    assert sp._xml_links(XmlResponse("http://s.test/feed.atom", body=ATOM)) == ["http://s.test/en/atom.html"]


def test_feed_items_date_their_pages(tmp_path):
    sp = spider(tmp_path)
    rss = (b'<?xml version="1.0"?><rss version="2.0"><channel><item><link> http://s.test/a.html </link>'
           b"<pubDate>Tue, 05 Mar 2024 11:46:00 +0100</pubDate></item><item><link>http://s.test/b.html</link>"
           b"<pubDate>soon</pubDate></item></channel></rss>")
    assert sp._feed_days(XmlResponse("http://s.test/feed.xml", body=rss)) == {"http://s.test/a.html": 738950}
    atom = (b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="http://s.test/c.html"/>'
            b"<published>2024-03-06T08:00:00Z</published></entry></feed>")
    assert sp._feed_days(XmlResponse("http://s.test/feed.atom", body=atom)) == {"http://s.test/c.html": 738951}
    assert sp._feed_days(XmlResponse("http://s.test/sitemap.xml", body=SITEMAP)) == {}


def test_page_links_include_hreflang_and_feeds_and_stay_on_site(tmp_path):
    sp = spider(tmp_path)
    state = sp.runtime.open_site(sp.sites[0])
    html = b"""<html><head><link rel="alternate" hreflang="fr" href="/fr/a.html">
    <link rel="alternate" type="application/rss+xml" href="/feed.xml"></head>
    <body><a href="/en/b.html#top">b</a><a href="http://elsewhere.test/x">x</a>
    <a href="/files/x.pdf">pdf</a></body></html>"""
    response = HtmlResponse("http://s.test/en/a.html", body=html, request=Request("http://s.test/en/a.html"))
    links = sp._page_links(response, state)
    assert set(links) == {"http://s.test/en/b.html", "http://s.test/fr/a.html", "http://s.test/feed.xml"}


def _scrapy_links(response):
    """What the spider followed before it parsed pages once: Scrapy's LinkExtractor plus the
    ``<link>`` alternates, feeds and sitemaps."""
    from urllib.parse import urldefrag

    from scrapy.linkextractors import LinkExtractor

    urls = {urldefrag(link.url)[0]: None
            for link in LinkExtractor(tags=("a", "area"), attrs=("href",), unique=True).extract_links(response)}
    for href in response.xpath("//link[@hreflang]/@href | //link[contains(@type, 'rss') or "
                               "contains(@type, 'atom')]/@href | //link[@rel='sitemap']/@href").getall():
        urls[urldefrag(response.urljoin(href.strip()))[0]] = None
    return list(urls)


FOLLOW_CASES = [
    ("http://s.test/en/a.html", "utf-8", """<html><head><link rel="alternate" hreflang="fr" href="/fr/a.html">
     <link rel="alternate" type="application/atom+xml" href="feed.atom"><link rel="sitemap" href="/sm.xml">
     <link rel="stylesheet" href="/s.css"></head><body>
     <a href="b.html#top">b</a> <a href=" /en/c.html ">c</a> <a href="b.html">again</a>
     <a href="javascript:void(0)">js</a> <a href="mailto:x@s.test">mail</a> <a href="/doc.PDF">pdf</a>
     <a href="/img/x.jpg?v=1">jpg</a> <a href="/arch.tar.gz">tgz</a> <a>no href</a> <a href="">self</a>
     <map><area href="/en/area.html"></map> <a href="/en/café été.html">accents</a>
     <a href="/search?q=été">query</a> <a href="http://[::1">bad ipv6</a> <a href="//other.test/x">other</a>
     <!-- <a href="/commented.html">c</a> --></body></html>"""),
    ("http://s.test/dir/page", "utf-8", """<html><head><base href="http://s.test/base/"></head>
     <body><a href="rel.html">r</a><a href="/abs.html">a</a><a href="../up.html">u</a></body></html>"""),
    ("http://s.test/fr/p", "iso-8859-1", """<html><head><meta charset="iso-8859-1"></head>
     <body><a href="/fr/été.html">e</a><a href="/q?x=été">q</a></body></html>"""),
]


def test_follow_links_are_what_scrapys_link_extractor_gives():
    from matchers.page.outlinks import follow_links

    for url, encoding, html in FOLLOW_CASES:
        response = HtmlResponse(url, body=html.encode(encoding), encoding=encoding)
        assert follow_links(html, url, encoding, scrapy_ignored_extensions()) == _scrapy_links(response), url


def test_a_link_beyond_the_depth_limit_stays_followable_from_a_nearer_page(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://s.test/\n")
    crawler = get_crawler(SiteSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 's.db'}", "DEPTH_LIMIT": 1})
    sp = SiteSpider.from_crawler(crawler, seeds=str(seeds))
    state = sp.runtime.open_site(sp.sites[0])
    # A sitemap found through robots.txt is at depth 1: its links would be at depth 2.
    sitemap = XmlResponse("http://s.test/sitemap.xml", body=SITEMAP, request=Request("http://s.test/sitemap.xml",
                                                                                     meta={"depth": 1}))
    assert list(sp._follow(["http://s.test/en/a.html"], state, sitemap)) == []
    home = HtmlResponse("http://s.test/", body=b"<html></html>", request=Request("http://s.test/", meta={"depth": 0}))
    assert [r.url for r in sp._follow(["http://s.test/en/a.html"], state, home)] == ["http://s.test/en/a.html"]
