"""The spider's link sources, on hand-made responses (no network)."""

import gzip

from scrapy.http import HtmlResponse, Request, Response, XmlResponse
from scrapy.utils.test import get_crawler

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
