"""The ``warc`` spider: the ``site`` spider's pages, from WARC files instead of the network.

    bitext mine-warc FILE.warc.gz [FILE ...] --db URL [--seeds FILE] [--langs en,fr]
    scrapy crawl warc -a files='crawl-*.warc.gz' [-a seeds=FILE] [-a langs=en,fr]

It reads the response records in file order (the order a crawl fetched them, so the translation
models train on the pages in the order the crawl gave them) and hands each to the ``site``
spider's own callbacks (``parse``, ``parse_robots``), which make the same page items; it makes no
request at all.  The links those callbacks would have followed only say how deep each page is and
which publication day a feed gave it.  Records are grouped into sites by host, as a seeds file's
one-host lines would; with ``seeds``, each seeds line is one site over its hosts and records of
other hosts are a site each.  The first record of a URL is its page; later ones are skipped
(``bitext/warc/skipped/duplicate``), as are revisit, truncated, non-2xx and undecodable records
(bitext_spider.warc.archive_reader), responses over ``DOWNLOAD_MAXSIZE`` and pages a meta refresh
sends elsewhere (Scrapy's redirect middlewares would not have let a crawl see either).
A file that cannot be read to its end is reported (``failures``) and the next one is read.
"""

from __future__ import annotations

import asyncio
import glob
import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

from scrapy import Request, signals
from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, Response
from scrapy.http.headers import Headers
from scrapy.responsetypes import responsetypes

from bitext_spider.crawl.middlewares import SITE_META
from bitext_spider.crawl.seeds import Site, page_site
from bitext_spider.items import PageItem
from bitext_spider.runtime import SiteState
from bitext_spider.spiders.site import _FEED_DAY, SiteSpider, _job_failed
from bitext_spider.user_errors import UserError
from bitext_spider.warc.archive_reader import Archived, Passed, WarcInputError, check_archive, read_archive
from matchers.site.url_canonical import fetch_url

logger = logging.getLogger(__name__)

# Records read ahead by the reader thread, in batches of at most this many records or bytes.
BATCH_RECORDS = 32
BATCH_BYTES = 4_000_000
# URLs whose depth and feed day are remembered (links of pages read so far); past it, pages first
# linked later get depth 0 and no feed day, so a huge archive does not grow memory without end.
MAX_FOUND = 2_000_000


def archive_files(files: str | Sequence[str] | None) -> list[str]:
    """The files a ``files`` argument names: a list, or one string of paths or glob patterns
    separated by newlines or commas (each pattern's matches sorted, so numbered files keep order)."""
    if not files:
        return []
    parts = files if not isinstance(files, str) else files.replace(",", "\n").splitlines()
    out: list[str] = []
    for part in (p.strip() for p in parts):
        if not part:
            continue
        matches = sorted(glob.glob(part)) if glob.has_magic(part) else []
        out.extend(matches or [part])
    return out


def _take(records: Iterator[Archived | Passed]) -> tuple[list[Archived | Passed], WarcInputError | None]:
    """The next batch, and the error that ended the file after it, if one did."""
    batch: list[Archived | Passed] = []
    size = 0
    try:
        for rec in records:
            batch.append(rec)
            size += len(rec.body) if isinstance(rec, Archived) else 0
            if len(batch) >= BATCH_RECORDS or size >= BATCH_BYTES:
                break
    except WarcInputError as exc:
        return batch, exc
    return batch, None


async def _read_ahead(records: Iterator[Archived | Passed]) -> AsyncIterator[list[Archived | Passed]]:
    """Batches of ``records``, the next one read in a thread while the caller handles this one;
    an error that ends the file is raised after the records before it."""
    pending = asyncio.ensure_future(asyncio.to_thread(_take, records))
    while True:
        batch, error = await pending
        if batch and error is None:
            pending = asyncio.ensure_future(asyncio.to_thread(_take, records))
        if batch:
            yield batch
        if error is not None:
            raise error
        if not batch:
            return


