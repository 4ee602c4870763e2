"""The ``site`` spider: crawl each seed site and yield one :class:`PageItem` per HTML page.

The reference spider of the project; any other spider gets its pages from the add-on's page
middleware (docs/addon.md).

    scrapy crawl site -a seeds=list.txt [-a langs=en,fr] [-a since=YYYY-MM-DD] [-a refresh=all|REGEX]
                      [-a domain=FILE]

It stays on each site's hosts, follows ``<a href>``, ``<link rel="alternate" hreflang>``, RSS/Atom
feeds and XML sitemaps (from links and from robots.txt ``Sitemap:`` lines), skips non-HTML
content, honours ``BITEXT_MAX_PAGES_PER_SITE``, ``DEPTH_LIMIT`` and ``BITEXT_SITE_TIME_LIMIT``, stops
following link traps and pathological paths (bitext_spider.crawl.link_traps), and resumes from the database:
pages already stored are not fetched again and their links seed the frontier; on such a repeated
run feeds come first and listing pages are asked for again conditionally
(bitext_spider.crawl.recrawl, which also says what ``since`` and ``refresh`` do).  With
``-a domain=FILE`` the crawl is focused (bitext_spider.crawl.focused): each page's relevance is
scored, and each site's links wait in a best-first frontier, requested best score first.
"""

from __future__ import annotations

import asyncio
import logging
import pprint
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit

import parsel
import scrapy
from protego import Protego
from scrapy import signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.http import Response, TextResponse, XmlResponse
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.gz import gunzip
from scrapy.utils.sitemap import Sitemap
from twisted.python.failure import Failure

from bitext_spider.config import BitextConfig, scrapy_ignored_extensions
from bitext_spider.crawl.focused import START_PRIORITY, BestFirstFrontier, focus_page, load_domain, window_for
from bitext_spider.crawl.middlewares import SITE_META, is_html
from bitext_spider.crawl.recrawl import (
    RecrawlPlan,
    conditional_headers,
    looks_like_feed,
    parse_refresh,
    parse_since,
)
from bitext_spider.crawl.seeds import SeedsError, Site, load_seeds, parse_seeds_text
from bitext_spider.crawl.site_limits import SiteLimitReached, out_of_time
from bitext_spider.items import PageItem
from bitext_spider.runtime import BitextRuntime, SiteState
from bitext_spider.store.open_errors import describe as describe_database_error
from bitext_spider.user_errors import ConfigError, DatabaseError, UserError
from bitext_spider.workers.page_parser import ParseTimeout
from matchers.page.outlinks import follow_links
from matchers.page.publication_date import parse_day, url_day
from matchers.site.url_canonical import fetch_url

logger = logging.getLogger(__name__)

_HTML_TYPES = ("text/html", "application/xhtml+xml")
# Every request carries its seed site's key; the add-on's page middleware leaves those responses
# to this spider, which makes their pages itself (it needs the parse for the links it follows).
_SITE = SITE_META
# A stored page asked for again (a repeated crawl's listing, or -a refresh).
_REFRESH = "bitext_refresh"
# The publication day a feed gave the page (RSS pubDate, Atom published/updated).
_FEED_DAY = "bitext_feed_day"
# A request a focused crawl's frontier handed to Scrapy: its answer frees a place in the window.
_FOCUS = "bitext_focus"


