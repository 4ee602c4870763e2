"""The add-on in a user's own Scrapy project: its settings, the page middleware, sites derived
from URLs, pipelines passing foreign items on, and a whole `scrapy crawl` of a user project."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from scrapy import Spider
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request, Response, TextResponse
from scrapy.settings import Settings
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler
from sqlalchemy import select
from sqlalchemy.orm import Session
from support import FAST, page_urls, pairs_of, stat

from bitext_spider.addon import ITEM_PIPELINES, BitextAddon
from bitext_spider.crawl.feed_guard import FeedGuard
from bitext_spider.crawl.logstats import BitextLogStats
from bitext_spider.crawl.middlewares import PageItemMiddleware, RobotsTxtMiddleware
from bitext_spider.crawl.pair_flow import FinalPairs
from bitext_spider.crawl.seeds import page_site
from bitext_spider.crawl.site_limits import SiteLimitsMiddleware
from bitext_spider.crawl.warc_output import WarcOutput
from bitext_spider.demo.loopback_server import free_port, serve_site
from bitext_spider.demo.site import generate_site
from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime
from bitext_spider.store.database import Store
from bitext_spider.store.models import SiteRow

ROOT = Path(__file__).resolve().parents[1]
ASYNCIO = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
HTML = b"<html lang='en'><head><title>T</title></head><body><p>Some words here.</p></body></html>"


# -- the add-on's settings --------------------------------------------------------------------------
def addon_settings(project: dict | None = None) -> Settings:
    settings = Settings(project or {}, priority="project")
    BitextAddon().update_settings(settings)
    return settings


def named(settings: Settings, name: str) -> dict[type, int | None]:
    return {load_object(k): v for k, v in settings.getdict(name).items()}


def test_addon_turns_everything_on():
    s = addon_settings()
    pipelines = named(s, "ITEM_PIPELINES")
    assert pipelines == {load_object(path): order for path, order in ITEM_PIPELINES.items()}
    assert named(s, "SPIDER_MIDDLEWARES") == {PageItemMiddleware: 950}
    assert named(s, "EXTENSIONS") == {BitextLogStats: 500, FinalPairs: 510, FeedGuard: 520, WarcOutput: 530}
    from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as ScrapyRobots
    assert named(s, "DOWNLOADER_MIDDLEWARES") == {ScrapyRobots: None, RobotsTxtMiddleware: 100,
                                                  SiteLimitsMiddleware: 50}
    assert s.get("TWISTED_REACTOR") == ASYNCIO
    assert s.get("BITEXT_DB_URL") == "sqlite:///bitext.db" and s.getpriority("BITEXT_DB_URL") == 15
    assert s.getint("BITEXT_MAX_CANDIDATES_PER_LANG") == 5
    assert s.getint("SCRAPER_SLOT_MAX_ACTIVE_SIZE") == 1_000_000
    assert s.get("LOG_FORMATTER") == "bitext_spider.crawl.log_formatter.QuietLogFormatter"
    assert addon_settings({"LOG_FORMATTER": "mine.Formatter"}).get("LOG_FORMATTER") == "mine.Formatter"
    # A project's own backlog bound wins; with bitext off Scrapy's default stays.
    assert addon_settings({"SCRAPER_SLOT_MAX_ACTIVE_SIZE": 3}).getint("SCRAPER_SLOT_MAX_ACTIVE_SIZE") == 3
    assert addon_settings({"BITEXT_ENABLED": False}).getint("SCRAPER_SLOT_MAX_ACTIVE_SIZE") == 5_000_000


class OwnFilter:
    """A project's own pipeline (only named in settings here)."""


