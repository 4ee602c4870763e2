"""Scrapy's per-response and per-item log messages, made only when a handler would write them.

Scrapy logs every response ("Crawled (200) ..."), every item ("Scraped from ...") and every
dropped item at DEBUG, and its root logger lets every level through to the handlers, so each of
those messages becomes a log record (with a walk up the stack for its caller) that the handler of
``LOG_LEVEL = "INFO"`` then throws away.  A crawl with the matching on makes two such records a
page (its response; its page item, dropped quietly at the end of the pipelines) and one a pair
item: at the end of a 1,000-page site with 4,455 final pairs, about a third of the time of
sending them as items.  The formatter returns no message (Scrapy's way of skipping one) when no handler
the record would reach takes its level; with a handler at DEBUG, the messages are Scrapy's own.
The add-on sets it as ``LOG_FORMATTER`` unless the project has its own.
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy.logformatter import LogFormatter, LogFormatterResult

# The loggers Scrapy sends these messages to (scrapy.core.engine, scrapy.core.scraper).
_ENGINE = logging.getLogger("scrapy.core.engine")
_SCRAPER = logging.getLogger("scrapy.core.scraper")


def written(logger: logging.Logger, level: int) -> bool:
    """Whether a record of ``level`` sent to ``logger`` would reach a handler that takes it
    (handlers' filters aside): the lookup :meth:`logging.Logger.callHandlers` makes."""
    if not logger.isEnabledFor(level):
        return False
    found = False
    current: logging.Logger | None = logger
    while current is not None:
        for handler in current.handlers:
            found = True
            if level >= handler.level:
                return True
        if not current.propagate:
            break
        current = current.parent
    last_resort = logging.lastResort
    return not found and last_resort is not None and level >= last_resort.level


def _level(logkws: LogFormatterResult) -> int:
    level: Any = logkws.get("level", logging.INFO)
    if isinstance(level, str):
        level = logging.getLevelName(level.upper())
    return level if isinstance(level, int) else logging.INFO


class QuietLogFormatter(LogFormatter):
    """Scrapy's log formatter, minus the messages no handler would write."""

    @staticmethod
    def _if_written(logkws: LogFormatterResult | None, logger: logging.Logger) -> LogFormatterResult | None:
        if logkws is None or not written(logger, _level(logkws)):
            return None
        return logkws

    def crawled(self, request: Any, response: Any, spider: Any) -> LogFormatterResult | None:  # type: ignore[override]
        return self._if_written(super().crawled(request, response, spider), _ENGINE)

    def scraped(self, item: Any, response: Any, spider: Any) -> LogFormatterResult | None:  # type: ignore[override]
        return self._if_written(super().scraped(item, response, spider), _SCRAPER)

    def dropped(self, item: Any, exception: BaseException, response: Any,  # type: ignore[override]
                spider: Any) -> LogFormatterResult | None:
        return self._if_written(super().dropped(item, exception, response, spider), _SCRAPER)