def _job_failed(message: str) -> None:
    """Make a crawl that cannot start visibly failed, also where the exit code is not seen (Scrapyd).

    It fails before Scrapy creates the stats collector, so nothing else dumps stats: log one ERROR
    line and a stats dump in Scrapy's format with ``bitext/failed`` = 1 and ``finish_reason`` =
    ``bitext_failed: ...``. The caller re-raises, so ``scrapy crawl`` still exits with status 1.
    """
    logger.error("bitext job failed: %s", message)
    stats = {"bitext/failed": 1, "finish_reason": f"bitext_failed: {message}"}
    logger.info("Dumping Scrapy stats:\n%s", pprint.pformat(stats))


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, seeds: str | None = None, langs: str | None = None, since: str | None = None,
                 refresh: str | None = None, domain: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.domain_arg = domain
        self.domain = None  # the focused crawl's Domain (matchers.page.domain_terms), set by from_crawler
        self.frontiers: dict[str, BestFirstFrontier] = {}
        self.seeds_arg = seeds
        self.langs_arg = langs
        self.since_arg, self.refresh_arg = since, refresh
        self.since: int | None = None
        self.refresh = None
        self.sites: list[Site] = []
        self.malformed_seed_lines = 0
        self._max_depth = 0  # DEPTH_LIMIT, set by from_crawler

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> SiteSpider:
        if kwargs.get("langs"):
            crawler.settings.set("BITEXT_LANGS", kwargs["langs"], priority="spider")
        if kwargs.get("domain"):
            crawler.settings.set("BITEXT_DOMAIN", kwargs["domain"], priority="spider")
        spider = super().from_crawler(crawler, *args, **kwargs)
        try:
            spider.sites = spider._load_sites()
            spider.since = parse_since(spider.since_arg)
            spider.refresh = parse_refresh(spider.refresh_arg)
        except (SeedsError, UserError) as exc:
            _job_failed(str(exc))
            raise
        try:
            config = BitextConfig.from_crawler(crawler)
        except ValueError as exc:  # a BITEXT_* setting out of range or of the wrong type
            _job_failed(str(exc))
            raise ConfigError(str(exc)) from exc
        try:
            spider.domain = load_domain(config)
        except UserError as exc:
            _job_failed(str(exc))
            raise
        if spider.domain is not None:
            for problem in spider.domain.problems:
                logger.error(problem)
            logger.info("focused crawl: domain %s, %d terms (languages: %s)", spider.domain.name,
                        len(spider.domain.terms), ", ".join(sorted(spider.domain.langs)) or "any")
            crawler.signals.connect(spider._idle, signal=signals.spider_idle)
        try:
            spider.runtime = BitextRuntime.of(crawler)
        except UserError as exc:
            _job_failed(str(exc))
            raise
        except Exception as exc:  # the database cannot be opened or its schema not brought up to date
            message = describe_database_error(config.db_url, exc)
            _job_failed(message)
            raise DatabaseError(message) from exc
        spider._max_depth = crawler.settings.getint("DEPTH_LIMIT")
        spider.allowed_domains = sorted({urlsplit(u).hostname or "" for s in spider.sites for u in s.start_urls})
        return spider

    def _load_sites(self) -> list[Site]:
        if not self.seeds_arg:
            raise SeedsError("no seeds given: run `scrapy crawl site -a seeds=PATH` (one site a line)")
        # A SeedsError is logged by from_crawler as the job's failure.
        if "://" in self.seeds_arg and not self.seeds_arg.strip().endswith((".txt", ".lst")):
            # Inline seeds: URLs separated by ';' or newlines, one site per part.
            report = parse_seeds_text(self.seeds_arg.replace(";", "\n"), source="seeds argument")
            for problem in report.problems:
                logger.error(problem)
            if not report.sites:
                raise SeedsError("the seeds argument has no valid site")
        else:
            report = load_seeds(self.seeds_arg)
        self.malformed_seed_lines = len(report.problems)
        return report.sites

    # -- requests -----------------------------------------------------------------------------
    def _request(self, url: str, state: SiteState, depth: int = 0, **kwargs: Any) -> scrapy.Request | None:
        # One page, one request: x.html? and x.html?PHPSESSID=... are x.html (stored once, under
        # the URL the site links).
        url = fetch_url(url)
        refresh = kwargs.get("meta", {}).get(_REFRESH, False)
        if (url in state.requested_urls or (url in state.stored_urls and not refresh)
                or urlsplit(url).netloc.lower() not in state.site.hosts):
            return None
        if self.since is not None and (day := url_day(url)) is not None and day < self.since:
            self.crawler.stats.inc_value("bitext/skipped/before_since")
            return None
        if 0 < self._max_depth < depth:
            # DepthMiddleware would drop it; marked as requested, the URL could no longer be
            # followed from a page nearer the start (a sitemap's links are one level deeper
            # than robots.txt, whatever their depth from the home page).
            return None
        cap = self.runtime.config.max_pages_per_site
        if cap and state.requested >= cap:
            self.crawler.stats.inc_value("bitext/skipped/page_cap")
            return None
        if out_of_time(state, self.runtime.config.site_time_limit):
            self.crawler.stats.inc_value("bitext/skipped/site_time_limit")
            return None
        refused = state.traps.refused(url)
        if refused:
            self.crawler.stats.inc_value(f"bitext/traps/{refused}_urls")
            return None
        state.requested += 1
        state.requested_urls.add(url)
        meta = {_SITE: state.key, **kwargs.pop("meta", {})}
        return scrapy.Request(url, callback=self.parse, errback=self.on_error, meta=meta, **kwargs)

    async def start(self) -> AsyncIterator[scrapy.Request]:
        self.crawler.stats.set_value("bitext/seeds/sites", len(self.sites))
        self.crawler.stats.set_value("bitext/seeds/malformed_lines", self.malformed_seed_lines)
        for site in self.sites:
            state = await asyncio.to_thread(self.runtime.open_site, site)
            state.started_at = time.monotonic()
            for host in sorted(site.hosts):
                scheme = next((urlsplit(u).scheme for u in site.start_urls if urlsplit(u).netloc == host), "http")
                yield scrapy.Request(
                    f"{scheme}://{host}/robots.txt",
                    callback=self.parse_robots,
                    errback=self.on_error,
                    meta={_SITE: site.key, "dont_obey_robotstxt": True},
                    priority=10,
                )
            for req in self._start_requests(state):
                yield req

    def _start_requests(self, state: SiteState) -> Iterator[scrapy.Request]:
        """The seed URLs and the resumed frontier; on a repeated run feeds first, then the listing
        pages asked for again conditionally (bitext_spider.crawl.recrawl)."""
        site = state.site
        if not state.recrawl_pages and self.domain is not None:
            for url in site.start_urls:
                self._enqueue(url, state, 0, START_PRIORITY)
            yield from self._release(state)
            return
        if not state.recrawl_pages:
            for url in list(site.start_urls) + state.frontier:
                req = self._request(url, state)
                if req is not None:
                    yield req
            return
        plan = RecrawlPlan.of(state.recrawl_pages, site.start_urls, self.refresh)
        state.recrawl_pages = []
        feeds = [u for u in state.frontier if looks_like_feed(u)]
        for url in feeds:
            req = self._request(url, state, priority=20)
            if req is not None:
                yield req
        for url, (etag, last_modified) in plan.revalidate.items():
            req = self._request(url, state, priority=15, headers=conditional_headers(etag, last_modified),
                                meta={_REFRESH: True, "handle_httpstatus_list": [304]})
            if req is not None:
                self.crawler.stats.inc_value("bitext/recrawl/requested")
                yield req
        rest = list(site.start_urls) + [u for u in state.frontier if not looks_like_feed(u)]
        if self.domain is not None:
            for url in rest:  # a stored page's links, with the best priority the stored pages gave them
                prio = START_PRIORITY if url in site.start_urls else state.frontier_priorities.get(url, 0)
                self._enqueue(url, state, 0, prio)
            yield from self._release(state)
            return
        for url in rest:
            req = self._request(url, state)
            if req is not None:
                yield req

    def _follow(
        self, urls: Iterable[str], state: SiteState, response: Response, absolute: bool = False,
        priorities: dict[str, int] | None = None,
    ) -> Iterator[scrapy.Request]:
        """Requests for ``urls``, resolved against the response unless ``absolute`` (page links
        are resolved by follow_links; ``response.urljoin`` would decode the page's text again
        on the reactor just to look for a ``<base>``).  A focused crawl queues them in the site's
        frontier, with their ``priorities``, instead: ``parse`` requests the best ones."""
        depth = int(response.meta.get("depth", 0)) + 1
        for url in urls:
            if self.domain is not None:
                url = url if absolute else response.urljoin(url)
                self._enqueue(url, state, depth, priorities.get(url, 0) if priorities else 0)
                continue
            req = self._request(url if absolute else response.urljoin(url), state, depth)
            if req is not None:
                yield req

    # -- focused crawl: the best-first frontier (bitext_spider.crawl.focused) ------------------
    def _frontier(self, state: SiteState) -> BestFirstFrontier:
        frontier = self.frontiers.get(state.key)
        if frontier is None:
            frontier = self.frontiers[state.key] = BestFirstFrontier(
                window=window_for(self.runtime.config.max_pages_per_site))
        return frontier

    def _enqueue(self, url: str, state: SiteState, depth: int, prio: int, meta: dict[str, Any] | None = None) -> None:
        url = fetch_url(url)
        if (url in state.requested_urls or url in state.stored_urls
                or urlsplit(url).netloc.lower() not in state.site.hosts):
            return
        frontier = self._frontier(state)
        frontier.push(url, prio, depth)
        if meta:
            frontier.meta[url] = meta

    def _release(self, state: SiteState) -> Iterator[scrapy.Request]:
        """The frontier's best links, as many as the site's window has room for."""
        frontier = self._frontier(state)
        cap = self.runtime.config.max_pages_per_site
        while frontier.room() and not (cap and state.requested >= cap):
            best = frontier.pop()
            if best is None:
                return
            url, prio, depth = best
            meta = {_FOCUS: True, **frontier.meta.pop(url, {})}
            req = self._request(url, state, depth, priority=prio, meta=meta)
            if req is not None:
                frontier.in_flight += 1
                yield req

    def _answered(self, request: scrapy.Request | None) -> SiteState | None:
        """Free the window place of a request the frontier handed out; its site's state."""
        if request is None or not request.meta.get(_FOCUS):
            return None
        key = request.meta.get(_SITE)
        frontier = self.frontiers.get(key) if key else None
        if frontier is None or key not in self.runtime.sites:
            return None
        request.meta[_FOCUS] = False  # a response and an error for one request free one place
        frontier.in_flight = max(0, frontier.in_flight - 1)
        return self.runtime.sites[key]

    def _idle(self, spider: Any = None) -> None:
        """Nothing is downloading: a request that never came back (dropped on the way without an
        answer) no longer holds its window place; the frontiers' next links go out."""
        released = []
        for key, frontier in self.frontiers.items():
            frontier.in_flight = 0
            state = self.runtime.sites.get(key)
            if state is not None:
                released.extend(self._release(state))
        for req in released:
            self.crawler.engine.crawl(req)
        if released:
            raise DontCloseSpider

    def closed(self, reason: str) -> None:
        left = sum(len(f) for f in self.frontiers.values())
        if self.domain is not None:
            self.crawler.stats.set_value("bitext/domain/frontier_left", left)

    # -- callbacks ----------------------------------------------------------------------------
    def parse_robots(self, response: Response) -> Iterator[scrapy.Request]:
        state = self.runtime.site(response.meta[_SITE])
        if response.status != 200 or not isinstance(response, TextResponse):
            return
        robots = Protego.parse(response.text)
        yield from self._follow(robots.sitemaps, state, response)

    async def parse(self, response: Response) -> AsyncIterator[Any]:
        state = self._answered(response.request)
        async for out in self._parse_response(response):
            yield out
        if self.domain is not None:
            # Any answer may have brought links better than those waiting (a repeated crawl's
            # listing pages are not the frontier's requests).
            state = state or self.runtime.sites.get(response.meta.get(_SITE, ""))
            if state is not None:
                for req in self._release(state):
                    yield req

    async def _parse_response(self, response: Response) -> AsyncIterator[Any]:
        state = self.runtime.site(response.meta[_SITE])
        stats = self.crawler.stats
        if urlsplit(response.url).netloc.lower() not in state.site.hosts:
            stats.inc_value("bitext/skipped/offsite_redirect")
            state.requested -= 1
            return
        if self._is_xml(response) or self._is_gzipped_sitemap(response):
            state.requested -= 1  # sitemaps and feeds are not pages
            days = self._feed_days(response)
            for url in self._xml_links(response):
                # A feed item's pubDate dates the page when the page itself does not say.
                day = days.get(url.strip())
                meta = {_FEED_DAY: day} if day is not None else {}
                if self.domain is not None:
                    self._enqueue(response.urljoin(url), state, int(response.meta.get("depth", 0)) + 1, 0, meta)
                    continue
                req = self._request(response.urljoin(url), state, int(response.meta.get("depth", 0)) + 1, meta=meta)
                if req is not None:
                    yield req
            return
        if not self._is_html(response):
            stats.inc_value("bitext/skipped/non_html")
            state.requested -= 1
            logger.debug("not HTML (%s): %s", response.headers.get("Content-Type"), response.url)
            return
        if response.status == 304:
            stats.inc_value("bitext/recrawl/not_modified")
            state.requested -= 1
            return
        if response.url in state.stored_urls:
            if response.meta.get(_REFRESH):
                # A listing asked for again: its links lead to what is new; its text stays stored.
                stats.inc_value("bitext/recrawl/changed")
                state.requested -= 1
                state.refreshed[response.url] = (response.headers.get("ETag", b"").decode("latin-1"),
                                                 response.headers.get("Last-Modified", b"").decode("latin-1"))
                for req in self._follow(self._page_links(response, state), state, response, absolute=True):
                    yield req
            return
        cap = self.runtime.config.max_pages_per_site
        if cap and state.pages_seen >= cap:
            stats.inc_value("bitext/skipped/page_cap")
            return
        state.pages_seen += 1
        content_type = response.headers.get("Content-Type", b"").decode("latin-1")
        parsed = None
        focus = None
        if self.runtime.config.enabled:
            # The page's one parse gives both the links to follow and what the stages need (in
            # the parse worker, off the reactor thread, when there is one).
            try:
                parsed = await self.runtime.parse_page(response.body, content_type, response.url)
            except ParseTimeout as exc:
                logger.warning("page dropped: %s", exc)
                return
            if self.since is not None and parsed.published is not None and parsed.published < self.since:
                stats.inc_value("bitext/skipped/before_since")
                return
            links = self._on_site(parsed.follow, state)
            blocks = parsed.features.blocks if parsed.features is not None else ()
            trap = state.traps.observe(response.url, blocks, links)
            if trap is not None:
                stats.inc_value("bitext/traps/detected")
                logger.warning("site %s: link trap at %s (%d pages, %d of them with new text or links); its URLs "
                               "are no longer fetched", state.key, trap.pattern, trap.pages, trap.productive)
            if self.domain is not None:
                focus = focus_page(self.domain, self.runtime.config, parsed, response.url,
                                   scrapy_ignored_extensions())
                stats.inc_value("bitext/domain/links_ranked", len(links))
                if focus.translation_links:
                    stats.inc_value("bitext/domain/translation_links", focus.translation_links)
        else:
            # Matching off: the links are all a plain crawl needs.
            links = self._page_links(response, state)
        yield PageItem(
            url=response.url,
            site=state.key,
            body=response.body,
            requested_url=response.request.url if response.request else response.url,
            status=response.status,
            depth=int(response.meta.get("depth", 0)),
            fetched_at=time.time(),
            content_type=content_type,
            links=links,
            parsed=parsed,
            published=response.meta.get(_FEED_DAY),
            etag=response.headers.get("ETag", b"").decode("latin-1"),
            last_modified=response.headers.get("Last-Modified", b"").decode("latin-1"),
            topic=focus.topic if focus is not None else None,
            link_priorities=[focus.priorities.get(u, 0) for u in links] if focus is not None else [],
        )
        for req in self._follow(links, state, response, absolute=True,
                                priorities=focus.priorities if focus is not None else None):
            yield req

    def on_error(self, failure: Failure) -> list[scrapy.Request]:
        request = failure.request  # type: ignore[attr-defined]
        focused = self._answered(request)
        self._on_error(failure, request)
        return list(self._release(focused)) if focused is not None else []

    def _on_error(self, failure: Failure, request: scrapy.Request) -> None:
        key = request.meta.get(_SITE)
        state = self.runtime.sites.get(key) if key else None
        if state is not None and not request.url.endswith("/robots.txt"):
            state.requested -= 1  # a failed fetch doesn't use up the page cap
        if failure.check(SiteLimitReached):
            logger.debug("not fetched: %s: %s", request.url, failure.getErrorMessage())
            return
        self.crawler.stats.inc_value(f"bitext/errors/{failure.type.__name__}")
        # A 404 or a robots.txt refusal is the site's answer, not a fault of the crawl.
        expected = failure.check(HttpError, IgnoreRequest) is not None
        logger.log(logging.INFO if expected else logging.WARNING, "fetch failed: %s: %s", request.url,
                   failure.getErrorMessage())

    # -- helpers ------------------------------------------------------------------------------
    _is_html = staticmethod(is_html)

    @staticmethod
    def _is_xml(response: Response) -> bool:
        if isinstance(response, XmlResponse):
            return True
        ctype = response.headers.get("Content-Type", b"").decode("latin-1").lower()
        return "xml" in ctype and not any(t in ctype for t in _HTML_TYPES)

    @staticmethod
    def _is_gzipped_sitemap(response: Response) -> bool:
        return response.body[:2] == b"\x1f\x8b" and urlsplit(response.url).path.endswith(".xml.gz")

    def _xml_links(self, response: Response) -> list[str]:
        """Page URLs listed by an XML sitemap (plain or .xml.gz, or a sitemap index) or an RSS/Atom feed."""
        body = response.body
        if self._is_gzipped_sitemap(response):
            try:
                body = gunzip(body, max_size=self.crawler.settings.getint("DOWNLOAD_MAXSIZE"))
            except (OSError, ValueError) as exc:
                logger.warning("unreadable compressed sitemap %s: %s", response.url, exc)
                return []
        head = body[:2048]
        if b"<urlset" in head or b"<sitemapindex" in head:
            try:
                return [entry["loc"] for entry in Sitemap(body) if entry.get("loc")]
            except Exception as exc:  # a broken sitemap must not stop the crawl
                logger.warning("unreadable sitemap %s: %s", response.url, exc)
                return []
        sel = parsel.Selector(text=response.text, type="xml") if isinstance(response, TextResponse) else None
        if sel is None:
            return []
        sel.remove_namespaces()
        return sel.xpath("//item/link/text() | //entry/link[not(@rel) or @rel='alternate']/@href").getall()

    @staticmethod
    def _feed_days(response: Response) -> dict[str, int]:
        """Item link -> publication day, for an RSS or Atom feed (empty for anything else)."""
        if not isinstance(response, TextResponse) or b"<urlset" in response.body[:2048]:
            return {}
        try:
            sel = parsel.Selector(text=response.text, type="xml")
        except ValueError:
            return {}
        sel.remove_namespaces()
        out: dict[str, int] = {}
        for item in sel.xpath("//item | //entry"):
            link = item.xpath("link/text() | link[not(@rel) or @rel='alternate']/@href").get()
            day = parse_day(item.xpath("pubDate/text() | published/text() | updated/text() | date/text()").get())
            if link and day is not None:
                out[link.strip()] = day
        return out

    def _page_links(self, response: Response, state: SiteState) -> list[str]:
        """The on-site links to follow from an HTML page parsed here (no page-parse worker)."""
        try:
            text = response.text  # type: ignore[attr-defined]
        except (AttributeError, ValueError) as exc:  # not a text response, or undecodable
            logger.warning("no links extracted from %s: %s", response.url, exc)
            return []
        return self._on_site(follow_links(text, response.url, getattr(response, "encoding", "utf-8"),
                                         scrapy_ignored_extensions()), state)

    @staticmethod
    def _on_site(urls: Iterable[str], state: SiteState) -> list[str]:
        return [u for u in urls if urlsplit(u).netloc.lower() in state.site.hosts]
