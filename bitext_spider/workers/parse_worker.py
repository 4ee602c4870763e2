"""The page-parse worker process's side (bitext_spider.workers.page_parser owns the processes).

Kept apart from the crawl side so that a worker imports only what parsing needs: unpickling a
call imports the module of its function, and the crawl side's imports (the settings, Scrapy) took
half a second of each worker's start.
"""

from __future__ import annotations

from bitext_spider.workers.channel import batchable
from matchers.page.language_id import LanguageIdentifier
from matchers.page.page_parse import ParsedPage, ParseOptions, parse_page, parse_pages


class PageWorker:
    """What one worker process keeps between pages: the options and its own fastText model."""

    def __init__(self, options: ParseOptions) -> None:
        self.options = options
        self.language = LanguageIdentifier()

    def parse(self, body: bytes, content_type: str, url: str) -> ParsedPage:
        return parse_page(body, content_type, url, self.options, self.language)

    def parse_many(self, pages: list[tuple[bytes, str, str]]) -> list[ParsedPage]:
        return parse_pages(pages, self.options, self.language)


# The worker process's state: a worker's initializer can only leave it at module level.  It is set
# in worker processes only, never in the crawl process.
_worker: PageWorker | None = None


def init_worker(options: ParseOptions) -> None:
    global _worker
    _worker = PageWorker(options)


def _parse_batch(calls: list[tuple[bytes, str, str]]) -> list[ParsedPage]:
    assert _worker is not None, "the worker initializer did not run"
    return _worker.parse_many(calls)


@batchable(_parse_batch)
def parse_in_worker(body: bytes, content_type: str, url: str) -> ParsedPage:
    assert _worker is not None, "the worker initializer did not run"
    return _worker.parse(body, content_type, url)
