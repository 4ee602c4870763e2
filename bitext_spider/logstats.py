"""Periodic log line with the bitext counters, like Scrapy's own LogStats."""

from __future__ import annotations

import logging
from typing import Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from twisted.internet import task

from bitext_spider.config import BitextConfig

logger = logging.getLogger(__name__)


def summary(stats: dict[str, Any]) -> str:
    """One line: pages (by language), candidates after each filter, stored pages, pairs."""
    langs = sorted(
        ((k.rsplit("/", 1)[1], v) for k, v in stats.items() if k.startswith("bitext/pages/lang/")),
        key=lambda kv: -kv[1],
    )
    by_lang = " ".join(f"{lang}:{n}" for lang, n in langs[:12]) + (" ..." if len(langs) > 12 else "")
    parts = [
        f"pages {stats.get('bitext/pages', 0)} ({by_lang})" if by_lang else f"pages {stats.get('bitext/pages', 0)}",
        f"compared {stats.get('bitext/candidates/compared', 0)}",
        f"size {stats.get('bitext/candidates/size', 0)}",
        f"structure {stats.get('bitext/candidates/structure', 0)}",
        f"stored {stats.get('bitext/pages/stored', 0)}",
    ]
    if "bitext/pairs" in stats:
        parts.append(f"pairs {stats['bitext/pairs']}")
    return "bitext: " + ", ".join(parts)


class BitextLogStats:
    def __init__(self, stats: Any, interval: float) -> None:
        self.stats = stats
        self.interval = interval
        self.task: task.LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> BitextLogStats:
        config = BitextConfig.from_crawler(crawler)
        if not config.enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        interval = config.logstats_interval
        if interval <= 0:
            raise NotConfigured
        ext = cls(crawler.stats, interval)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Any = None) -> None:
        self.task = task.LoopingCall(self.log)
        self.task.start(self.interval, now=False)

    def log(self) -> None:
        logger.info(summary(self.stats.get_stats()))

    def spider_closed(self, spider: Any = None, reason: str = "") -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
        self.log()
