"""Periodic ``bitext:`` progress line, like Scrapy's own LogStats.

Every ``BITEXT_LOGSTATS_INTERVAL`` seconds, and once when the spider closes::

    bitext: pages 1200 (en:610 fr:590), 12.3 pages/s, frontier 340, pairs so far 57, ETA 6m40s,
    compared 9100, size 820, structure 310, stored 1190

pages/s is over the last interval; the frontier is the requests waiting in Scrapy's scheduler;
"pairs so far" is ``bitext/pairs/provisional`` (the final ``bitext/pairs`` once the spider has
closed); the ETA, shown only with ``BITEXT_MAX_PAGES_PER_SITE``, is the time every site would
take to reach that cap at the last interval's rate (sites with fewer pages finish sooner, so it
errs long).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from twisted.internet import task

from bitext_spider.config import BitextConfig

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Progress:
    """What the line says beyond the stats themselves."""

    rate: float | None = None  # pages a second over the last interval
    frontier: int | None = None  # requests waiting in the scheduler
    eta: float | None = None  # seconds until every site reaches the page cap
    with_eta: bool = False  # a page cap is set, so the line has an ETA (unknown when eta is None)


def remaining_pages(stats: Mapping[str, Any], cap: int) -> int | None:
    """Pages still to take before every site reaches ``cap`` (None: no cap or sites unknown)."""
    sites = stats.get("bitext/seeds/sites")
    if not cap or not sites:
        return None
    # Pages stored by an earlier run of a resumed crawl count towards the cap (runtime.open_site).
    done = stats.get("bitext/pages", 0) + stats.get("bitext/pages/resumed", 0)
    return max(0, cap * sites - done)


def eta_seconds(stats: Mapping[str, Any], cap: int, rate: float | None) -> float | None:
    """Seconds to the page cap at ``rate`` pages a second (None: no cap, or no progress to go by)."""
    remaining = remaining_pages(stats, cap)
    if remaining is None:
        return None
    if remaining == 0:
        return 0.0
    if not rate or rate <= 0:
        return None
    return remaining / rate


def duration(seconds: float) -> str:
    """``45s``, ``6m40s``, ``2h05m``."""
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def summary(stats: Mapping[str, Any], progress: Progress | None = None) -> str:
    """One line: pages (by language), rate, frontier, pairs, ETA, candidates after each filter, stored."""
    progress = progress or Progress()
    langs = sorted(
        ((k.rsplit("/", 1)[1], v) for k, v in stats.items() if k.startswith("bitext/pages/lang/")),
        key=lambda kv: -kv[1],
    )
    by_lang = " ".join(f"{lang}:{n}" for lang, n in langs[:12]) + (" ..." if len(langs) > 12 else "")
    pages = stats.get("bitext/pages", 0)
    parts = [f"pages {pages} ({by_lang})" if by_lang else f"pages {pages}"]
    if progress.rate is not None:
        parts.append(f"{progress.rate:.1f} pages/s")
    if progress.frontier is not None:
        parts.append(f"frontier {progress.frontier}")
    if "bitext/pairs" in stats:
        parts.append(f"pairs {stats['bitext/pairs']}")
    else:
        parts.append(f"pairs so far {stats.get('bitext/pairs/provisional', 0)}")
    if progress.with_eta:
        parts.append(f"ETA {duration(progress.eta)}" if progress.eta is not None else "ETA unknown")
    parts += [
        f"compared {stats.get('bitext/candidates/compared', 0)}",
        f"size {stats.get('bitext/candidates/size', 0)}",
        f"structure {stats.get('bitext/candidates/structure', 0)}",
        f"stored {stats.get('bitext/pages/stored', 0)}",
    ]
    return "bitext: " + ", ".join(parts)


def frontier_size(crawler: Any) -> int | None:
    """Requests waiting in the crawl's scheduler, or None when it cannot say."""
    engine = getattr(crawler, "engine", None)
    scheduler = getattr(engine, "scheduler", None)  # public since Scrapy 2.19; None before the spider opens
    if scheduler is None:
        return None
    try:
        return len(scheduler)
    except TypeError:  # a custom scheduler without __len__ (BaseScheduler does not require it)
        return None


class BitextLogStats:
    def __init__(
        self, crawler: Any, interval: float, page_cap: int = 0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.crawler = crawler
        self.interval = interval
        self.page_cap = page_cap
        self.clock = clock
        self.task: task.LoopingCall | None = None
        self._last: tuple[float, int] | None = None  # (time, bitext/pages) at the last line

    @property
    def stats(self) -> Any:
        return self.crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> BitextLogStats:
        config = BitextConfig.from_crawler(crawler)
        if not config.enabled:
            raise NotConfigured("BITEXT_ENABLED is off")
        if config.logstats_interval <= 0:
            raise NotConfigured
        ext = cls(crawler, config.logstats_interval, config.max_pages_per_site)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Any = None) -> None:
        self._last = (self.clock(), self.stats.get_value("bitext/pages", 0))
        self.task = task.LoopingCall(self.log)
        self.task.start(self.interval, now=False)

    def progress(self, closing: bool = False) -> Progress:
        """The rate since the last call, the frontier now and the ETA; starts the next interval."""
        now, pages = self.clock(), self.stats.get_value("bitext/pages", 0)
        rate = None
        if self._last is not None and now > self._last[0]:
            rate = (pages - self._last[1]) / (now - self._last[0])
        self._last = (now, pages)
        with_eta = bool(self.page_cap) and not closing
        eta = eta_seconds(self.stats.get_stats(), self.page_cap, rate) if with_eta else None
        return Progress(rate=rate, frontier=frontier_size(self.crawler), eta=eta, with_eta=with_eta)

    def line(self, closing: bool = False) -> str:
        progress = self.progress(closing)
        return summary(self.stats.get_stats(), progress)

    def log(self, closing: bool = False) -> None:
        logger.info(self.line(closing))

    def spider_closed(self, spider: Any = None, reason: str = "") -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
        self.log(closing=True)
