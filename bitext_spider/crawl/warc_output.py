"""``BITEXT_WARC_OUTPUT``: archive every response a crawl downloads, with its request, as WARC.

An extension (the add-on enables it; off while the setting is unset) that listens to Scrapy's
``response_downloaded`` signal, sent for each response as the download handler returns it and
before any downloader middleware: redirects, error statuses, retried responses, robots.txt,
sitemaps, feeds and non-HTML files are archived like pages, and the body is the one the server
sent (still compressed when the server compressed it, as its ``Content-Encoding`` says).  The
records are written by a thread of their own (bitext_spider.warc.archive_writer), so the reactor
only queues each response; the files are closed when the spider closes.  It works with
``BITEXT_ENABLED=False`` too: a plain crawl can archive.  ``bitext mine-warc`` reads the files back.
"""

from __future__ import annotations

import importlib.metadata
import logging
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.http import Request, Response
from scrapy.http.headers import Headers

from bitext_spider.config import BitextConfig
from bitext_spider.user_errors import ConfigError
from bitext_spider.warc.archive_writer import ArchiveFiles, BackgroundArchive, Exchange

logger = logging.getLogger(__name__)


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _pairs(headers: Headers) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, values in headers.items() for v in values]


def exchange_of(response: Response, request: Request) -> Exchange:
    """What is archived of a downloaded response and its request."""
    ip = getattr(response, "ip_address", None)
    return Exchange(
        url=response.url,
        date=datetime.now(timezone.utc),
        status=response.status,
        headers=_pairs(response.headers),
        body=response.body,
        method=request.method,
        request_headers=tuple(_pairs(request.headers)),
        request_body=request.body,
        protocol=getattr(response, "protocol", None) or "HTTP/1.1",
        ip_address=str(ip) if ip is not None else None,
        # DOWNLOAD_FAIL_ON_DATALOSS off: Scrapy keeps a body the connection cut short.
        truncated="disconnect" if "dataloss" in response.flags else None,
    )


class WarcOutput:
    def __init__(self, crawler: Any, archive: BackgroundArchive) -> None:
        self.crawler = crawler
        self.archive = archive
        self.skipped = 0

    @classmethod
    def from_crawler(cls, crawler: Any) -> WarcOutput:
        try:
            config = BitextConfig.from_crawler(crawler)
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        if not config.warc_output:
            raise NotConfigured  # no message: the usual case
        settings = crawler.settings
        info = {
            "software": f"bitext-spider/{_version('bitext-spider')} (warcio/{_version('warcio')})",
            "format": "WARC File Format 1.1",
            "conformsTo": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
            "isPartOf": getattr(crawler.spidercls, "name", "") or "",
            "robots": "obey" if settings.getbool("ROBOTSTXT_OBEY") else "ignore",
            "http-header-user-agent": settings.get("USER_AGENT") or "",
        }
        files = ArchiveFiles(config.warc_output, config.warc_max_bytes, info)
        stats = crawler.stats

        def written(size: int) -> None:  # in the writer thread; only it touches these two keys
            stats.inc_value("bitext/warc/written/responses")
            stats.inc_value("bitext/warc/written/bytes", size)

        ext = cls(crawler, BackgroundArchive(files, on_written=written))
        crawler.signals.connect(ext.response_downloaded, signal=signals.response_downloaded)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def response_downloaded(self, response: Response, request: Request, spider: Any = None) -> None:
        if urlsplit(response.url).scheme not in ("http", "https"):
            self.skipped += 1  # data: and file: URLs are no HTTP exchange
            return
        self.archive.put(exchange_of(response, request))

    def spider_closed(self, spider: Any = None, reason: str = "") -> None:
        if self.archive.backlog:
            logger.info("writing the last %d responses to the WARC output", self.archive.backlog)
        self.archive.close()
        files = self.archive.files.paths
        stats = self.crawler.stats
        stats.set_value("bitext/warc/written/files", len(files))
        if self.archive.lost:
            stats.set_value("bitext/warc/written/lost", self.archive.lost)
            logger.error("WARC output: %d responses could not be archived (%s)", self.archive.lost,
                         self.archive.error)
        if files:
            logger.info("WARC output: %d responses in %d files, %s to %s", self.archive.written, len(files),
                        files[0], files[-1].name)