def test_project_settings_win_over_the_addon():
    s = addon_settings({
        "BITEXT_DB_URL": "sqlite:///mine.db",
        "ITEM_PIPELINES": {"pipelines.content_filter.ContentFilterPipeline": None, "test_addon.OwnFilter": 700},
        "DOWNLOADER_MIDDLEWARES": {"scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": 120},
    })
    assert s.get("BITEXT_DB_URL") == "sqlite:///mine.db"
    raw = s.getdict("ITEM_PIPELINES")
    assert raw["pipelines.content_filter.ContentFilterPipeline"] is None  # switched off stays off
    assert raw["test_addon.OwnFilter"] == 700  # the project's own filter joins the chain
    assert len(raw) == len(ITEM_PIPELINES) + 1
    # The project placed Scrapy's robots.txt middleware itself: the add-on leaves it alone.
    assert {k: v for k, v in s.getdict("DOWNLOADER_MIDDLEWARES").items() if "robots" in str(k).lower()} == {
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": 120}


def test_addon_refuses_another_reactor():
    with pytest.raises(RuntimeError, match="AsyncioSelectorReactor"):
        addon_settings({"TWISTED_REACTOR": "twisted.internet.selectreactor.SelectReactor"})


def test_project_settings_module_uses_the_addon():
    s = Settings()
    s.setmodule("bitext_spider.settings", priority="project")
    assert s.getdict("ADDONS") == {"bitext_spider.addon.BitextAddon": 500}
    assert not s.getdict("ITEM_PIPELINES")  # declared once, in the add-on


# -- sites derived from URLs ------------------------------------------------------------------------
def test_page_site_per_host_or_allowed_domain():
    assert page_site("http://Example.org:8080/a/b").key == "example.org:8080"
    assert page_site("https://www.example.org/x").key == "www.example.org"
    domains = ["example.org", "docs.example.org"]
    assert page_site("http://fr.example.org/", domains).key == "example.org"
    assert page_site("http://en.docs.example.org/", domains).key == "docs.example.org"
    assert page_site("http://example.org/", domains).key == "example.org"
    assert page_site("http://other.net/", domains).key == "other.net"  # outside: its host
    assert page_site("http://notexample.org/", domains).key == "notexample.org"
    site = page_site("http://127.0.0.1:8000/en/", ["127.0.0.1"])
    assert site.key == "127.0.0.1" and site.start_urls == ("http://127.0.0.1:8000/en/",)


def test_runtime_site_opens_an_unknown_site(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    crawler = get_crawler(Spider, {"BITEXT_DB_URL": db})
    runtime = BitextRuntime.of(crawler)
    state = runtime.site("fr.example.org")  # no KeyError: opened on first use
    assert runtime.site("fr.example.org") is state and state.site_id > 0
    runtime.close()


# -- the page middleware ----------------------------------------------------------------------------
class UserSpider(Spider):
    name = "user"


@dataclass
class Quote:
    text: str


@pytest.fixture
def middleware(tmp_path):
    crawler = get_crawler(UserSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'm.db'}", "BITEXT_MAX_PAGES_PER_SITE": 3})
    crawler.spider = UserSpider()
    mw = PageItemMiddleware.from_crawler(crawler)
    yield crawler, mw
    BitextRuntime.of(crawler).close()


def run_mw(mw: PageItemMiddleware, response: Response, output: list) -> list:
    async def spider_output():
        for x in output:
            yield x

    async def collect():
        return [x async for x in mw.process_spider_output(response, spider_output())]

    return asyncio.run(collect())


def html_response(url: str, status: int = 200, meta: dict | None = None, body: bytes = HTML) -> HtmlResponse:
    return HtmlResponse(url, status=status, body=body, headers={"Content-Type": "text/html; charset=utf-8"},
                        request=Request(url, meta=meta or {}))


def test_middleware_adds_one_page_after_the_spider_output(middleware):
    crawler, mw = middleware
    own = [Quote("a"), {"k": 1}, Request("http://127.0.0.1:5/fr/"), Request("http://elsewhere.test/"), Quote("b")]
    out = run_mw(mw, html_response("http://127.0.0.1:5/en/", meta={"depth": 2}), own)
    assert out[:-1] == own  # the spider's own output, untouched and in order
    page = out[-1]
    assert isinstance(page, PageItem)
    assert (page.url, page.site, page.body, page.depth, page.status) == ("http://127.0.0.1:5/en/", "127.0.0.1:5", HTML, 2, 200)
    assert page.links == ["http://127.0.0.1:5/fr/"]  # the requests it made on its own site
    assert crawler.stats.get_value("bitext/sites/derived") == 1


def test_pages_of_a_new_site_arriving_together_open_it_once(middleware):
    crawler, mw = middleware

    async def both():
        async def one(url):
            async def nothing():
                return
                yield

            return [x async for x in mw.process_spider_output(html_response(url), nothing())]

        return await asyncio.gather(one("http://new.test/a"), one("http://new.test/b"))

    a, b = asyncio.run(both())
    assert [p.url for p in a + b] == ["http://new.test/a", "http://new.test/b"]
    assert crawler.stats.get_value("bitext/sites/derived") == 1
    assert list(BitextRuntime.of(crawler).sites) == ["new.test"]


def test_middleware_makes_no_page_where_it_must_not(middleware):
    crawler, mw = middleware
    url = "http://127.0.0.1:5/p"
    # a spider that makes its own page item (the site spider, or a user's), and its requests
    own_page = PageItem(url=url, site="x", body=HTML)
    assert run_mw(mw, html_response(url), [own_page]) == [own_page]
    assert run_mw(mw, html_response(url, meta={"bitext_site": "127.0.0.1:5"}), []) == []
    assert run_mw(mw, html_response(url, meta={"bitext_page": False}), []) == []
    # an error response the spider asked to see, a non-HTML response
    assert run_mw(mw, html_response(url, status=404), []) == []
    pdf = Response(url + ".pdf", body=b"%PDF-1.4", headers={"Content-Type": "application/pdf"}, request=Request(url + ".pdf"))
    assert run_mw(mw, pdf, []) == []
    js = TextResponse(url + ".json", body=b"{}", headers={"Content-Type": "application/json"}, request=Request(url))
    assert run_mw(mw, js, [{"x": 1}]) == [{"x": 1}]
    assert crawler.stats.get_value("bitext/skipped/error_status") == 1
    assert crawler.stats.get_value("bitext/skipped/non_html") == 2
    # one page per URL (two requests redirected to one page), and at most BITEXT_MAX_PAGES_PER_SITE
    assert len(run_mw(mw, html_response(url), [])) == 1
    assert run_mw(mw, html_response(url), []) == []
    assert crawler.stats.get_value("bitext/skipped/stored") == 1
    assert len(run_mw(mw, html_response(url + "2"), [])) == len(run_mw(mw, html_response(url + "3"), [])) == 1
    assert run_mw(mw, html_response(url + "4"), []) == []
    assert crawler.stats.get_value("bitext/skipped/page_cap") == 1


def test_middleware_skips_pages_stored_by_an_earlier_run(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    store = Store(db)
    site_id = store.ensure_site("127.0.0.1:5", [])
    from bitext_spider.store.records import PageRecord
    store.write([PageRecord(site_id=site_id, values=dict(
        url="http://127.0.0.1:5/old", requested_url="http://127.0.0.1:5/old", status=200, depth=0, fetched_at=0.0,
        content_type="text/html", encoding="utf-8", size_bytes=10, size_chars=10, n_tags=0, n_paragraphs=0,
        n_words=0, lang="en", lang_score=1.0, declared_lang="", eligible=False, title="", text="", tokens=None,
        links=[], paragraphs=[], outlinks=[], images=[], note=""), candidates=[])])
    store.close()
    crawler = get_crawler(UserSpider, {"BITEXT_DB_URL": db})
    crawler.spider = UserSpider()
    mw = PageItemMiddleware.from_crawler(crawler)
    assert run_mw(mw, html_response("http://127.0.0.1:5/old"), []) == []
    assert len(run_mw(mw, html_response("http://127.0.0.1:5/new"), [])) == 1
    BitextRuntime.of(crawler).close()


def test_disabled_bitext_components_are_not_configured(tmp_path):
    from pipelines.store import StorePipeline

    crawler = get_crawler(UserSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'off.db'}", "BITEXT_ENABLED": False})
    for cls in (PageItemMiddleware, BitextLogStats, *(load_object(p) for p in ITEM_PIPELINES)):
        with pytest.raises(NotConfigured):
            cls.from_crawler(crawler)
    assert StorePipeline in {load_object(p) for p in ITEM_PIPELINES}
    assert not (tmp_path / "off.db").exists()  # no database opened either


# -- every pipeline passes a foreign item on untouched -----------------------------------------------
@pytest.mark.parametrize("path", list(ITEM_PIPELINES) + ["shared_numbers.SharedNumbersPipeline"])
def test_pipelines_pass_foreign_items_on(path, tmp_path):
    sys.path.insert(0, str(ROOT / "docs" / "examples"))
    try:
        cls = load_object(path)
    finally:
        sys.path.remove(str(ROOT / "docs" / "examples"))
    dictionary = tmp_path / "en-fr.dic"  # so that the dictionary stage is on too
    dictionary.write_text("en\tfr\nbook\tlivre\n", encoding="utf-8")
    domain = tmp_path / "domain.txt"  # and the topic stage of a focused crawl
    domain.write_text("100:book=library>en\n", encoding="utf-8")
    crawler = get_crawler(UserSpider, {"BITEXT_DB_URL": f"sqlite:///{tmp_path / 'f.db'}",
                                       "BITEXT_DICTIONARY": str(dictionary), "BITEXT_DOMAIN": str(domain)})
    runtime = BitextRuntime.of(crawler)
    stage = cls.from_crawler(crawler)
    foreign = [{"title": "a dict", "body": b"<html></html>"}, Quote("a dataclass"), ["a", "list"]]
    for item in foreign:
        before = repr(item)
        result = stage.process_item(item)
        if asyncio.iscoroutine(result):
            result = asyncio.run(result)
        assert result is item and repr(item) == before
    assert runtime.sites == {}  # no site opened, nothing queued for the store
    assert runtime.writer.backlog == 0
    runtime.close()


# -- a whole user project -----------------------------------------------------------------------------
USER_SPIDER = '''
from dataclasses import dataclass

from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


@dataclass
class TitleItem:
    url: str
    title: str


class LinksSpider(CrawlSpider):
    name = "links"
    allowed_domains = ["127.0.0.1"]
    rules = (Rule(LinkExtractor(), callback="parse_page", follow=True),)

    def __init__(self, start: str = "", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]

    def parse_page(self, response):
        yield TitleItem(url=response.url, title=response.css("title::text").get(""))
'''


def make_user_project(root: Path) -> Path:
    (root / "userproj" / "spiders").mkdir(parents=True)
    (root / "scrapy.cfg").write_text("[settings]\ndefault = userproj.settings\n")
    (root / "userproj" / "__init__.py").write_text("")
    (root / "userproj" / "spiders" / "__init__.py").write_text("")
    (root / "userproj" / "settings.py").write_text(textwrap.dedent('''
        BOT_NAME = "userproj"
        SPIDER_MODULES = ["userproj.spiders"]
        ADDONS = {"bitext_spider.addon.BitextAddon": 500}
    '''))
    (root / "userproj" / "spiders" / "links.py").write_text(USER_SPIDER)
    return root


@pytest.fixture(scope="module")
def served_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("usersite")
    port = free_port()
    info = generate_site(root, base_url=f"http://127.0.0.1:{port}", n_docs=12, langs=("en", "fr", "de"), seed=5)
    with serve_site(root, port=port):
        yield info


@pytest.mark.slow
def test_user_crawlspider_project_with_the_addon(served_site, tmp_path):
    info = served_site
    project = make_user_project(tmp_path / "proj")
    db = f"sqlite:///{tmp_path / 'user.db'}"
    feeds = {"titles.jsonl": {"format": "jsonlines", "item_classes": ["userproj.spiders.links.TitleItem"]}}
    cmd = [sys.executable, "-m", "scrapy", "crawl", "links", "-a", f"start={info.base_url}/",
           "-s", f"BITEXT_DB_URL={db}", "-s", f"FEEDS={json.dumps(feeds)}", *FAST]
    proc = subprocess.run(cmd, cwd=project, capture_output=True, text=True, timeout=300)
    log = proc.stderr
    assert proc.returncode == 0, log[-3000:]
    assert "bitext: pages" in log  # the add-on's log-stats extension ran

    # Every content page a link reaches is stored once, with its language, in one derived site.
    reachable = {u: lang for u, lang in info.pages if u not in set(info.sitemap_only) | set(info.feed_only)}
    store = Store(db, create=False)
    try:
        pages = {p.url: p for p in store.pages()}
        with Session(store.engine) as s:
            sites = s.execute(select(SiteRow.key)).scalars().all()
    finally:
        store.close()
    assert set(reachable) <= set(pages)
    assert all(pages[u].lang == lang for u, lang in reachable.items())
    assert sites == ["127.0.0.1"]  # allowed_domains: one site, whatever the port
    assert stat(log, "bitext/sites/derived") == 1
    assert stat(log, "bitext/pages") == len(pages)  # one page per response, none twice

    # The known translations are found among the pairs `bitext export pairs` writes.
    out = subprocess.run([sys.executable, "-m", "bitext_spider.commands.cli", "export", "pairs", "--db", db],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout.splitlines()
    assert out[0] == "lang1\turl1\tlang2\turl2\tscore"
    exported = {frozenset((r.split("\t")[1], r.split("\t")[3])) for r in out[1:]}
    assert exported == pairs_of(db)
    gold = {frozenset((u1, u2)) for _, u1, _, u2 in info.gold if u1 in reachable and u2 in reachable}
    tp = len(exported & gold)
    assert tp / len(gold) >= 0.9 and tp / len(exported) >= 0.8, (tp, len(gold), len(exported))

    # The spider's own items are in its feed, exactly as it yielded them, and only they are.
    rows = [json.loads(line) for line in (project / "titles.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows and all(set(r) == {"url", "title"} for r in rows)
    assert {r["url"] for r in rows} <= set(pages)
    # Scraped: the spider's own items and the pair items; every page item left the flow once stored.
    pair_items = (stat(log, "bitext/pairs/provisional") or 0) + (stat(log, "bitext/pairs/final_items") or 0)
    assert stat(log, "item_scraped_count") == len(rows) + pair_items
    assert stat(log, "item_dropped_reasons_count/PageStored") == len(pages)
    home = next(r for r in rows if r["url"] == info.home_pages.get("fr", ""))
    assert home["title"] and pages[home["url"]].title == home["title"]


@pytest.mark.slow
def test_site_spider_stores_one_page_per_response(served_site, tmp_path):
    """The project's own settings run the add-on too; its middleware adds nothing to the pages
    the site spider makes itself."""
    db = f"sqlite:///{tmp_path / 'site.db'}"
    cmd = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"seeds={served_site.seeds_path}",
           "-s", f"BITEXT_DB_URL={db}", *FAST]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    urls = page_urls(db)
    assert len(urls) >= len(served_site.pages)
    assert stat(proc.stderr, "item_dropped_reasons_count/PageStored") == stat(proc.stderr, "bitext/pages") == len(urls)
    assert stat(proc.stderr, "bitext/sites/derived") is None


@pytest.mark.slow
def test_docs_example_project_runs(served_site, tmp_path):
    """docs/examples/addon_project, copied as a user would, crawls the site into its database."""
    info = served_site
    project = tmp_path / "corpus"
    shutil.copytree(ROOT / "docs" / "examples" / "addon_project", project)
    proc = subprocess.run([sys.executable, "-m", "scrapy", "crawl", "pages", "-a", f"start={info.base_url}/", *FAST],
                          cwd=project, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    db = f"sqlite:///{project / 'corpus.db'}"  # the project's own BITEXT_DB_URL
    urls = set(page_urls(db))
    reachable = {u for u, _ in info.pages} - set(info.sitemap_only) - set(info.feed_only)
    assert reachable <= urls
    assert info.private and not any("/private/" in u for u in urls)  # ROBOTSTXT_OBEY, the add-on's middleware
    gold = {frozenset((u1, u2)) for _, u1, _, u2 in info.gold if u1 in reachable and u2 in reachable}
    found = pairs_of(db)
    assert len(found & gold) / len(gold) >= 0.9 and len(found & gold) / len(found) >= 0.8
    titles = [json.loads(line) for line in (project / "titles.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {t["url"] for t in titles} == urls