class WarcSpider(SiteSpider):
    name = "warc"
    # Nothing is downloaded: no robots.txt to ask for, no console to open.
    custom_settings = {"ROBOTSTXT_OBEY": False, "TELNETCONSOLE_ENABLED": False}

    def __init__(self, files: str | Sequence[str] | None = None, seeds: str | None = None,
                 langs: str | None = None, since: str | None = None, **kwargs: Any) -> None:
        super().__init__(seeds=seeds, langs=langs, since=since, **kwargs)
        self.files = archive_files(files)
        self.failures: list[str] = []  # files that could not be read to their end
        self.pages = 0
        # URL -> (depth, feed day), from the first page that linked it (as the site spider's
        # first request for a URL carries them).
        self.found: dict[str, tuple[int, int | None]] = {}
        self._taken: set[str] = set()
        self._host_sites: dict[str, Site] = {}
        # A redirect's target -> the site of the URL redirected (a crawl asked for it for that site).
        self._via: dict[str, Site] = {}
        self._meta_refresh: MetaRefreshMiddleware | None = None
        self._max_size = 0
        # Bytes of page items in the item pipelines: replay waits above Scrapy's limit for
        # responses waiting on the pipelines, as a crawl's downloads do.
        self._in_flight: dict[int, int] = {}
        self._in_flight_bytes = 0
        self._max_in_flight = 0
        self._room = asyncio.Event()

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> WarcSpider:
        files = archive_files(kwargs.get("files"))
        try:
            if not files:
                raise WarcInputError("no WARC files given: run `bitext mine-warc FILE.warc.gz ...` "
                                     "(or scrapy crawl warc -a files=PATTERN)")
            for path in files:
                check_archive(path)
        except UserError as exc:
            _job_failed(str(exc))
            raise
        spider = super().from_crawler(crawler, *args, **kwargs)
        assert isinstance(spider, WarcSpider)
        spider.allowed_domains = []  # every host of the archive is on some site
        for site in spider.sites:
            for host in site.hosts:
                spider._host_sites.setdefault(host, site)
        try:
            spider._meta_refresh = MetaRefreshMiddleware.from_crawler(crawler)
        except NotConfigured:
            spider._meta_refresh = None
        spider._max_size = crawler.settings.getint("DOWNLOAD_MAXSIZE")
        spider._max_in_flight = crawler.settings.getint("SCRAPER_SLOT_MAX_ACTIVE_SIZE")
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            crawler.signals.connect(spider._item_done, signal=signal)
        return spider

    def _load_sites(self) -> list[Site]:
        return super()._load_sites() if self.seeds_arg else []

    # -- what the site spider's callbacks would have requested -----------------------------------
    def _request(self, url: str, state: SiteState, depth: int = 0, **kwargs: Any) -> Request | None:
        url = fetch_url(url)
        if url not in self.found and len(self.found) < MAX_FOUND:
            self.found[url] = (depth, kwargs.get("meta", {}).get(_FEED_DAY))
        return None

    def _redirected(self, source: str, target: str) -> None:
        """A redirect's target is the page its source was linked as, asked for by the source's site
        (the site spider's ``parse`` skips it when it is off that site's hosts)."""
        found = self.found.get(fetch_url(source))
        if found is not None:
            self.found.setdefault(fetch_url(target), found)
        self._via.setdefault(target, self._via.get(source) or self._site_of(source))

    # -- replay -----------------------------------------------------------------------------------
    async def start(self) -> AsyncIterator[Any]:
        stats = self.crawler.stats
        for path in self.files:
            logger.info("reading %s", path)
            try:
                async for batch in _read_ahead(read_archive(path, self.runtime.config.warc_keep_truncated)):
                    for rec in batch:
                        stats.inc_value("bitext/warc/read/records")
                        if isinstance(rec, Passed):
                            if rec.reason:
                                stats.inc_value(f"bitext/warc/skipped/{rec.reason}")
                            if rec.location:
                                self._redirected(rec.url, rec.location)
                            continue
                        async for item in self._replay(rec):
                            yield item
            except WarcInputError as exc:
                logger.error("%s; the records before it were mined", exc)
                stats.inc_value("bitext/warc/errors/input")
                self.failures.append(str(exc))

    async def _replay(self, rec: Archived) -> AsyncIterator[PageItem]:
        stats = self.crawler.stats
        if rec.url in self._taken:
            stats.inc_value("bitext/warc/skipped/duplicate")
            return
        self._taken.add(rec.url)
        if self._max_size and len(rec.body) > self._max_size:
            stats.inc_value("bitext/warc/skipped/too_large")
            return
        state = await self._site_state(self._via.pop(rec.url, None) or self._site_of(rec.url))
        response = self._response(rec, state)
        if self._meta_refresh is not None and isinstance(response, HtmlResponse):
            try:
                redirected = self._meta_refresh.process_response(response.request, response)
            except IgnoreRequest:
                redirected = None
            if not isinstance(redirected, Response):
                stats.inc_value("bitext/warc/skipped/redirect")
                if isinstance(redirected, Request):
                    self._redirected(rec.url, redirected.url)
                return
        stats.inc_value("bitext/warc/read/responses")
        if urlsplit(rec.url).path == "/robots.txt":
            for _ in self.parse_robots(response):  # notes the sitemaps it names
                pass
            return
        async for out in self.parse(response):
            if isinstance(out, PageItem):
                out.fetched_at = rec.fetched_at or out.fetched_at
                self.pages += 1
                await self._wait_for_room()
                self._in_flight[id(out)] = len(out.body)
                self._in_flight_bytes += len(out.body)
                yield out

    def _response(self, rec: Archived, state: SiteState) -> Response:
        depth, day = self.found.get(fetch_url(rec.url), (0, None))
        meta: dict[str, Any] = {SITE_META: state.key, "depth": depth}
        if day is not None:
            meta[_FEED_DAY] = day
        request = Request(rec.url, meta=meta, dont_filter=True)
        headers = Headers()
        for name, value in rec.headers:  # repeated headers (Set-Cookie) keep every value
            headers.appendlist(name, value)
        cls = responsetypes.from_args(headers=headers, url=rec.url, body=rec.body)
        return cls(url=rec.url, status=rec.status, headers=headers, body=rec.body, request=request)

    def _site_of(self, url: str) -> Site:
        """The seeds line's site of the URL's host, or a site of that host alone."""
        host = urlsplit(url).netloc.lower()
        site = self._host_sites.get(host)
        if site is None:
            site = self._host_sites[host] = page_site(url)
        return site

    async def _site_state(self, site: Site) -> SiteState:
        state = self.runtime.sites.get(site.key)
        if state is None:
            # A site already in the database is resumed from it, as a crawl's would be.
            state = await asyncio.to_thread(self.runtime.open_site, site)
            self.crawler.stats.inc_value("bitext/warc/sites")
        return state

    # -- backpressure -----------------------------------------------------------------------------
    async def _wait_for_room(self) -> None:
        # Also goes on once the pipelines are empty: a pipeline that hands on another object
        # than the page it got leaves that page's bytes counted, and must not stop the replay.
        while self._in_flight_bytes > self._max_in_flight and self._items_in_pipelines():
            self._room.clear()
            await self._room.wait()

    def _items_in_pipelines(self) -> int:
        slot = getattr(getattr(getattr(self.crawler, "engine", None), "scraper", None), "slot", None)
        return int(getattr(slot, "itemproc_size", 1))

    def _item_done(self, item: Any, *args: Any, **kwargs: Any) -> None:
        size = self._in_flight.pop(id(item), None)
        if size is not None:
            self._in_flight_bytes -= size
        self._room.set()  # the waiter checks again
