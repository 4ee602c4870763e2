"""Scrapy's per-response and per-item messages are made only when a handler would write them."""

from __future__ import annotations

import logging

import pytest
from scrapy import Spider
from scrapy.exceptions import DropItem
from scrapy.http import HtmlResponse, Request
from scrapy.logformatter import LogFormatter
from scrapy.utils.test import get_crawler

from bitext_spider.crawl.log_formatter import QuietLogFormatter, written


@pytest.fixture
def loggers():
    """A private logger tree (parent -> child) with no handlers, restored afterwards."""
    parent = logging.getLogger("bitext_test_quiet")
    child = logging.getLogger("bitext_test_quiet.child")
    saved = [(lg, lg.handlers[:], lg.level, lg.propagate) for lg in (parent, child)]
    parent.propagate = False
    yield parent, child
    for lg, handlers, level, propagate in saved:
        lg.handlers[:] = handlers
        lg.setLevel(level)
        lg.propagate = propagate


def test_written_follows_the_handlers_a_record_reaches(loggers):
    parent, child = loggers
    parent.setLevel(logging.DEBUG)
    info = logging.StreamHandler()
    info.setLevel(logging.INFO)
    parent.handlers[:] = [info]  # pytest's capture handlers out of the way
    assert not written(child, logging.DEBUG)  # the only handler drops DEBUG
    assert written(child, logging.INFO)
    debug = logging.StreamHandler()
    debug.setLevel(logging.DEBUG)
    child.addHandler(debug)
    assert written(child, logging.DEBUG)
    child.propagate = False
    child.removeHandler(debug)
    # No handler on the way: Python's last resort takes WARNING and above.
    assert not written(child, logging.INFO) and written(child, logging.WARNING)
    child.propagate = True
    parent.setLevel(logging.ERROR)
    assert not written(child, logging.WARNING)  # the logger itself refuses it


def messages(formatter: LogFormatter) -> dict[str, object]:
    crawler = get_crawler(Spider)
    spider = Spider("s")
    spider.crawler = crawler
    request = Request("http://example.org/a")
    response = HtmlResponse("http://example.org/a", body=b"<html></html>", request=request)
    return {
        "crawled": formatter.crawled(request, response, spider),
        "scraped": formatter.scraped({"a": 1}, response, spider),
        "dropped quietly": formatter.dropped({"a": 1}, DropItem("x", log_level="DEBUG"), response, spider),
        "dropped": formatter.dropped({"a": 1}, DropItem("x"), response, spider),
    }


@pytest.fixture
def scrapy_loggers():
    """Scrapy's core loggers, their handlers and levels restored afterwards."""
    names = ["scrapy.core.engine", "scrapy.core.scraper", "scrapy.core", "scrapy", ""]
    saved = [(lg, lg.handlers[:], lg.level, lg.propagate) for lg in map(logging.getLogger, names)]
    for lg, *_ in saved:
        lg.handlers[:] = []
        lg.setLevel(logging.NOTSET)
        lg.propagate = True
    root = logging.getLogger()
    root.setLevel(logging.DEBUG)  # as Scrapy leaves it: the handlers choose
    yield root
    for lg, handlers, level, propagate in saved:
        lg.handlers[:] = handlers
        lg.setLevel(level)
        lg.propagate = propagate


def test_quiet_formatter_skips_what_no_handler_writes(scrapy_loggers):
    handler = logging.StreamHandler()
    handler.setLevel(logging.INFO)  # LOG_LEVEL = "INFO"
    scrapy_loggers.handlers[:] = [handler]  # pytest's capture handlers out of the way
    got = messages(QuietLogFormatter())
    assert got["crawled"] is None and got["scraped"] is None and got["dropped quietly"] is None
    plain = messages(LogFormatter())
    # A WARNING is written: Scrapy's own message.
    assert {k: got["dropped"][k] for k in ("level", "msg")} == {k: plain["dropped"][k] for k in ("level", "msg")}


def test_quiet_formatter_keeps_every_message_at_debug(scrapy_loggers):
    handler = logging.StreamHandler()
    handler.setLevel(logging.DEBUG)  # LOG_LEVEL = "DEBUG"
    scrapy_loggers.handlers[:] = [handler]
    got, plain = messages(QuietLogFormatter()), messages(LogFormatter())
    assert all(v is not None for v in got.values())
    assert {k: v["level"] for k, v in got.items()} == {k: v["level"] for k, v in plain.items()}
